package lab

import (
	"testing"
	"unsafe"
)

// TestHostLayout: a host is a whole number of cache lines long, and the
// station and list of its node, which every fetch of it reads, lie in one.
func TestHostLayout(t *testing.T) {
	var h host
	station := unsafe.Offsetof(h.node) + unsafe.Offsetof(h.node.Station)
	list := unsafe.Offsetof(h.node) + unsafe.Offsetof(h.node.List) + unsafe.Sizeof(h.node.List) - 1
	if unsafe.Sizeof(h)%64 != 0 || station/64 != list/64 {
		t.Fatalf("host of %d octets, station at %d, list ending at %d: want whole lines and one line for both",
			unsafe.Sizeof(h), station, list)
	}
}
