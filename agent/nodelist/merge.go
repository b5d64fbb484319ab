package nodelist

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
)

// How two lists merge (docs/membership.md, "Changes made at once"):
//
//   - Every fact of either list is kept: entries added, entries removed,
//     windows set, keys installed, used and removed. A fact is never taken
//     back, so merging in any order, any number of times, ends at one list.
//   - Ids. Entries are taken in the order of their stamps; each keeps the id
//     it was added at unless an entry stamped before it holds that id, in
//     which case it takes the id after every id held so far.
//     So a node added at once at two agents under the same id gets two ids,
//     and only the one stamped later moves.
//   - One address, one node. An entry whose address is a member when it is
//     added (by the stamps) is the same node added again: its id is kept as
//     a removed id and it names the node it is (Of).
//   - A removal ends the node at its stamp: an entry of the same address
//     stamped later is a new node (new id); one stamped before the removal,
//     at an agent that did not know of the removal, is removed with it.
//   - A node's maintenance window is the one stamped last among those set
//     on its entries. The key in use is the one set last; using a key
//     installs it again, so a removal made at once does not take it away.

// ErrOtherBase refuses to merge two lists that grew from different
// files (or from lists of an older format that differ): an id may name
// different nodes in the two, and no rule settles which is meant.
var ErrOtherBase = errors.New("the two node lists grew from different files")

// ErrBadList is wrapped by the errors of a list no correct agent could
// have made: the same entry with two contents, a stamp out of order.
var ErrBadList = errors.New("malformed node list")

// settle derives, from the list's facts, where each entry sits (Member's
// Want and the rules above), which ids are members, each node's window,
// and the keys.
func (l *List) settle() {
	slots := make([]Member, 0, len(l.Members))
	for _, m := range l.Members {
		if !m.Hole {
			slots = append(slots, m)
		}
	}
	sortSlots(slots)
	ids := placeSlots(slots, l.Span)
	n := l.Span
	for _, id := range ids {
		n = max(n, id+1)
	}
	out := make([]Member, n)
	for k := range out {
		out[k] = Member{Hole: true, Removed: true, Want: k}
	}
	type node struct {
		first int     // the entry stamped first: the node's own
		end   Stamp   // the removal that ended it, the earliest
		ended bool    // it was removed
		win   *Window // its window, the one stamped last
	}
	live := map[string]*node{}
	of := make([]*node, len(slots))
	for i, s := range slots {
		in := live[s.key()]
		if in == nil || (in.ended && s.Added.Compare(in.end) >= 0) {
			in = &node{first: i}
			live[s.key()] = in
		}
		of[i] = in
		if s.Deleted && (!in.ended || s.DeletedAt.Compare(in.end) < 0) {
			in.end, in.ended = s.DeletedAt, true
		}
		if s.Window != nil && (in.win == nil || laterWindow(*s.Window, *in.win)) {
			in.win = s.Window
		}
	}
	for i, s := range slots {
		in := of[i]
		s.Removed, s.Of, s.Maint = in.ended || in.first != i, 0, in.win
		if in.first != i {
			s.Of = ids[in.first] + 1
		}
		own := slots[in.first].Labels
		s.Name, s.Community, s.OID = own.Name, own.Community, own.OID
		out[ids[i]] = s
	}
	l.Members = out
	l.settleKeys()
}

// placeSlots gives each entry its id: an entry pinned by a collection
// (At) keeps the id it had then; the others, taken in stamp order, the
// one they were added at if free, else the id after every id held before
// (and every id the list had when collected, span).
func placeSlots(slots []Member, span int) []int {
	ids := make([]int, len(slots))
	taken := map[int]bool{}
	hi := span - 1
	for i, s := range slots {
		if s.At > 0 {
			ids[i], taken[s.At-1] = s.At-1, true
			hi = max(hi, s.At-1)
		}
	}
	for i, s := range slots {
		if s.At > 0 {
			continue
		}
		id := s.Want
		if id < 0 || taken[id] {
			id = hi + 1 // s.Want is taken, so hi is at least s.Want
		}
		ids[i], taken[id] = id, true
		hi = max(hi, id)
	}
	return ids
}

// laterWindow reports whether window a was set after b (by stamp, then by
// content, so that two windows of one stamp settle the same everywhere).
func laterWindow(a, b Window) bool {
	if c := a.Set.Compare(b.Set); c != 0 {
		return c > 0
	}
	if c := a.Until.Compare(b.Until); c != 0 {
		return c > 0
	}
	return a.Status > b.Status
}

