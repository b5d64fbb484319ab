package nodelist

import (
	"fmt"
	"slices"
	"time"
)

// Conflict is a change made at one agent that a merge undid: it lost to a
// change made at once at another agent, which did not know of it. Only the
// agent that made the change reports it (Lost), once, since only it
// acknowledged it.
type Conflict struct {
	// Kind says what lost: "window", "key in use", "key removal", "id"
	// (a node added under an id given at once to another node, or the
	// same address added at once elsewhere, which is now another id) or
	// "add" (a node added here that a removal made at once undid).
	Kind string
	// Node is the id (0-based) the change was about in the merged list, -1
	// for a change of the keys.
	Node int
	// Entry is the id of the entry the change made, for an "id" or an "add": where the
	// merged list holds it (Node is the node it is).
	Entry int
	// Winner is the origin of the change that won (OriginOf), 0 if unknown.
	Winner uint32
	// Reason says it in words, for a log line and the notification.
	Reason string
	// Change is the stamp of the change made here that lost.
	Change Stamp
}

// Lost returns the changes made at origin that old held and merged no
// longer does, since a change made at once elsewhere won: a window replaced
// by one set without knowing it (its Prev is older than the window lost),
// the key in use set the same way, a key's removal undone by a use of it
// elsewhere, a node added here that the merge put at another id, and an
// add or a window undone by a removal made without knowing it.
func Lost(old, merged List, origin uint32) []Conflict {
	var out []Conflict
	for k, m := range old.Members {
		if m.Hole || m.Deleted {
			continue
		}
		was, alias := k, m.Of > 0 // the node the entry was: an entry of one address added at once elsewhere is that node
		if alias {
			was = m.Of - 1
		}
		if old.Members[was].Removed {
			continue // ended already
		}
		nk := merged.IDOf(old, k)
		if nk < 0 {
			continue
		}
		node := nk
		if of := merged.Members[nk].Of; of > 0 {
			node = of - 1
		}
		nm := merged.Members[node]
		if nm.Removed && !nm.Hole {
			out = append(out, lostToRemoval(m, merged, nk, node, origin, !alias)...)
			continue
		}
		if w, nw := m.Maint, nm.Maint; !alias && w != nil && w.Set.Origin == origin && !w.Set.IsZero() && nw != nil && nw.Set != w.Set && nw.Prev.Compare(w.Set) < 0 &&
			!sameWindow(w, nw) { // the same window set at once twice: nothing lost
			out = append(out, Conflict{Kind: "window", Node: node, Winner: nw.Set.Origin, Change: w.Set,
				Reason: fmt.Sprintf("the maintenance window set here on node %d (%s) was replaced by one set at once at another agent (%s)",
					node+1, windowWords(w), windowWords(nw))})
		}
		if m.Added.Origin == origin && !m.Added.IsZero() && node != was {
			how, by := fmt.Sprintf("id %d was given at once to another node", k+1), winnerOf(merged, k)
			if node != nk {
				how, by = "the same address was added at once at another agent", nm.Added.Origin
			}
			out = append(out, Conflict{Kind: "id", Node: node, Entry: nk, Winner: by, Change: m.Added,
				Reason: fmt.Sprintf("node %s port %d added here, node %d until now, is node %d: %s", m.ident(), m.Port, k+1, node+1, how)})
		}
	}
	if p, np := old.Primary, merged.Primary; p.Set.Origin == origin && !p.Set.IsZero() && np.Set != p.Set && np.Prev.Compare(p.Set) < 0 && np.Index != p.Index {
		out = append(out, Conflict{Kind: "key in use", Node: -1, Winner: np.Set.Origin, Change: p.Set,
			Reason: fmt.Sprintf("the key in use set here (%08x) was replaced by one set at once at another agent (%08x)", p.Index, np.Index)})
	}
	for _, s := range old.KeySlots {
		if !s.Deleted || s.DeletedAt.Origin != origin || slices.Contains(old.Keys, s.Index) || !slices.Contains(merged.Keys, s.Index) {
			continue
		}
		by := uint32(0)
		for _, o := range merged.KeySlots {
			if o.Index == s.Index && !o.Deleted {
				by = o.Added.Origin
			}
		}
		out = append(out, Conflict{Kind: "key removal", Node: -1, Winner: by, Change: s.DeletedAt,
			Reason: fmt.Sprintf("the removal here of key %08x was undone: it was installed or put in use at once at another agent", s.Index)})
	}
	return out
}

// lostToRemoval returns what a removal made at once at another agent
// undid of the changes made at origin on m, an entry old held as a node:
// nk is the entry in merged, node the node it is there, now removed. A
// removal that knew of an entry removed it too, and one that knew of a
// window ended it naming it (Remove); one that did neither was made
// without knowing them: the add, and the window (asked for once per node,
// on its own entry), were lost to it.
func lostToRemoval(m Member, merged List, nk, node int, origin uint32, window bool) []Conflict {
	var end Stamp // the removal that ended the node: the earliest of its entries'
	for k, e := range merged.Members {
		if (k == node || e.Of == node+1) && e.Deleted && (end.IsZero() || e.DeletedAt.Compare(end) < 0) {
			end = e.DeletedAt
		}
	}
	if end.Origin == origin && !end.IsZero() {
		return nil // removed here, knowing what was made here
	}
	var out []Conflict
	if m.Added.Origin == origin && !m.Added.IsZero() && !merged.Members[nk].Deleted {
		out = append(out, Conflict{Kind: "add", Node: node, Entry: nk, Winner: end.Origin, Change: m.Added,
			Reason: fmt.Sprintf("node %s port %d added here as node %d was removed at once at another agent, which did not know of the add", m.ident(), m.Port, node+1)})
	}
	if w, nw := m.Maint, merged.Members[node].Maint; window && w != nil && w.Set.Origin == origin && !w.Set.IsZero() &&
		(nw == nil || nw.Set == w.Set || nw.Prev.Compare(w.Set) < 0) {
		out = append(out, Conflict{Kind: "window", Node: node, Winner: end.Origin, Change: w.Set,
			Reason: fmt.Sprintf("the maintenance window set here on node %d (%s) was lost: the node was removed at once at another agent, which did not know of the window", node+1, windowWords(w))})
	}
	return out
}

// winnerOf returns the origin of the entry merged holds at id k.
func winnerOf(merged List, k int) uint32 {
	if k < len(merged.Members) && !merged.Members[k].Hole {
		return merged.Members[k].Added.Origin
	}
	return 0
}

// windowWords says what a window is: until when, or ended.
func windowWords(w *Window) string {
	if w.Until.IsZero() || !w.Until.After(w.Set.Wall().Truncate(time.Second)) {
		return "ended"
	}
	return "until " + w.Until.UTC().Format(time.RFC3339)
}
