package hiadsd

import "fmt"

// News while an interval waits. On a LAN a batch lasts as long as its
// slowest op: a test of a silent peer waits for its re-test, a fetch from a
// loaded peer for its answer, seconds in all. News that must not wait that
// long is taken between Advance calls, while the pass is undone and the
// view holds only what the intervals before this one made of it; the next
// pass replays the algorithm from that view.
//
// Three kinds are taken. A push about a node this interval neither tested
// nor is testing (Take): no verdict of this interval can contradict it. A
// push that calls degraded a node the view holds up (Take, newsFirst): a
// lossy member is slow to test (its tester's requests and questions wait
// on its lost replies, seconds in all), and the tester testing it would
// otherwise be the last to know; the test under way began before the news,
// so its verdict does not override it this interval. And the
// repair of a node this interval tested (Repairs): a test that found a node
// held down fault-free again is final, since every later op of the interval
// only reads views, and a direct verdict stands against what they bring
// (fetch and catchUp). Both are then shown and passed on at once, instead
// of when the interval's last fetch returns.

// testing reports whether this interval tested id or is testing it now.
func (m *Interval) testing(id int) bool {
	if _, ok := m.tests.get(id); ok {
		return true
	}
	for _, op := range m.need {
		if op.Kind == OpTest && op.Target == id {
			return true
		}
	}
	return false
}

// midway returns an error unless m is between two batches of an interval.
func (m *Interval) midway(what string) error {
	if m.node == nil || m.done {
		return fmt.Errorf("%s outside an interval: %w", what, ErrBadConfig)
	}
	return nil
}

// Take merges a push sent by node from while it ran node list v and the
// interval waits on its batch (after Ready, before Advance), and returns
// what Receive would: the status changes it made and the pushes that pass
// the whole push on. Entries about a node this interval tested or is
// testing are not merged: they are returned in later, for Receive once the
// interval is over, so that a verdict of a test begun before the push came
// does not, applied after it, override the newer news as if it were newer
// itself. The one exception is news of a node degraded (newsFirst): it is
// merged at once, and the verdict of that test stands aside (testedBefore).
// A source read later in the interval that still holds an older entry
// about an id taken has not heard the news yet: that is no dispute to
// settle by a test (Config.Recheck). Outside an interval it fails
// (ErrBadConfig): use Receive.
func (m *Interval) Take(from int, p Push, v ListVersion) (rep Report, later Push, err error) {
	if err := m.midway("push taken"); err != nil {
		return Report{}, Push{}, err
	}
	n := m.node
	rep = Report{Node: n.ID}
	pass, refused, err := n.sift(from, p, v)
	rep.Refused = refused
	if err != nil {
		return rep, Push{}, err
	}
	later = Push{To: p.To, Cluster: p.Cluster}
	for _, ie := range pass {
		testing := m.testing(ie.ID)
		if testing && !m.newsFirst(ie) {
			later.Entries = append(later.Entries, ie)
			continue
		}
		if n.merge(ie, from, &rep) {
			m.taken = append(m.taken, ie.ID)
			if testing {
				m.early = append(m.early, ie.ID)
			}
		}
	}
	if n.Config.Push {
		rep.Pushes = n.pushTargets(pass, p.Cluster-1)
	}
	return rep, later, nil
}

// newsFirst reports whether Take merges ie although this interval is
// testing its node: it names the node degraded, and the view holds the node
// up (a degraded node's other news, and a return, wait for the test).
func (m *Interval) newsFirst(ie IDEntry) bool {
	return ie.Entry.Status == Degraded && m.node.View.Get(ie.ID).Status.Up()
}

// Repairs commits, while the interval waits on a later batch, every test
// answered so far that found a node the view holds faulty or partial
// fault-free, and returns them as the pass that is the interval would
// have: the status changes (Direct, with the new counter) and the pushes
// that carry them down this node's tree. The interval's Report then leaves
// them out, since its last pass finds the view already holding them. A node
// that is cut off or holds verdicts it made while cut off (isolation.go)
// commits nothing early: its pass decides what it keeps.
func (m *Interval) Repairs() (Report, error) {
	if err := m.midway("repairs"); err != nil {
		return Report{}, err
	}
	n := m.node
	rep := Report{Node: n.ID}
	if n.isolated > 0 || n.Withholds() {
		return rep, nil
	}
	var entries []IDEntry
	for k, j := range m.tests.keys {
		old := n.View.Get(j)
		if !m.tests.vals[k].status.Up() || old.Status != Faulty && old.Status != Partial || n.Config.IsRemoved(j) {
			continue
		}
		e := observe(old, m.tests.vals[k].status)
		n.View.Set(j, e)
		rep.Updates = append(rep.Updates, Update{ID: j, Old: old, New: e, From: Direct})
		entries = append(entries, IDEntry{ID: j, Entry: e})
	}
	if n.Config.Push {
		rep.Pushes = n.pushTargets(entries, Levels(n.Config.N))
	}
	return rep, nil
}
