package hiadsd

// Self-suspicion. A node whose tests all go unanswered cannot tell "every
// node I test has failed" from "I am cut off", and the second is far the
// likelier: a pulled cable, a dead switch port. Lifeguard (memberlist's
// local health) and the eventually perfect vCube variants answer the same
// way: suspect yourself first. With Config.Isolation = h, an interval in
// which the node tested two nodes or more and none answered at all (every
// verdict Faulty) is isolated:
//
//   - For the first h isolated intervals in a row its verdicts are held: the
//     view is left as it was, nothing is reported as changed or pushed, and
//     Report.Held lists what the tests said. Its view, which others may
//     still read, holds only what it knew before.
//   - From the next one on it believes them: they are applied as usual (a
//     node that truly outlived the nodes it tests must show it), but kept
//     apart as released, not pushed, and the node Withholds its view: a
//     tester that reaches it records it fault-free and reads nothing from
//     it (Result.Withheld), so the counters it raised while cut off never
//     become anyone else's news.
//   - The first interval with an answered test ends the isolation: every
//     released verdict still held is rolled back to the entry it replaced
//     (reported as a direct change, so a station told of it hears it
//     undone), and the node's own tests find again whatever is really
//     faulty, now with counters others may take.
//
// A healed partition therefore spreads no verdict of the side that was cut
// off, whatever its length.

// released is a verdict applied during an isolation: the entry it replaced
// and the entry it set.
type released struct {
	id          int
	before, set Entry
}

// Isolated returns how many testing intervals in a row ended with no test
// answered (two tests or more, every one Faulty); 0 when not isolated.
func (n *Node) Isolated() int { return n.isolated }

// Withholds reports whether the node's view holds verdicts made while it
// was cut off: a tester reaching it must not read its view until the
// isolation ends (Result.Withheld).
func (n *Node) Withholds() bool { return len(n.released) > 0 }

// cutOff reports whether tests show a node that reached nobody: two or
// more tests, none answered.
func cutOff(tests []TestResult) bool {
	if len(tests) < 2 {
		return false
	}
	for _, t := range tests {
		if t.Status != Faulty {
			return false
		}
	}
	return true
}

// isolation applies self-suspicion to the pass that is the interval, after
// its pushes were computed.
func (iv *interval) isolation() {
	n := iv.node
	if n.Config.Isolation == 0 {
		return
	}
	if !cutOff(iv.report.Tests) {
		n.isolated = 0
		iv.rejoin()
		return
	}
	n.isolated++
	iv.report.Isolated, iv.report.Pushes = n.isolated, nil
	if n.isolated <= n.Config.Isolation {
		iv.undo()
		iv.report.Held, iv.report.Updates = append(iv.report.Held, iv.report.Updates...), iv.report.Updates[:0]
		iv.report.Moved = iv.report.Moved[:0]
		return
	}
	for _, c := range iv.changes { // oldest first: the first entry replaced is the one before the isolation
		if k := n.releasedIndex(c.ID); k >= 0 {
			n.released[k].set = n.View.Get(c.ID)
		} else {
			n.released = append(n.released, released{id: c.ID, before: c.Entry, set: n.View.Get(c.ID)})
		}
	}
}

// releasedIndex returns the index of id in n.released, -1 if absent.
func (n *Node) releasedIndex(id int) int {
	for k, r := range n.released {
		if r.id == id {
			return k
		}
	}
	return -1
}

// rejoin rolls back every released verdict the view still holds.
func (iv *interval) rejoin() {
	n := iv.node
	for _, r := range n.released {
		if n.View.Get(r.id) != r.set {
			continue // overtaken by a test or a source since
		}
		n.View.Set(r.id, r.before)
		if r.before.Status != r.set.Status {
			iv.report.Updates = append(iv.report.Updates, Update{ID: r.id, Old: r.set, New: r.before, From: Direct})
		}
	}
	n.released = n.released[:0]
}

// A cut heals from both sides at once: each side's testers find the other
// side back, and each side's views still hold the faults they saw of the
// other side's nodes while the cut lasted, at counters newer than those
// the other side holds of itself. Taken, those faults would spread, for an
// interval, through the side that was fault-free all along (its owners
// among them) until the nodes' own testers answer them; and a test the
// other side began while the cut lasted ends after the heal with a fresh
// verdict, which it pushes. So, with Config.Isolation, a node that just
// came back (this node held it faulty or partial, and now holds it
// fault-free) is not believed, for returningIntervals, when it serves or
// pushes a fault of a node this node holds fault-free, nor is a node this
// node still holds faulty or partial; the nodes' testers find the real
// faults.

// returningIntervals is how many intervals a node that came back is not
// believed about faults: the one in which it came back and two more, time
// for its own testers to test again the nodes it held faulty.
const returningIntervals = 3

// noteReturn notes that id came back, when the view's entry went from
// old to e.
func (n *Node) noteReturn(id int, old, e Entry) {
	if old.Status != e.Status && old.Status != Unknown && old.Status != Degraded && e.Status != Degraded {
		n.stirred = stirIntervals
	}
	if n.Config.Isolation == 0 || !e.Status.Up() || (old.Status != Faulty && old.Status != Partial) {
		return
	}
	if n.returning == nil {
		n.returning = map[int]int{}
	}
	n.returning[id] = returningIntervals
}

// ageReturning counts one interval off every node that came back, and
// off the view's stir.
func (n *Node) ageReturning() {
	if n.stirred > 0 {
		n.stirred--
	}
	for id, left := range n.returning {
		if left <= 1 {
			delete(n.returning, id)
		} else {
			n.returning[id] = left - 1
		}
	}
}

// stale reports whether entry e, served or pushed by j, is a fault of a
// node this node holds fault-free (mine) from a node that just came back
// or, with Isolation, that this node still holds faulty or partial: the
// cut-off side's pushes can arrive before the tests that bring it back
// (at N = 64 they made agents of the side that stayed up take its nodes
// faulty at the heal, and pass them on as their own news).
func (n *Node) stale(j int, mine, e Entry) bool {
	if !mine.Status.Up() || (e.Status != Faulty && e.Status != Partial) {
		return false
	}
	if n.returning[j] > 0 {
		return true
	}
	src := n.View.Get(j).Status
	return n.Config.Isolation != 0 && (src == Faulty || src == Partial)
}
