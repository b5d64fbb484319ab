package nodelist

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
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

func node(last int) Member { return nodes(last)[0] }

// clockAt returns stamps of origin, one millisecond apart from t0 on.
func clockAt(origin uint32, t0 time.Time) func() Stamp {
	var c Clock
	now := t0
	return func() Stamp {
		now = now.Add(time.Millisecond)
		return Stamp{Time: c.Next(now), Origin: origin}
	}
}

var t0 = time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)

// TestChanges: ids only grow, a removed id is never given again, every
// change is a fact that moves the version on by one and changes the
// fingerprint, and a file is applied by address, not by position.
func TestChanges(t *testing.T) {
	next := clockAt(1, t0)
	l := New(nodes(1, 2, 3))
	if l.Version != 0 || l.Count() != 3 || l.Changes() != 0 {
		t.Fatalf("New: version %d, %d members", l.Version, l.Count())
	}
	if _, err := l.Add(5, node(4), next()); !errors.Is(err, ErrBadIndex) {
		t.Errorf("add at a gap: %v, want ErrBadIndex", err)
	}
	if _, err := l.Add(2, node(4), next()); !errors.Is(err, ErrTaken) {
		t.Errorf("add at an id given: %v, want ErrTaken", err)
	}
	if _, err := l.Add(3, node(2), next()); !errors.Is(err, ErrExists) {
		t.Errorf("add a member twice: %v, want ErrExists", err)
	}
	added, err := l.Add(3, node(4), next())
	if err != nil || added.Version != 1 || added.Hash == l.Hash || added.Count() != 4 {
		t.Fatalf("add: %+v, %v", added, err)
	}
	if added.NodesOnly().Hash != New(nodes(1, 2, 3, 4)).Hash {
		t.Error("a list with a node added differs, nodes alone, from the file that lists it")
	}
	removed, err := added.Remove(1, next())
	if err != nil || removed.Version != 2 || removed.Find(netip.MustParseAddr("10.0.0.2"), 161) >= 0 || len(removed.Members) != 4 {
		t.Fatalf("remove: %+v, %v", removed, err)
	}
	if _, err := removed.Remove(1, next()); !errors.Is(err, ErrNoMember) {
		t.Errorf("remove twice: %v, want ErrNoMember", err)
	}
	// A file with node 1 gone, node 5 inserted first and 4 kept: by address.
	applied, changed := removed.Apply(nodes(5, 3, 4), next)
	if !changed || applied.Version != 4 {
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
	if same, changed := applied.Apply(nodes(3, 4, 5), next); changed || same.Version != applied.Version {
		t.Errorf("the same members in another order: changed %v, version %d", changed, same.Version)
	}
	back, err := applied.Add(5, node(2), next())
	if err != nil || back.Find(netip.MustParseAddr("10.0.0.2"), 161) != 5 {
		t.Errorf("a removed address put back: %v, id %d; want a new id 5", err, back.Find(netip.MustParseAddr("10.0.0.2"), 161))
	}
}

// TestWithFile: the file's names, communities and OIDs go to the members it
// lists (by host name when it gives one), the others keep the labels they
// were added with, and none of it moves the fingerprint.
func TestWithFile(t *testing.T) {
	l := New(nodes(1, 2, 3))
	l.Members[2].Host = "ws-3.lan"
	l.Seal()
	l, err := l.Add(3, Member{Addr: netip.MustParseAddr("10.0.0.4"), Port: 161, Name: "delta", Community: "c4"}, clockAt(1, t0)())
	if err != nil {
		t.Fatal(err)
	}
	file := []Member{{Addr: netip.MustParseAddr("10.0.0.1"), Port: 161, Name: "alpha", Community: "c1"},
		{Host: "ws-3.lan", Addr: netip.MustParseAddr("10.0.0.9"), Port: 161, Name: "gamma", OID: ".1.3.6.1.2.1.1.5.0"}}
	got := l.WithFile(file)
	if got.Members[0].Name != "alpha" || got.Members[0].Community != "c1" || got.Members[1].Name != "" ||
		got.Members[2].Name != "gamma" || got.Members[2].OID != ".1.3.6.1.2.1.1.5.0" || got.Members[3].Name != "delta" || got.Members[3].Community != "c4" {
		t.Errorf("WithFile: %+v", got.Members)
	}
	sealed := got
	sealed.Seal()
	if l.Members[0].Name != "" || got.Hash != l.Hash || sealed.Hash != l.Hash {
		t.Error("WithFile changed the list it was given, or its fingerprint")
	}
}

// TestKeys: a list's keys are part of its fingerprint, each change of them
// is a fact, the key in use cannot be removed, and the other changes carry
// the keys over.
func TestKeys(t *testing.T) {
	next := clockAt(1, t0)
	members := []Member{node(1), node(2)}
	plain := New(members)
	if got := SortKeys(9, []uint32{9, 3, 7, 3}); !slices.Equal(got, []uint32{9, 3, 7}) {
		t.Fatalf("SortKeys(9, [9 3 7 3]) = %v, want [9 3 7]", got)
	}
	if _, err := plain.WithKey(KeyInstall, 9, next()); !errors.Is(err, ErrKeyChange) {
		t.Errorf("a key change of a list without keys: %v", err)
	}
	l, changed := plain.WithKeys([]uint32{9}, next)
	if !changed || l.Hash == plain.Hash || !slices.Equal(l.Keys, []uint32{9}) {
		t.Fatalf("WithKeys([9]) = keys %v, changed %v; want a new fingerprint", l.Keys, changed)
	}
	if same, changed := l.WithKeys([]uint32{9}, next); changed || same.Version != l.Version {
		t.Errorf("WithKeys of the keys held changed the list (version %d)", same.Version)
	}
	installed, err := l.WithKey(KeyInstall, 7, next())
	if err != nil || !slices.Equal(installed.Keys, []uint32{9, 7}) || installed.Version != l.Version+1 {
		t.Fatalf("install 7: %v, %v", installed.Keys, err)
	}
	used, err := installed.WithKey(KeyUse, 7, next())
	if err != nil || !slices.Equal(used.Keys, []uint32{7, 9}) || used.Hash == installed.Hash {
		t.Fatalf("use 7: %v, %v", used.Keys, err)
	}
	if _, err := used.WithKey(KeyRemove, 7, next()); !errors.Is(err, ErrKeyChange) {
		t.Errorf("removing the key in use: %v", err)
	}
	if _, err := used.WithKey(KeyInstall, 9, next()); !errors.Is(err, ErrKeyChange) {
		t.Errorf("installing a key held: %v", err)
	}
	gone, err := used.WithKey(KeyRemove, 9, next())
	if err != nil || !slices.Equal(gone.Keys, []uint32{7}) {
		t.Fatalf("remove 9: %v, %v", gone.Keys, err)
	}
	added, err := gone.Add(2, node(3), next())
	if err != nil || !slices.Equal(added.Keys, gone.Keys) {
		t.Fatalf("Add lost the keys: %v, %v", added.Keys, err)
	}
	applied, changed := added.Apply(members[:1], next)
	if !changed || !slices.Equal(applied.Keys, gone.Keys) {
		t.Fatalf("Apply lost the keys: %v", applied.Keys)
	}
	rekeyed, changed := applied.WithKeys([]uint32{3, 7}, next)
	if !changed || !slices.Equal(rekeyed.Keys, []uint32{3, 7}) {
		t.Errorf("WithKeys([3 7]) = %v", rekeyed.Keys)
	}
}

// TestMaintenance: a window is a fact (one more version, new fingerprint),
// keeps the status it began with when moved, remembers the window it
// replaced, ends by a time at or before now, and is refused on a removed id
// or beyond MaxWindow.
func TestMaintenance(t *testing.T) {
	next := clockAt(1, t0)
	now := t0
	l := New(nodes(1, 2, 3))
	open, err := l.WithMaintenance(1, now.Add(time.Hour), now, hiadsd.FaultFree, next())
	if err != nil || open.Version != 1 || open.Hash == l.Hash || !open.Members[1].Maint.Active(now) || open.Members[1].Maint.Status != hiadsd.FaultFree {
		t.Fatalf("open: %+v, %v", open.Members[1].Maint, err)
	}
	if open.NodesOnly().Hash != l.Hash {
		t.Error("NodesOnly keeps the window in the fingerprint")
	}
	if l.Members[1].Maint != nil {
		t.Error("WithMaintenance changed the list it was called on")
	}
	moved, err := open.WithMaintenance(1, now.Add(2*time.Hour), now.Add(time.Minute), hiadsd.Faulty, next())
	if err != nil || moved.Members[1].Maint.Status != hiadsd.FaultFree || !moved.Members[1].Maint.Until.Equal(now.Add(2*time.Hour)) ||
		moved.Members[1].Maint.Prev != open.Members[1].Maint.Set || moved.Version != 1 {
		t.Errorf("moved: %+v, version %d, %v; want the status it began with, the window it replaced, one fact", moved.Members[1].Maint, moved.Version, err)
	}
	ended, err := moved.WithMaintenance(1, time.Time{}, now.Add(2*time.Minute), hiadsd.Faulty, next())
	if err != nil || ended.Members[1].Maint.Active(now.Add(2*time.Minute)) || ended.Members[1].Maint.Status != hiadsd.FaultFree {
		t.Errorf("ended: %+v, %v", ended.Members[1].Maint, err)
	}
	// Ended again where it is closed: still a change, which wins over a
	// window set at once elsewhere that this agent has not learned yet.
	again, err := ended.WithMaintenance(1, time.Time{}, now.Add(3*time.Minute), hiadsd.Faulty, next())
	if err != nil || again.Hash == ended.Hash || again.Members[1].Maint.Prev != ended.Members[1].Maint.Set || again.Members[1].Maint.Active(now.Add(3*time.Minute)) {
		t.Errorf("ending a closed window: %+v, %v; want an end stamped over the one before", again.Members[1].Maint, err)
	}
	elsewhere, _ := ended.WithMaintenance(1, now.Add(5*time.Hour), now.Add(2*time.Minute), hiadsd.FaultFree, Stamp{Time: again.Members[1].Maint.Set.Time - 1, Origin: 9})
	if both, _ := again.Merge(elsewhere); both.Members[1].Maint.Active(now.Add(3 * time.Minute)) {
		t.Error("an end made after a window set at once elsewhere, which it did not know, lost to it")
	}
	if _, err := l.WithMaintenance(1, now.Add(MaxWindow+time.Second), now, hiadsd.FaultFree, next()); !errors.Is(err, ErrTooLong) {
		t.Errorf("beyond MaxWindow: %v", err)
	}
	rm, _ := l.Remove(2, next())
	if _, err := rm.WithMaintenance(2, now.Add(time.Hour), now, hiadsd.FaultFree, next()); !errors.Is(err, ErrNoMember) {
		t.Errorf("removed id: %v", err)
	}
	if _, err := l.WithMaintenance(7, now.Add(time.Hour), now, hiadsd.FaultFree, next()); !errors.Is(err, ErrNoMember) {
		t.Errorf("id past the list: %v", err)
	}
	var w *Window
	if w.Active(now) {
		t.Error("a nil window is open")
	}
}

// olderFingerprint is the fingerprint an agent of the older format gave a
// list (its members, keys and windows, no stamps).
func olderFingerprint(members []Member, keys []uint32) [8]byte {
	h := sha256.New()
	for _, m := range members {
		id := m.Host
		if id == "" {
			id = m.Addr.String()
		}
		if m.Deleted {
			fmt.Fprintf(h, "%s|%d|removed\n", id, m.Port)
			continue
		}
		fmt.Fprintf(h, "%s|%d|%t\n", id, m.Port, m.TestedOnly)
	}
	for _, k := range keys {
		fmt.Fprintf(h, "key|%08x\n", k)
	}
	for id, m := range members {
		if m.Window != nil && !m.Deleted {
			fmt.Fprintf(h, "maint|%d|%d|%d\n", id+1, m.Window.Until.Unix(), m.Window.Status)
		}
	}
	var out [8]byte
	copy(out[:], h.Sum(nil))
	return out
}

// TestMigrate: a list as an agent of the older format kept it in its state
// file (JSON: removed ids, windows, keys by index) becomes this format's with
// the same fingerprint and version, so the two formats keep agreeing.
func TestMigrate(t *testing.T) {
	older := `{"version":12,"hash":[0,0,0,0,0,0,0,0],"members":[` +
		`{"addr":"10.0.0.1","port":161},{"addr":"10.0.0.2","port":161,"removed":true},` +
		`{"host":"ws-3.lan","addr":"10.0.0.3","port":161,"maint":{"until":"2026-11-27T12:00:00Z","status":3}},` +
		`{"addr":"10.0.0.4","port":1161,"tested_only":true}],"keys":[7,3,9]}`
	var l List
	if err := json.Unmarshal([]byte(older), &l); err != nil {
		t.Fatal(err)
	}
	want := olderFingerprint(l.Members, l.Keys)
	got := Migrate(l)
	if got.Hash != want || got.Version != 12 || got.Changes() != 0 || !slices.Equal(got.Keys, []uint32{7, 3, 9}) {
		t.Fatalf("migrated: fingerprint %x version %d keys %v; want %x, 12, [7 3 9]", got.Hash, got.Version, got.Keys, want)
	}
	if !got.Members[1].Removed || got.Members[2].Maint == nil || got.Members[2].Maint.Status != hiadsd.Partial {
		t.Errorf("migrated members: %+v", got.Members)
	}
	if f := New(nodes(1, 2)); f.Hash != olderFingerprint(nodes(1, 2), nil) {
		t.Error("a file's list has another fingerprint than the older format gave it")
	}
	changed, err := got.Remove(0, clockAt(1, t0)())
	if err != nil || changed.Version != 13 {
		t.Errorf("a change of a migrated list: version %d, %v; want 13", changed.Version, err)
	}
	// An agent of the older format takes that change as it takes lists
	// (the rows, the version and the fingerprint, no stamps); upgraded in
	// turn, its list migrates to version 13 with no stamped fact, and it
	// takes the others' whole.
	taken := changed.NodesOnly()
	taken.Keys, taken.Version = changed.Keys, 13
	for k := range taken.Members {
		taken.Members[k].Window = changed.Members[k].Maint
	}
	upgraded := Migrate(taken)
	if _, err := upgraded.Merge(changed); !errors.Is(err, ErrOtherBase) || !upgraded.Adopts(changed) || changed.Adopts(upgraded) {
		t.Errorf("an agent upgraded after taking an upgraded agent's change: merge %v, adopts %v", err, upgraded.Adopts(changed))
	}
}

// TestConcurrentChanges: the two findings of issue 41, as the list merges
// them. Windows on two nodes set at once at two agents are both kept;
// two nodes added at once at two agents under the same id get two ids, the
// one stamped later moving; the same address added at once is one node.
func TestConcurrentChanges(t *testing.T) {
	a, b := clockAt(1, t0), clockAt(2, t0)
	base := New(nodes(1, 2, 3, 4, 5, 6, 7, 8))
	until := t0.Add(10 * time.Minute)
	w3, _ := base.WithMaintenance(2, until, t0, hiadsd.FaultFree, a())
	w5, _ := base.WithMaintenance(4, until, t0, hiadsd.FaultFree, b())
	both, err := w3.Merge(w5)
	if err != nil || !both.Members[2].Maint.Active(t0) || !both.Members[4].Maint.Active(t0) {
		t.Fatalf("two windows at once: %v; windows %v %v", err, both.Members[2].Maint, both.Members[4].Maint)
	}
	if other, _ := w5.Merge(w3); other.Hash != both.Hash {
		t.Error("the merge depends on its order")
	}
	n9, _ := base.Add(8, node(9), a())
	n10, _ := base.Add(8, node(10), b())
	two, err := n10.Merge(n9)
	if err != nil {
		t.Fatal(err)
	}
	i9, i10 := two.Find(node(9).Addr, 161), two.Find(node(10).Addr, 161)
	if i9 != 8 || i10 != 9 || two.Count() != 10 {
		t.Errorf("two nodes added at once as id 9: ids %d and %d, %d members; want 9 and 10, 10", i9+1, i10+1, two.Count())
	}
	if got := two.IDOf(n10, 8); got != 9 {
		t.Errorf("IDOf the moved entry = %d, want 9", got)
	}
	if reset := two.Reset(n10); !slices.Equal(reset, []int{8}) {
		t.Errorf("Reset = %v, want [8]: id 9 names another node at the agent whose add moved", reset)
	}
	same9, _ := base.Add(8, node(9), b())
	one, err := n9.Merge(same9)
	if err != nil || one.Count() != 9 || one.Find(node(9).Addr, 161) != 8 {
		t.Errorf("the same address added at once: %d members, at %d, %v; want one node, id 9", one.Count(), one.Find(node(9).Addr, 161)+1, err)
	}
	other := New(nodes(1, 2, 3, 4, 5, 6, 7, 9))
	if _, err := base.Merge(other); !errors.Is(err, ErrOtherBase) {
		t.Errorf("two files merged: %v", err)
	}
	if !other.Adopts(n9) || n9.Adopts(other) || other.Adopts(base) {
		t.Error("Adopts: a file's list takes a changed one of another base, and only that")
	}
}

// TestWire: Marshal and Unmarshal keep every fact, and a list whose facts do
// not give the fingerprint it was sent with is refused.
func TestWire(t *testing.T) {
	a := clockAt(1, t0)
	l := New(nodes(1, 2, 3))
	l.Members[1].Host = "ws-2.lan"
	l, _ = l.WithKeys([]uint32{5, 6}, a)
	l, _ = l.Add(3, Member{Addr: netip.MustParseAddr("2001:db8::4"), Port: 1161, TestedOnly: true, Name: "printer", Community: "pr"}, a())
	l, _ = l.Remove(0, a())
	l, _ = l.WithMaintenance(2, t0.Add(time.Hour), t0, hiadsd.Partial, a())
	l, _ = l.WithKey(KeyRemove, 6, a())
	b := l.Marshal()
	got, err := Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if got.Hash != l.Hash || got.Version != l.Version || got.Members[3].Labels.Community != "pr" || got.Members[1].Host != "ws-2.lan" {
		t.Errorf("round trip: %+v", got)
	}
	if err := got.Check(t0); err != nil {
		t.Errorf("Check of a correct list: %v", err)
	}
	if err := got.Check(t0.Add(-time.Hour)); !errors.Is(err, ErrBadList) {
		t.Errorf("Check of stamps an hour ahead: %v", err)
	}
	bad := append([]byte(nil), b...)
	bad[len(bad)-30] ^= 1
	if _, err := Unmarshal(bad); err == nil {
		t.Error("a flipped bit was taken")
	}
	for n := range len(b) {
		if _, err := Unmarshal(b[:n]); err == nil {
			t.Fatalf("a list cut to %d of %d octets was taken", n, len(b))
		}
	}
}

// FuzzUnmarshal: no input panics, and a list that decodes encodes back to
// the same facts.
func FuzzUnmarshal(f *testing.F) {
	a := clockAt(1, t0)
	l := New(nodes(1, 2))
	l, _ = l.WithKeys([]uint32{5}, a)
	l, _ = l.Add(2, node(3), a())
	l, _ = l.WithMaintenance(1, t0.Add(time.Hour), t0, hiadsd.Partial, a())
	f.Add(l.Marshal())
	f.Add(New(nodes(1)).Marshal())
	l, _ = l.Remove(2, a())
	l, _ = l.Add(3, node(4), a())
	c, _ := l.Collect(l.Newest())
	f.Add(c.Marshal())
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := Unmarshal(b)
		if err != nil {
			return
		}
		again, err := Unmarshal(got.Marshal())
		if err != nil || again.Hash != got.Hash {
			t.Fatalf("a decoded list does not decode again: %v", err)
		}
	})
}

