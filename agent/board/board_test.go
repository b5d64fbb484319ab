package board

import (
	"errors"
	"net/netip"
	"testing"

	"github.com/diagagent/diagagent/mib"
)

// TestBoardWakesEveryWaiter checks that Publish closes the channel every
// waiter holds, and that the next Changed is a fresh one.
func TestBoardWakesEveryWaiter(t *testing.T) {
	var b Board
	if b.Load() == nil {
		t.Fatal("an empty board loads nil")
	}
	a, c := b.Changed(), b.Changed()
	s := &Snapshot{Nodes: []Row{{ID: 1}, {ID: 2}}}
	if err := b.Publish(s); err != nil {
		t.Fatal(err)
	}
	for _, ch := range []<-chan struct{}{a, c} {
		select {
		case <-ch:
		default:
			t.Fatal("a waiter was not woken")
		}
	}
	select {
	case <-b.Changed():
		t.Fatal("the next Changed is already closed")
	default:
	}
	if b.Load() != s {
		t.Fatal("Load does not return what was published")
	}
}

// TestBoardRefusesRowsOutOfOrder checks that a bad snapshot is refused and
// the old one kept.
func TestBoardRefusesRowsOutOfOrder(t *testing.T) {
	var b Board
	good := &Snapshot{Events: []mib.Event{{Seq: 1}, {Seq: 2}}}
	if err := b.Publish(good); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []*Snapshot{nil, {Nodes: []Row{{ID: 2}, {ID: 2}}}, {Nodes: []Row{{ID: 0}}}, {Events: []mib.Event{{Seq: 3}, {Seq: 1}}}} {
		if err := b.Publish(bad); !errors.Is(err, ErrSnapshot) {
			t.Errorf("Publish(%+v) = %v, want ErrSnapshot", bad, err)
		}
	}
	if b.Load() != good {
		t.Fatal("a refused snapshot replaced the good one")
	}
}

// TestStationAddr is the rule nmsID SETs and learned stations follow (issue
// 13, defect 5): unicast hosts and 0.0.0.0 only.
func TestStationAddr(t *testing.T) {
	for a, want := range map[string]bool{
		"192.0.2.9": true, "127.0.0.100": true, "10.1.2.3": true, "0.0.0.0": true,
		"255.255.255.255": false, "224.0.0.1": false, "239.255.255.250": false, "169.254.1.1": false,
		"240.0.0.1": false, "0.1.2.3": false, "2001:db8::1": false,
	} {
		if got := StationAddr(netip.MustParseAddr(a)); got != want {
			t.Errorf("StationAddr(%s) = %v, want %v", a, got, want)
		}
	}
}
