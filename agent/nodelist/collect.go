package nodelist

import (
	"slices"
)

// Collection (docs/membership.md, "What the list keeps"): facts that no
// longer say anything are dropped once every agent has seen them, so the
// list is about the size of what it holds now, not of its history.
//
//   - What is collected at a stamp t: an entry removed (or the same
//     address added again at once, which names another entry) whose facts
//     are all stamped at or before t, with every entry of the same node;
//     a key installation removed by t, or installed again later by t.
//   - When: an agent collects at t only when every agent of the list runs
//     one list whose newest fact is stamped t (the daemon asks each; an
//     agent that does not answer, or runs another list, holds it back).
//     Every fact stamped by t is then held by every agent, and every fact
//     any agent makes from then on is stamped after t: its clock has
//     passed every stamp of the list it runs. This is causal stability.
//   - Merging: the list records the stamp it was collected at (Stable). A
//     fact stamped by the other list's Stable that the other list lacks was
//     collected there, and is dropped (it could only have been a removed
//     entry), so collected facts never come back, whatever an agent that
//     was down or cut off brings.
//   - Ids: a collected entry's id is free again, and the next add takes the
//     lowest free id (NextID); the entries that stay keep their ids (At),
//     and the list keeps as many ids as it had (Span), so no id moves and
//     an id is given to another node only once every agent has seen its
//     node removed.
//   - Counts: Version counts the stamped facts held and those collected
//     (Collected), so collection does not change it; the fingerprint does
//     change, and the lists agents run converge on it as on any change.
//     One case moves a version back by the facts it counted: a change
//     made at once with a collection, which also marks an entry the
//     collection dropped (a removal of a key installed twice), counts
//     that mark until it meets the collection.
//
// The file's entries (unstamped) are never collected: they are the list's
// base, which two lists must share to merge, and the file bounds them.

// Collect returns the list with what every agent has seen by stamp t
// collected (see above), and whether anything changed. t must be a stamp
// every agent of the list is known to have seen, with nothing made before
// it left unseen: the newest stamp of a list every agent runs.
func (l List) Collect(t Stamp) (List, bool) {
	if t.Compare(l.Stable) <= 0 {
		return l, false
	}
	out := l.clone()
	covered := func(s Stamp) bool { return s.Compare(t) <= 0 }
	done := func(m Member) bool { // every fact of entry m is stamped by t
		return !m.Added.IsZero() && covered(m.Added) && (!m.Deleted || covered(m.DeletedAt)) && (m.Window == nil || covered(m.Window.Set))
	}
	nodeOf := func(k int) int {
		if of := out.Members[k].Of; of > 0 {
			return of - 1
		}
		return k
	}
	// A node whose every entry is done and which ended goes whole; a live
	// node loses the entries that name it (Of) and are done. Its window,
	// if one of those held it, moves to its own entry first.
	keep := map[int]bool{}
	for k, m := range out.Members {
		if !m.Hole && !done(m) {
			keep[nodeOf(k)] = true
		}
	}
	drop := make([]bool, len(out.Members))
	for k, m := range out.Members {
		switch node := nodeOf(k); {
		case m.Hole || !done(m):
		case out.Members[node].Removed && !out.Members[node].Hole:
			drop[k] = !keep[node] // an ended node goes with all its entries, or waits for all
		case node != k:
			drop[k] = true
		}
	}
	for k, m := range out.Members {
		if !m.Removed && m.Maint != nil && m.Maint != m.Window && covered(m.Maint.Set) {
			w := *m.Maint
			out.Members[k].Window = &w
		}
	}
	span := len(out.Members)
	kept := out.Members[:0]
	for k, m := range out.Members {
		if m.Hole || drop[k] {
			continue
		}
		if !m.Added.IsZero() {
			m.At = k + 1
		}
		kept = append(kept, m)
	}
	out.Members = kept
	out.KeySlots = collectKeys(out.KeySlots, covered)
	before := l.Version - l.Base - l.Collected
	out.Stable, out.Span = t, max(out.Span, span)
	out.Seal()
	out.Collected += before - (out.Version - out.Base - out.Collected)
	out.Seal()
	return out, true
}

// collectKeys drops the key installations removed by a covered stamp, and
// those installed again later by a covered stamp (a use installs the key
// again): the key's latest installation stands for it.
func collectKeys(slots []KeySlot, covered func(Stamp) bool) []KeySlot {
	latest := map[uint32]Stamp{} // per key, its latest installation not removed and covered
	for _, s := range slots {
		if !s.Deleted && covered(s.Added) && s.Added.Compare(latest[s.Index]) > 0 {
			latest[s.Index] = s.Added
		}
	}
	return slices.DeleteFunc(slots, func(s KeySlot) bool {
		if s.Added.IsZero() {
			return false // the file's keys are its base
		}
		if s.Deleted {
			return covered(s.Added) && covered(s.DeletedAt)
		}
		l, ok := latest[s.Index]
		return ok && covered(s.Added) && s.Added.Compare(l) < 0
	})
}

// collected reports whether a fact stamped s, absent from a list collected
// at stable, was collected there: the file's facts never are.
func collected(s, stable Stamp) bool {
	return !s.IsZero() && !stable.IsZero() && s.Compare(stable) <= 0
}

// NextID returns the id the next add takes: the lowest id no entry holds
// (one whose entry was collected), else the one after the last.
func (l List) NextID() int {
	for k, m := range l.Members {
		if m.Hole {
			return k
		}
	}
	return len(l.Members)
}

// Collectable counts the facts that Collect at the list's newest stamp
// would drop: what waits for every agent to run this list.
func (l List) Collectable() int {
	c, _ := l.Collect(l.Newest())
	return int(c.Collected - l.Collected)
}

// Newest returns the list's newest stamp: the latest among its facts and
// the stamp it was collected at.
func (l List) Newest() Stamp {
	t := l.Stable
	l.eachStamp(func(s Stamp) {
		if s.Compare(t) > 0 {
			t = s
		}
	})
	return t
}