// TestLost: the agent whose change lost learns it from the merge, once,
// and a change made over another knowing it is no loss.
func TestLost(t *testing.T) {
	a, b := clockAt(1, t0), clockAt(2, t0.Add(time.Second))
	base := New(nodes(1, 2, 3))
	base, _ = base.WithKeys([]uint32{7, 8}, func() Stamp { return Stamp{} })
	mine, _ := base.WithMaintenance(1, t0.Add(time.Hour), t0, hiadsd.FaultFree, a())
	theirs, _ := base.WithMaintenance(1, t0.Add(2*time.Hour), t0, hiadsd.FaultFree, b())
	merged, _ := mine.Merge(theirs)
	lost := Lost(mine, merged, 1)
	if len(lost) != 1 || lost[0].Kind != "window" || lost[0].Node != 1 || lost[0].Winner != 2 {
		t.Fatalf("a window replaced at once: %+v", lost)
	}
	if l := Lost(theirs, merged, 2); len(l) != 0 {
		t.Errorf("the winner reports a loss: %+v", l)
	}
	over, _ := merged.WithMaintenance(1, t0.Add(3*time.Hour), t0, hiadsd.FaultFree, b())
	if l := Lost(merged, over, 1); len(l) != 0 {
		t.Errorf("a window set over the one held is a loss: %+v", l)
	}
	used, _ := base.WithKey(KeyUse, 8, a())
	unkey, _ := base.WithKey(KeyRemove, 8, b())
	both, _ := unkey.Merge(used)
	if l := Lost(unkey, both, 2); len(l) != 1 || l[0].Kind != "key removal" || !slices.Equal(both.Keys, []uint32{8, 7}) {
		t.Errorf("a removal undone by a use at once: %+v, keys %v", l, both.Keys)
	}
	n4, _ := base.Add(3, node(4), a())
	n5, _ := base.Add(3, node(5), b())
	two, _ := n5.Merge(n4)
	if l := Lost(n5, two, 2); len(l) != 1 || l[0].Kind != "id" || l[0].Node != 4 || l[0].Winner != 1 {
		t.Errorf("a node moved to the next id: %+v", l)
	}
	if l := Lost(n4, two, 1); len(l) != 0 {
		t.Errorf("the node that kept its id reports a loss: %+v", l)
	}
}

