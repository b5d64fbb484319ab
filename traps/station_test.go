package traps

import (
	"net/netip"
	"slices"
	"testing"
)

// TestStations: nmsID on the configured port first, then the fall-backs; a
// station at an address the diagnosis holds faulty is unusable, a
// fall-back given by name is always tried.
func TestStations(t *testing.T) {
	faulty := map[netip.Addr]bool{}
	holds := func(a netip.Addr) bool { return faulty[a] }
	nms := netip.MustParseAddr("127.0.0.4")
	fallbacks := []string{"127.0.0.50:162", "nms-2.lan:1162"}
	want := []Destination{{"127.0.0.4:1162", true}, {"127.0.0.50:162", true}, {"nms-2.lan:1162", true}}
	if got := Stations(nms, 1162, fallbacks, holds); !slices.Equal(got, want) {
		t.Fatalf("all fault-free: %+v, want %+v", got, want)
	}
	faulty[nms], faulty[netip.MustParseAddr("127.0.0.50")] = true, true
	want[0].Usable, want[1].Usable = false, false
	if got := Stations(nms, 1162, fallbacks, holds); !slices.Equal(got, want) {
		t.Fatalf("station and fall-back faulty: %+v, want %+v", got, want)
	}
	if got := Stations(netip.Addr{}, 162, nil, holds); len(got) != 0 {
		t.Fatalf("no station set: %+v", got)
	}
	if got := Stations(netip.IPv4Unspecified(), 162, nil, holds); len(got) != 0 {
		t.Fatalf("nmsID 0.0.0.0: %+v", got)
	}
}
