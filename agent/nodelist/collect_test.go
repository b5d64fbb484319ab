package nodelist

import (
	"net/netip"
	"testing"
	"time"

	"github.com/diagagent/diagagent/hiadsd"
)

// history makes a list of the file's 8 nodes go through cycles add and
// remove cycles of printers and windows window changes on its live
// nodes, with clock next, and returns it; with every > 0, the list is
// collected after every that many changes, as every agent acknowledges
// them.
func history(cycles, windows, every int, next func() Stamp) List {
	l := New(nodes(1, 2, 3, 4, 5, 6, 7, 8))
	printer := func(k int) Member {
		return Member{Addr: netip.AddrFrom4([4]byte{10, 1, byte(k >> 8), byte(k)}), Port: 161, TestedOnly: true, Name: "printer", Community: "pr"}
	}
	changes := 0
	ack := func() {
		if changes++; every > 0 && changes%every == 0 {
			l, _ = l.Collect(l.Newest())
		}
	}
	for k := range cycles {
		ack()
		var err error
		if l, err = l.Add(l.NextID(), printer(k), next()); err != nil {
			panic(err)
		}
		if k%50 != 0 { // one in fifty stays
			if l, err = l.Remove(l.Find(printer(k).Addr, 161), next()); err != nil {
				panic(err)
			}
		}
	}
	for k := range windows {
		ack()
		id := k % 8
		now := next().Wall()
		l, _ = l.WithMaintenance(id, now.Add(time.Duration(1+k%90)*time.Minute), now, hiadsd.FaultFree, next())
	}
	return l
}

// liveOnly returns a list holding only what l holds live: its members,
// each added once with the window it has, and its keys.
func liveOnly(l List, next func() Stamp) List {
	var file []Member
	out := New(nil)
	for _, m := range l.Members {
		if m.Removed || !m.Added.IsZero() {
			continue
		}
		file = append(file, m)
	}
	out = New(file)
	for _, m := range l.Members {
		if m.Removed || m.Added.IsZero() {
			continue
		}
		m.Name, m.Community, m.OID = m.Labels.Name, m.Labels.Community, m.Labels.OID
		out, _ = out.Add(out.NextID(), m, next())
	}
	for id, m := range out.Members {
		if w := l.Members[l.IndexOf(m)].Maint; w != nil && !m.Removed {
			out, _ = out.WithMaintenance(id, w.Until, w.Set.Wall(), w.Status, next())
		}
	}
	return out
}

// TestCollectedListIsAboutItsLiveSize: 2,000 add and remove cycles and
// 10,000 window changes, once every agent has them (collected at the
// newest stamp), leave a list at most twice the size of one holding only
// its live entries; before collection it is many times that.
func TestCollectedListIsAboutItsLiveSize(t *testing.T) {
	next := clockAt(1, t0)
	l := history(2000, 10000, 100, next)
	live := liveOnly(l, clockAt(2, t0))
	c, ok := l.Collect(l.Newest())
	if !ok {
		t.Fatal("nothing collected")
	}
	before, after, want := len(l.Marshal()), len(c.Marshal()), len(live.Marshal())
	t.Logf("%d octets and %d ids before the last collection, %d octets and %d ids after; the live entries alone: %d octets, %d ids",
		before, len(l.Members), after, len(c.Members), want, len(live.Members))
	if after > 2*want {
		t.Fatalf("collected list of %d octets, more than twice its live entries' %d", after, want)
	}
	// Ids: the most the list ever held at once, live and not yet collected
	// (100 adds between two collections here), not its history.
	if len(c.Members) > len(live.Members)+100 {
		t.Fatalf("%d ids for %d live entries and 100 adds between collections", len(c.Members), len(live.Members))
	}
	if c.Count() != l.Count() || c.Version != l.Version {
		t.Fatalf("collection changed what the list holds: %d members version %d, was %d, %d", c.Count(), c.Version, l.Count(), l.Version)
	}
	for k, m := range l.Members {
		if !m.Removed && (c.Members[k].Removed || c.Members[k].slot() != m.slot() || !sameWindow(c.Members[k].Maint, m.Maint)) {
			t.Fatalf("id %d: %+v after collection, was %+v", k+1, c.Members[k], m)
		}
	}
	got, err := Unmarshal(c.Marshal())
	if err != nil || got.Hash != c.Hash {
		t.Fatalf("a collected list does not decode: %v", err)
	}
}

