package nodelist

import (
	"errors"
	"net/netip"
	"testing"
	"time"
)

// bigList returns a list of n file nodes with a printer added and one
// window set, as an agent that made a few changes holds it.
func bigList(n int, next func() Stamp) List {
	var file []Member
	for k := range n {
		file = append(file, Member{Addr: netip.AddrFrom4([4]byte{10, 0, byte(k >> 8), byte(k)}), Port: 161})
	}
	l := New(file)
	l, _ = l.Add(l.NextID(), Member{Addr: netip.MustParseAddr("10.9.0.1"), Port: 161, TestedOnly: true, Name: "printer"}, next())
	l, _ = l.WithMaintenance(3, t0.Add(time.Hour), t0, 1, next())
	return l
}

// TestDeltaCostsAboutTheChange: at 1,024 nodes, one add read as a delta
// costs about the add's own encoding, not the list's.
func TestDeltaCostsAboutTheChange(t *testing.T) {
	a, b := clockAt(1, t0), clockAt(2, t0.Add(time.Second))
	held := bigList(1024, a)
	peer, _ := held.Add(held.NextID(), Member{Addr: netip.MustParseAddr("10.9.0.2"), Port: 161, TestedOnly: true, Name: "printer 2"}, b())
	d, err := peer.Delta(held.Summary())
	if err != nil {
		t.Fatal(err)
	}
	got, err := held.ApplyDelta(d, t0.Add(time.Hour))
	if err != nil || got.Hash != peer.Hash {
		t.Fatalf("the delta does not give the peer's list: %v", err)
	}
	one := len(appendSlot(nil, peer.Members[len(peer.Members)-1]))
	t.Logf("list %d octets; the add %d octets; delta %d octets; summary %d octets", len(peer.Marshal()), one, len(d), len(held.Summary()))
	if len(d) > one+80 {
		t.Fatalf("a delta of %d octets for an add of %d", len(d), one)
	}
}

// TestDeltaRefusesWhatIsNotItsList: a delta cut short, mixed from two
// lists, of another base, or whose entries break the list's rules is
// refused, and the list held stays as it was.
func TestDeltaRefusesWhatIsNotItsList(t *testing.T) {
	a, b := clockAt(1, t0), clockAt(2, t0.Add(time.Second))
	held := bigList(8, a)
	peer, _ := held.Add(held.NextID(), node(200), b())
	d, _ := peer.Delta(held.Summary())
	for n := range len(d) {
		if _, err := held.ApplyDelta(d[:n], t0); err == nil {
			t.Fatalf("a delta cut to %d of %d octets was taken", n, len(d))
		}
	}
	mixed := append([]byte(nil), d...)
	mixed[20] ^= 1
	if _, err := held.ApplyDelta(mixed, t0); err == nil {
		t.Fatal("a delta with a flipped bit was taken")
	}
	other := bigList(9, a)
	if _, err := other.ApplyDelta(d, t0); !errors.Is(err, ErrOtherBase) {
		t.Fatalf("a delta of another base: %v", err)
	}
	if _, err := held.ApplyDelta(d, t0.Add(-time.Hour)); !errors.Is(err, ErrAhead) {
		t.Fatalf("a delta stamped an hour ahead: %v", err)
	}
	if _, err := peer.Delta([]byte{1, 2, 3}); err == nil {
		t.Fatal("a malformed summary was taken")
	}
	// A peer collected past the summary serves its whole list.
	c, _ := peer.Collect(peer.Newest())
	whole, _ := c.Delta(held.Summary())
	if IsDelta(whole) {
		t.Fatal("a peer collected past the summary served a delta")
	}
}

// FuzzApplyDelta: no delta panics, and one taken holds every fact it had.
func FuzzApplyDelta(f *testing.F) {
	a, b := clockAt(1, t0), clockAt(2, t0.Add(time.Second))
	held := bigList(4, a)
	peer, _ := held.Add(held.NextID(), node(200), b())
	peer, _ = peer.Remove(2, b())
	d, _ := peer.Delta(held.Summary())
	f.Add(d)
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := held.ApplyDelta(in, t0.Add(time.Hour))
		if err != nil {
			return
		}
		again, err := Unmarshal(got.Marshal())
		if err != nil || again.Hash != got.Hash {
			t.Fatalf("a list a delta gave does not decode: %v", err)
		}
	})
}