// olderTake is a list as an agent of the older format holds it after it
// took l (the rows, the version and the fingerprint; no stamps).
func olderTake(l List) List {
	out := List{Version: l.Version, Hash: l.Hash, Keys: l.Keys}
	for _, m := range l.Members {
		out.Members = append(out.Members, Member{Host: m.Host, Addr: m.Addr, Port: m.Port, TestedOnly: m.TestedOnly, Deleted: m.Removed, Window: m.Maint})
	}
	return out
}

// TestRebase: during a rolling upgrade, an upgraded agent sets a window
// on node 2; the older agents take it, then one of them sets a window on
// node 4, removes node 3 and adds a node. Upgraded, such an agent rebases
// its list onto the upgraded agents' (its changes made again, stamped), the
// others merge it, and an agent migrated from the same list then takes the
// result whole: every agent ends on one list with every change.
func TestRebase(t *testing.T) {
	up, old := clockAt(1, t0), clockAt(2, t0.Add(time.Minute))
	file := New(nodes(1, 2, 3, 4))
	b, _ := file.WithMaintenance(1, t0.Add(time.Hour), t0, hiadsd.FaultFree, up())
	o := olderTake(b)
	o.Version = 4 // three changes made at the older agent
	o.Members[3].Window = &Window{Until: t0.Add(2 * time.Hour), Status: hiadsd.FaultFree}
	o.Members[2].Deleted = true
	o.Members = append(o.Members, node(5))
	a := Migrate(o)
	if _, err := a.Merge(b); !errors.Is(err, ErrOtherBase) || a.Adopts(b) || !a.Rebases(b) {
		t.Fatalf("migrated ahead of the upgraded list: merge %v, adopts %v, rebases %v", err, a.Adopts(b), a.Rebases(b))
	}
	r, changed := a.Rebase(b, old)
	if !changed || !SameBase(r, b) || r.Version != 4 || !r.Members[2].Removed || r.Find(node(5).Addr, 161) < 0 ||
		!r.Members[3].Maint.Active(t0) || !r.Members[1].Maint.Active(t0) {
		t.Fatalf("rebased: version %d, members %+v", r.Version, r.Members)
	}
	if merged, err := b.Merge(r); err != nil || merged.Hash != r.Hash {
		t.Errorf("the upgraded agents merge the rebased list: %v", err)
	}
	if !a.Adopts(r) || a.Rebases(r) {
		t.Error("a second agent migrated from the same list does not take the rebased one whole")
	}
	if l := Lost(r, r, 2); len(l) != 0 {
		t.Errorf("losses of a rebase: %+v", l)
	}
	behind := Migrate(olderTake(b)) // migrated from the upgraded agent's change alone
	if !behind.Adopts(b) || behind.Rebases(b) {
		t.Error("a migrated list no further on than the upgraded one does not take it whole")
	}
}