// settleKeys derives Keys: every key installed and not removed, the
// primary first (the one last set, if it is held, else the lowest index).
func (l *List) settleKeys() {
	slices.SortFunc(l.KeySlots, func(a, b KeySlot) int {
		if c := cmp.Compare(a.Index, b.Index); c != 0 {
			return c
		}
		return a.Added.Compare(b.Added)
	})
	var live []uint32
	for _, k := range l.KeySlots {
		if !k.Deleted {
			live = append(live, k.Index)
		}
	}
	l.Keys = nil
	if len(live) == 0 {
		return
	}
	primary := l.Primary.Index
	if !slices.Contains(live, primary) {
		primary = slices.Min(live)
	}
	l.Keys = SortKeys(primary, live)
}

// Merge returns the list holding every fact of l and of o (see the rules
// above), settled and sealed. Entries of a host name keep l's address for
// it. Lists of two bases do not merge (ErrOtherBase).
func (l List) Merge(o List) (List, error) {
	if !SameBase(l, o) {
		return l, ErrOtherBase
	}
	out := List{Base: l.Base, Primary: l.Primary, Span: max(l.Span, o.Span)}
	switch c := l.Stable.Compare(o.Stable); {
	case c > 0:
		out.Stable, out.Collected = l.Stable, l.Collected
	case c < 0:
		out.Stable, out.Collected = o.Stable, o.Collected
	default:
		out.Stable, out.Collected = l.Stable, max(l.Collected, o.Collected)
	}
	if err := out.mergeAll(l, o); err != nil {
		return l, err
	}
	return out, nil
}

// mergeAll puts into out, which holds the key in use of l, the facts of l
// and o (mergeFacts), within the encoding's bound of key installations,
// and the key in use set last, then settles and seals it.
func (out *List) mergeAll(l, o List) error {
	if err := out.mergeFacts(l, o); err != nil {
		return err
	}
	if len(out.KeySlots) > maxKeySlots {
		return fmt.Errorf("%w: %d key installations together, more than the encoding carries (%d)", ErrBadList, len(out.KeySlots), maxKeySlots)
	}
	if c := o.Primary.Set.Compare(out.Primary.Set); c > 0 || (c == 0 && o.Primary.Index > out.Primary.Index) {
		out.Primary = o.Primary
	}
	out.Seal()
	return nil
}

// mergeFacts puts into out every fact of lists l and o, merged entry by
// entry and key installation by key installation, but those one of them
// collected (stamped by its Stable, and absent from it): those are
// removed entries every agent had seen removed, and must not come back.
func (out *List) mergeFacts(l, o List) error {
	slotsOf := func(x List) map[slotID]bool {
		in := map[slotID]bool{}
		for _, m := range x.Members {
			if !m.Hole {
				in[m.slot()] = true
			}
		}
		return in
	}
	keysOf := func(x List) map[KeySlot]bool {
		in := map[KeySlot]bool{}
		for _, s := range x.KeySlots {
			in[KeySlot{Index: s.Index, Added: s.Added}] = true
		}
		return in
	}
	sides := [2]List{l, o}
	slots := [2]map[slotID]bool{slotsOf(l), slotsOf(o)}
	keys := [2]map[KeySlot]bool{keysOf(l), keysOf(o)}
	at := map[slotID]int{}
	for side, src := range sides {
		other := 1 - side
		for _, m := range src.Members {
			if m.Hole || (!slots[other][m.slot()] && collected(m.Added, sides[other].Stable)) {
				continue
			}
			k, seen := at[m.slot()]
			if !seen {
				at[m.slot()] = len(out.Members)
				out.Members = append(out.Members, m)
				continue
			}
			merged, err := mergeSlot(out.Members[k], m)
			if err != nil {
				return err
			}
			out.Members[k] = merged
		}
	}
	keyAt := map[KeySlot]int{}
	for side, src := range sides {
		other := 1 - side
		for _, s := range src.KeySlots {
			id := KeySlot{Index: s.Index, Added: s.Added}
			if !keys[other][id] && collected(s.Added, sides[other].Stable) {
				continue
			}
			k, seen := keyAt[id]
			if !seen {
				keyAt[id] = len(out.KeySlots)
				out.KeySlots = append(out.KeySlots, s)
				continue
			}
			out.KeySlots[k].Deleted, out.KeySlots[k].DeletedAt = mergeDeletion(out.KeySlots[k].Deleted, out.KeySlots[k].DeletedAt, s.Deleted, s.DeletedAt)
		}
	}
	return nil
}

// mergeSlot merges two copies of one entry: the same node, removed if
// either says so, with the window stamped last. The address of a node
// given by host name is a's.
func mergeSlot(a, b Member) (Member, error) {
	if a.Host != b.Host || a.Port != b.Port || a.TestedOnly != b.TestedOnly || a.Labels != b.Labels || (a.Host == "" && a.Addr != b.Addr) ||
		(a.At > 0 && b.At > 0 && a.At != b.At) {
		return a, fmt.Errorf("%w: entry %d stamped %s names %s and %s", ErrBadList, a.Want+1, a.Added, a.ident(), b.ident())
	}
	a.At = max(a.At, b.At)
	a.Deleted, a.DeletedAt = mergeDeletion(a.Deleted, a.DeletedAt, b.Deleted, b.DeletedAt)
	if b.Window != nil && (a.Window == nil || laterWindow(*b.Window, *a.Window)) {
		a.Window = b.Window
	}
	return a, nil
}