// TestIDsAreGivenAgainOnlyOnceCollected: a removed node's id is not the
// next add's until the list is collected; then it is, and the nodes that
// stay keep their ids.
func TestIDsAreGivenAgainOnlyOnceCollected(t *testing.T) {
	next := clockAt(1, t0)
	l := New(nodes(1, 2, 3))
	l, _ = l.Add(3, node(4), next())
	l, _ = l.Add(4, node(5), next())
	l, _ = l.Remove(3, next())
	if l.NextID() != 5 {
		t.Fatalf("next id %d before collection, want 6 (the removed id 4 is not given again)", l.NextID()+1)
	}
	c, _ := l.Collect(l.Newest())
	if c.NextID() != 3 || len(c.Members) != 5 || c.Members[4].Addr != node(5).Addr || c.Members[4].Removed {
		t.Fatalf("after collection: next id %d, %d ids, id 5 %+v", c.NextID()+1, len(c.Members), c.Members[4])
	}
	c, err := c.Add(3, node(6), next())
	if err != nil || c.Members[3].Addr != node(6).Addr {
		t.Fatalf("add at the freed id: %v", err)
	}
	if _, err := c.Add(3, node(7), next()); err == nil {
		t.Fatal("an add at a taken id was taken")
	}
	// An agent that did not see the collection yet, with the removed
	// entry still live (it restarted from an older state), takes it: the
	// entry does not come back, and the new node holds the id.
	merged, err := New(nodes(1, 2, 3)).Merge(c)
	if err != nil {
		t.Fatal(err)
	}
	old, _ := New(nodes(1, 2, 3)).Add(3, node(4), clockAt(1, t0)())
	merged, err = old.Merge(merged)
	if err != nil || merged.Hash != c.Hash {
		t.Fatalf("an older list merged with the collected one: %v, %x against %x", err, merged.Hash, c.Hash)
	}
}

// TestCollectMergesAsAnyChange: a collected list and the list it was
// collected from merge into the collected one, in either order, and
// collecting again at the same stamp changes nothing.
func TestCollectMergesAsAnyChange(t *testing.T) {
	next := clockAt(1, t0)
	l := history(40, 30, 0, next)
	l, _ = l.WithKeys([]uint32{1, 2}, next)
	for k := uint32(3); k < 10; k++ {
		var err error
		if l, err = rotate(l, k, next); err != nil {
			t.Fatal(err)
		}
	}
	c, _ := l.Collect(l.Newest())
	for _, pair := range [][2]List{{l, c}, {c, l}} {
		got, err := pair[0].Merge(pair[1])
		if err != nil || got.Hash != c.Hash || got.Version != l.Version {
			t.Fatalf("merge: %v, %x version %d, want %x version %d", err, got.Hash, got.Version, c.Hash, l.Version)
		}
	}
	if _, again := c.Collect(c.Newest()); again {
		t.Fatal("a collected list collected again at its stamp")
	}
	if len(c.KeySlots) != 2 || c.Keys[0] != 9 { // 2, never removed, and 9, in use
		t.Fatalf("keys after collection: %+v", c.KeySlots)
	}
	// A change made after the collection, at an agent that had not taken
	// it, merges with it.
	later, _ := l.Add(l.NextID(), node(200), next())
	got, err := c.Merge(later)
	if err != nil || got.Find(node(200).Addr, 161) < 0 || got.Count() != l.Count()+1 {
		t.Fatalf("a later add lost in the merge with a collected list: %v", err)
	}
}

// TestKeyRotationsCollected: 500 key rotations, the list collected after
// each once every agent has it, decode everywhere and keep the list's
// size flat; without collection the 128th is refused (TestKeySlotsBound).
func TestKeyRotationsCollected(t *testing.T) {
	next := clockAt(1, t0)
	l, _ := New(nodes(1, 2)).WithKeys([]uint32{1}, func() Stamp { return Stamp{} })
	var first int
	for k := uint32(2); k < 502; k++ {
		var err error
		if l, err = rotate(l, k, next); err != nil {
			t.Fatalf("rotation %d: %v", k-1, err)
		}
		l, _ = l.Collect(l.Newest())
		if k == 2 {
			first = len(l.Marshal())
		}
	}
	got, err := Unmarshal(l.Marshal())
	if err != nil || got.Hash != l.Hash {
		t.Fatalf("after 500 rotations the list does not decode: %v", err)
	}
	if size := len(l.Marshal()); size != first {
		t.Fatalf("%d octets after 500 rotations, %d after one", size, first)
	}
	t.Logf("500 rotations: %d key slots, %d octets, as after one", len(l.KeySlots), first)
}

// TestCollectedWire: a collected list is format 2, pinned entries and all;
// one never collected stays format 1, which agents of 1.0 read.
func TestCollectedWire(t *testing.T) {
	next := clockAt(1, t0)
	l := history(10, 5, 0, next)
	if l.Marshal()[0] != wireFormat {
		t.Fatalf("a list never collected is format %d", l.Marshal()[0])
	}
	c, _ := l.Collect(l.Newest())
	b := c.Marshal()
	if b[0] != wireFormatCollected {
		t.Fatalf("a collected list is format %d", b[0])
	}
	got, err := Unmarshal(b)
	if err != nil || got.Hash != c.Hash || got.Stable != c.Stable || got.Span != c.Span {
		t.Fatalf("round trip: %v", err)
	}
	if err := got.Check(t0.Add(-time.Hour)); err == nil {
		t.Fatal("a collection stamped an hour ahead was taken")
	}
	for n := range len(b) {
		if _, err := Unmarshal(b[:n]); err == nil {
			t.Fatalf("a collected list cut to %d of %d octets was taken", n, len(b))
		}
	}
}