// TestEdit: a file is one operator among others. Read again unchanged it
// changes nothing; a node it drops is removed, one it adds is added unless
// a member already, one whose tested-only flag it changes is added again;
// nodes others added or removed stay as they made them.
func TestEdit(t *testing.T) {
	next := clockAt(1, t0)
	file := nodes(1, 2, 3)
	l := New(file)
	byCommand, err := l.Add(3, node(9), next()) // a printer added with diagagent nodes
	if err != nil {
		t.Fatal(err)
	}
	byCommand, err = byCommand.Remove(1, next()) // and node 2 removed there
	if err != nil {
		t.Fatal(err)
	}
	if same, changed := byCommand.Edit(file, nodes(1, 2, 3), next); changed || same.Hash != byCommand.Hash {
		t.Errorf("the file read again unchanged changed the list (version %d to %d)", byCommand.Version, same.Version)
	}
	if same, changed := byCommand.Edit(file, nodes(3, 1, 2), next); changed || same.Hash != byCommand.Hash {
		t.Error("the same file in another order changed the list")
	}
	edited, changed := byCommand.Edit(file, nodes(1, 2, 4, 9), next) // 3 dropped; 4 and 9 added
	if !changed {
		t.Fatal("an edited file changed nothing")
	}
	for _, c := range []struct {
		last int
		in   bool
	}{{1, true}, {2, false}, {3, false}, {4, true}, {9, true}} {
		if got := edited.IndexOf(node(c.last)) >= 0; got != c.in {
			t.Errorf("10.0.0.%d listed %v, want %v", c.last, got, c.in)
		}
	}
	if k := edited.IndexOf(node(9)); k != 3 {
		t.Errorf("the printer added by command moved to id %d, want it to keep 3 (the file names it now too)", k)
	}
	if got := edited.Changes() - byCommand.Changes(); got != 2 {
		t.Errorf("the edit made %d changes, want 2 (3 removed, 4 added)", got)
	}
	flag := nodes(1, 2, 4, 9)
	flag[3].TestedOnly = true
	tested, changed := edited.Edit(nodes(1, 2, 4, 9), flag, next)
	if k := tested.IndexOf(flag[3]); !changed || k < 0 || !tested.Members[k].TestedOnly || k == 3 {
		t.Errorf("a tested-only flag changed in the file: changed %v, id %d", changed, k)
	}
}

