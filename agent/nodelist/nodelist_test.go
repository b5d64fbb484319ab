package nodelist

import (
	"errors"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/diagagent/diagagent/hiadsd"
)

func nodes(last ...int) []Member {
	var out []Member
	for _, b := range last {
		out = append(out, Member{Addr: netip.AddrFrom4([4]byte{10, 0, 0, byte(b)}), Port: 161})
	}
	return out
}

// TestChanges: ids only grow, a removed id is never given again, every
// change takes the next version and a new fingerprint, and a file is
// applied by address, not by position.
func TestChanges(t *testing.T) {
	l := New(nodes(1, 2, 3))
	if l.Version != 0 || l.Count() != 3 {
		t.Fatalf("FromConfig: version %d, %d members", l.Version, l.Count())
	}
	if _, err := l.Add(5, Member{Addr: netip.MustParseAddr("10.0.0.4"), Port: 161}); !errors.Is(err, ErrBadIndex) {
		t.Errorf("add at a gap: %v, want ErrBadIndex", err)
	}
	if _, err := l.Add(3, Member{Addr: netip.MustParseAddr("10.0.0.2"), Port: 161}); !errors.Is(err, ErrExists) {
		t.Errorf("add a member twice: %v, want ErrExists", err)
	}
	added, err := l.Add(3, Member{Addr: netip.MustParseAddr("10.0.0.4"), Port: 161})
	if err != nil || added.Version != 1 || added.Hash == l.Hash || added.Count() != 4 {
		t.Fatalf("add: %+v, %v", added, err)
	}
	if added.Hash != New(nodes(1, 2, 3, 4)).Hash {
		t.Error("a list with a node added differs from the file that lists it")
	}
	removed, err := added.Remove(1)
	if err != nil || removed.Version != 2 || removed.Find(netip.MustParseAddr("10.0.0.2"), 161) >= 0 || len(removed.Members) != 4 {
		t.Fatalf("remove: %+v, %v", removed, err)
	}
	if _, err := removed.Remove(1); !errors.Is(err, ErrNoMember) {
		t.Errorf("remove twice: %v, want ErrNoMember", err)
	}
	// A file with node 1 gone, node 5 inserted first and 4 kept: by address.
	applied, changed := removed.Apply(nodes(5, 3, 4))
	if !changed || applied.Version != 3 {
		t.Fatalf("Apply: changed %v, version %d", changed, applied.Version)
	}
	if got := applied.Find(netip.MustParseAddr("10.0.0.3"), 161); got != 2 {
		t.Errorf("10.0.0.3 moved to id %d, want it to keep 2", got)
	}
	if got := applied.Find(netip.MustParseAddr("10.0.0.5"), 161); got != 4 {
		t.Errorf("10.0.0.5 got id %d, want the next id 4", got)
	}
	if !applied.Members[0].Removed || !applied.Members[1].Removed {
		t.Error("10.0.0.1 and 10.0.0.2 are not removed")
	}
	add, rem := applied.Diff(removed)
	if !slices.Equal(add, []int{4}) || !slices.Equal(rem, []int{0}) {
		t.Errorf("Diff = %v, %v; want [4], [0]", add, rem)
	}
	if same, changed := applied.Apply(nodes(3, 4, 5)); changed || same.Version != 3 {
		t.Errorf("the same members in another order: changed %v, version %d", changed, same.Version)
	}
}

// TestWithFile: the file's names, communities and OIDs go to the members it
// lists (by host name when it gives one), and no others.
func TestWithFile(t *testing.T) {
	l := New(nodes(1, 2, 3))
	l.Members[2].Host = "ws-3.lan"
	file := []Member{{Addr: netip.MustParseAddr("10.0.0.1"), Port: 161, Name: "alpha", Community: "c1"},
		{Host: "ws-3.lan", Addr: netip.MustParseAddr("10.0.0.9"), Port: 161, Name: "gamma", OID: ".1.3.6.1.2.1.1.5.0"}}
	got := l.WithFile(file)
	if got.Members[0].Name != "alpha" || got.Members[0].Community != "c1" || got.Members[1].Name != "" ||
		got.Members[2].Name != "gamma" || got.Members[2].OID != ".1.3.6.1.2.1.1.5.0" {
		t.Errorf("WithFile: %+v", got.Members)
	}
	if l.Members[0].Name != "" || got.Hash != l.Hash {
		t.Error("WithFile changed the list it was given, or its fingerprint")
	}
}