// mergeDeletion merges two records of a removal: removed if either is, at
// the earlier stamp.
func mergeDeletion(a bool, at Stamp, b bool, bt Stamp) (bool, Stamp) {
	switch {
	case !b:
		return a, at
	case !a || bt.Compare(at) < 0:
		return true, bt
	}
	return a, at
}

// Adopts reports whether an agent running l takes o whole rather than
// merging it, when the two grew from different bases: l holds no stamped
// fact (a file's list, or one an agent of an older format ran) and o,
// holding some, is as far on or further, or, holding none either (two
// lists migrated from the older format), further on: that format's rule.
// A new agent started from a file that lists it thus takes the list the
// others run, and so does an agent upgraded from the older format, whose
// list (a change made by an upgraded agent, taken as the older format
// takes lists) has the others' version but not their stamps.
func (l List) Adopts(o List) bool {
	return l.Changes() == 0 && o.Version >= l.Version && (o.Changes() > 0 || o.Version > l.Version)
}

// Rebases reports whether an agent running l, of another base than o,
// rebases it onto o (Rebase): l is a list migrated from the older format
// (no stamped fact, Base above 0) further on than o, which holds stamped
// facts: changes made at an agent of the older format while others were
// upgraded, which o lacks.
func (l List) Rebases(o List) bool {
	return l.Changes() == 0 && l.Base > 0 && o.Changes() > 0 && o.Version < l.Version
}

// Migrate turns a list kept by an agent of the older format (no stamps,
// the keys by index alone, the version a counter of changes) into this
// format's: every fact it holds is of its base, which is its version, so
// its fingerprint and version stay the ones the older agents serve, and
// agents of both formats keep taking each other's diagnosis.
func Migrate(l List) List {
	out := List{Base: l.Version, Members: slices.Clone(l.Members)}
	for k := range out.Members {
		m := &out.Members[k]
		m.Want, m.Added, m.DeletedAt, m.Labels, m.Hole = k, Stamp{}, Stamp{}, Labels{}, false
		if m.Window != nil {
			w := *m.Window
			w.Set, w.Prev = Stamp{}, Stamp{}
			m.Window = &w
		}
	}
	for _, k := range l.Keys {
		out.KeySlots = append(out.KeySlots, KeySlot{Index: k})
	}
	if len(l.Keys) > 0 {
		out.Primary = Primary{Index: l.Keys[0]}
	}
	out.Seal()
	return out
}

// Rebase returns onto with the content of l that onto lacks applied as
// changes made here (stamped by next), for l migrated from the older
// format (no stamped fact, Base above 0) and holding changes made at an
// agent of that format after the list onto grew from: its members onto
// does not list are added, its removals of onto's file members are made,
// its windows that differ from onto's are set, and the keys it holds that
// onto lacks are installed. A member onto added since (stamped) and l does
// not list stays: l never saw it. The second return says whether anything
// was applied.
func (l List) Rebase(onto List, next func() Stamp) (List, bool) {
	out, changed := onto, false
	for _, m := range l.Members {
		if m.Hole {
			continue
		}
		k := out.IndexOf(m)
		switch {
		case !m.Removed && k < 0:
			m.Name, m.Community, m.OID = m.Labels.Name, m.Labels.Community, m.Labels.OID
			if added, err := out.Add(out.NextID(), m, next()); err == nil {
				out, changed = added, true
				k = out.IndexOf(m)
			}
		case m.Removed && k >= 0 && out.Members[k].Added.IsZero() && m.key() == out.Members[k].key():
			if removed, err := out.Remove(k, next()); err == nil {
				out, changed = removed, true
			}
			continue
		}
		if w := m.Maint; k >= 0 && !m.Removed && w != nil && !sameWindow(w, out.Members[k].Maint) {
			nw := Window{Until: w.Until, Status: w.Status, Set: next()}
			if cur := out.Members[k].Maint; cur != nil {
				nw.Prev = cur.Set
			}
			out = out.clone()
			out.Members[k].Window = &nw
			out.Seal()
			changed = true
		}
	}
	for _, key := range l.Keys {
		if installed, err := out.WithKey(KeyInstall, key, next()); err == nil {
			out, changed = installed, true
		}
	}
	return out, changed
}

// sameWindow reports whether two windows say the same: the same end and
// the same status at their beginning.
func sameWindow(a, b *Window) bool {
	return (a == nil) == (b == nil) && (a == nil || a.Until.Equal(b.Until) && a.Status == b.Status)
}