// TestLostToRemoval: an add, and a window, undone by a removal made at
// once elsewhere are told by the agent that made them; a removal made
// knowing them undoes them with no loss told.
func TestLostToRemoval(t *testing.T) {
	a, b := clockAt(1, t0), clockAt(2, t0.Add(time.Millisecond/2))
	base := New(nodes(1, 2, 3))
	atA, _ := base.Add(3, node(9), a()) // A adds X
	atB, _ := base.Add(3, node(9), b()) // B adds X at once
	gone, _ := atA.Remove(3, a())       // A removes X, not knowing B's add
	merged, _ := atB.Merge(gone)
	if k := merged.IndexOf(node(9)); k >= 0 {
		t.Fatalf("X is still node %d", k+1)
	}
	if l := Lost(atB, merged, 2); len(l) != 1 || l[0].Kind != "add" || l[0].Winner != 1 || !strings.Contains(l[0].Reason, "removed at once") {
		t.Errorf("B's add undone by A's removal: %+v", l)
	}
	known, _ := atA.Merge(atB) // A learns B's add, then removes X
	knowing, _ := known.Remove(known.IndexOf(node(9)), a())
	if l := Lost(atB, knowing, 2); len(l) != 0 {
		t.Errorf("a removal made knowing B's add: B told %+v", l)
	}

	win, _ := base.WithMaintenance(1, t0.Add(time.Hour), t0, hiadsd.FaultFree, b()) // B sets a window on node 2
	rm, _ := base.Remove(1, a())                                                    // A removes node 2 at once
	both, _ := win.Merge(rm)
	if l := Lost(win, both, 2); len(l) != 1 || l[0].Kind != "window" || l[0].Winner != 1 {
		t.Errorf("B's window undone by a removal at once: %+v", l)
	}
	later, _ := win.Remove(1, b()) // removed knowing the window (here, by B itself)
	if l := Lost(win, later, 2); len(l) != 0 {
		t.Errorf("a removal made knowing the window: %+v", l)
	}
	other, _ := win.Remove(1, a()) // removed at A after A learned the window
	if l := Lost(win, other, 2); len(l) != 0 || other.Members[1].Window.Prev != win.Members[1].Maint.Set {
		t.Errorf("a removal made at A knowing B's window: told %+v, removal names %v", l, other.Members[1].Window)
	}
}