// TestKeys: a list's keys are part of its fingerprint (a list without keys
// keeps the fingerprint of its nodes alone), a change of them takes the next
// version, and the other changes carry them over.
func TestKeys(t *testing.T) {
	members := []Member{{Addr: netip.MustParseAddr("192.0.2.1"), Port: 161}, {Addr: netip.MustParseAddr("192.0.2.2"), Port: 161}}
	plain := New(members)
	if got := SortKeys(9, []uint32{9, 3, 7, 3}); !slices.Equal(got, []uint32{9, 3, 7}) {
		t.Fatalf("SortKeys(9, [9 3 7 3]) = %v, want [9 3 7]", got)
	}
	l, changed := plain.WithKeys([]uint32{9})
	if !changed || l.Version != 1 || l.Hash == plain.Hash || !slices.Equal(l.Keys, []uint32{9}) {
		t.Fatalf("WithKeys([9]) = version %d, keys %v, changed %v; want version 1 and a new fingerprint", l.Version, l.Keys, changed)
	}
	if same, changed := l.WithKeys([]uint32{9}); changed || same.Version != 1 {
		t.Errorf("WithKeys of the keys held changed the list (version %d)", same.Version)
	}
	used, _ := l.WithKeys(SortKeys(7, []uint32{9, 7}))
	installed, _ := l.WithKeys(SortKeys(9, []uint32{9, 7}))
	if used.Hash == installed.Hash {
		t.Error("the key in use is no part of the fingerprint")
	}
	added, err := used.Add(2, Member{Addr: netip.MustParseAddr("192.0.2.3"), Port: 161})
	if err != nil || !slices.Equal(added.Keys, used.Keys) {
		t.Fatalf("Add lost the keys: %v, %v", added.Keys, err)
	}
	removed, err := added.Remove(2)
	if err != nil || !slices.Equal(removed.Keys, used.Keys) {
		t.Fatalf("Remove lost the keys: %v, %v", removed.Keys, err)
	}
	applied, changed := removed.Apply(members[:1])
	if !changed || !slices.Equal(applied.Keys, used.Keys) {
		t.Fatalf("Apply lost the keys: %v", applied.Keys)
	}
	back := applied
	back.Keys = nil
	back.Seal()
	sealed := applied
	sealed.Seal()
	if sealed.Hash != applied.Hash || back.Hash == applied.Hash {
		t.Error("Seal does not cover the keys")
	}
}

// TestMaintenance: a window is a change of the list (next version, new
// fingerprint), keeps the status it began with when moved, ends by a time
// at or before now, and is refused on a removed id or beyond MaxWindow; a
// list without windows keeps the fingerprint it had before they existed.
func TestMaintenance(t *testing.T) {
	now := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	l := New(nodes(1, 2, 3))
	if l.Hash != New(nodes(1, 2, 3)).NodesOnly().Hash {
		t.Fatal("a list without windows changed fingerprint")
	}
	open, err := l.WithMaintenance(1, now.Add(time.Hour), now, hiadsd.FaultFree)
	if err != nil || open.Version != 1 || open.Hash == l.Hash || !open.Members[1].Maint.Active(now) || open.Members[1].Maint.Status != hiadsd.FaultFree {
		t.Fatalf("open: %+v, %v", open.Members[1].Maint, err)
	}
	if open.NodesOnly().Hash != l.Hash {
		t.Error("NodesOnly keeps the window in the fingerprint")
	}
	if l.Members[1].Maint != nil {
		t.Error("WithMaintenance changed the list it was called on")
	}
	moved, err := open.WithMaintenance(1, now.Add(2*time.Hour), now.Add(time.Minute), hiadsd.Faulty)
	if err != nil || moved.Members[1].Maint.Status != hiadsd.FaultFree || !moved.Members[1].Maint.Until.Equal(now.Add(2*time.Hour)) {
		t.Errorf("moved: %+v, %v; want the status it began with", moved.Members[1].Maint, err)
	}
	ended, err := moved.WithMaintenance(1, time.Time{}, now.Add(2*time.Minute), hiadsd.Faulty)
	if err != nil || ended.Version != 3 || ended.Members[1].Maint.Active(now.Add(2*time.Minute)) || ended.Members[1].Maint.Status != hiadsd.FaultFree {
		t.Errorf("ended: %+v, %v", ended.Members[1].Maint, err)
	}
	if again, err := ended.WithMaintenance(1, time.Time{}, now.Add(3*time.Minute), hiadsd.Faulty); err != nil || again.Version != ended.Version {
		t.Errorf("ending a closed window: version %d, %v; want no change", again.Version, err)
	}
	if _, err := l.WithMaintenance(1, now.Add(MaxWindow+time.Second), now, hiadsd.FaultFree); !errors.Is(err, ErrTooLong) {
		t.Errorf("beyond MaxWindow: %v", err)
	}
	rm, _ := l.Remove(2)
	if _, err := rm.WithMaintenance(2, now.Add(time.Hour), now, hiadsd.FaultFree); !errors.Is(err, ErrNoMember) {
		t.Errorf("removed id: %v", err)
	}
	if _, err := l.WithMaintenance(7, now.Add(time.Hour), now, hiadsd.FaultFree); !errors.Is(err, ErrNoMember) {
		t.Errorf("id past the list: %v", err)
	}
	var w *Window
	if w.Active(now) {
		t.Error("a nil window is open")
	}
}