// TestKeySlotsBound: rotations that would give the list more key
// installations than its encoding carries are refused with an error, and
// the list stays one every peer decodes.
func TestKeySlotsBound(t *testing.T) {
	next := clockAt(1, t0)
	l, _ := New(nodes(1, 2)).WithKeys([]uint32{1}, func() Stamp { return Stamp{} })
	rotations := 0
	for k := uint32(2); ; k++ {
		var err error
		l, err = rotate(l, k, next)
		if err != nil {
			if !errors.Is(err, ErrKeyChange) {
				t.Fatalf("rotation %d: %v", rotations+1, err)
			}
			break
		}
		rotations++
	}
	if len(l.KeySlots) > maxKeySlots {
		t.Fatalf("%d key slots", len(l.KeySlots))
	}
	got, err := Unmarshal(l.Marshal())
	if err != nil || got.Hash != l.Hash {
		t.Fatalf("after %d rotations the list does not decode: %v", rotations, err)
	}
	t.Logf("%d rotations, %d key slots, %d octets; the next is refused", rotations, len(l.KeySlots), len(l.Marshal()))
}

// rotate installs key k, puts it in use and removes the key in use before.
func rotate(l List, k uint32, next func() Stamp) (List, error) {
	old := l.Keys[0]
	l, err := l.WithKey(KeyInstall, k, next())
	if err != nil {
		return l, err
	}
	if l, err = l.WithKey(KeyUse, k, next()); err != nil {
		return l, err
	}
	return l.WithKey(KeyRemove, old, next())
}
