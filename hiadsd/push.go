package hiadsd

import "fmt"

// Pushes carry an event down a spanning tree rooted at the node that
// found it, so every node knows within about one interval instead of the
// log2 N rounds pull takes (seed 002 section 2 on event-driven
// Adaptive-DSD; the failure-detector papers' reliable broadcast over
// vCube's trees). A node that sees a change by its own test sends the new
// entries at once to its clusters c(i,s), s = 1..log2 N (Report.Pushes,
// with Config.Push); a node that receives them merges them by the counter
// rule (Receive) and passes them on the same way in its part of the cube.
//
// The papers' tree sends to one node of each cluster, which forwards in
// its clusters 1..s-1: log2 N hops to the farthest node. Here each cluster
// c(i,s), s >= 2, is sent to in its two halves, split by bit s-2 of the
// node ids, and a node of a half forwards in its clusters 1..s-2, which
// are the rest of that half: still one message per node, but
// ceil(log2 N / 2) hops (4 at N = 256, not 8), for 2·log2 N - 1 messages
// from the root instead of log2 N. Each hop costs an agent a scheduling
// delay and a SET's round trip, which at N = 256 on a loaded LAN is most
// of a repair's time to reach everyone.
// Pushes are safe to lose, since pull still guarantees the bound, and safe
// to repeat or replay: an entry older than the one held is neither taken
// nor passed on.

// Push is one message of the push: Entries for node To, which forwards
// them in its clusters 1..Cluster-1. Alternates are the next nodes of the
// same part of the sender's cluster that the sender holds fault-free, in
// order: when To does not take the push (it failed since the sender last
// heard of it), the sender tries them in turn. Any node of that part roots
// the rest of it, since its clusters 1..Cluster-1 are the part without
// itself.
type Push struct {
	To, Cluster int
	Entries     []IDEntry
	Alternates  []int
}

// PushDepth is the most hops a push takes in a system of n nodes:
// ceil(log2 n / 2).
func PushDepth(n int) int { return (Levels(n) + 1) / 2 }

// maxAlternates bounds the alternates of a push: each one tried costs the
// sender a wait for an answer that may not come.
const maxAlternates = 2

// pushTargets returns a push of entries to the first node this node holds
// fault-free (a tester) in each half of each of its clusters
// 1..maxCluster, the largest first, since their subtrees are the deepest:
// the children of its spanning tree as its view sees it. A node it holds
// Unknown (a restarted node has heard of no one yet) may be a child too:
// it costs a push that may go unanswered, and the alternates follow it,
// where skipping it would leave that part to pull, which under the
// rotating plan takes up to 2·log2 N intervals.
func (n *Node) pushTargets(entries []IDEntry, maxCluster int) []Push {
	if len(entries) == 0 {
		return nil
	}
	if n.pushed == nil {
		n.pushed = make(map[int]Entry)
	}
	for _, ie := range entries {
		n.pushed[ie.ID] = ie.Entry
	}
	var out []Push
	for s := maxCluster; s >= 1; s-- {
		half := 1 << (s - 1)
		cuts := []int{0, half} // c(i,1) is one node
		if s > 1 {
			cuts = []int{0, half / 2, half}
		}
		for c := 1; c < len(cuts); c++ {
			if t := n.testerIn(n.ID, s, cuts[c-1], cuts[c], true); t >= 0 {
				out = append(out, Push{To: t, Cluster: max(s-1, 1), Entries: entries, Alternates: n.testersAfter(n.ID, s, t, cuts[c])})
			}
		}
	}
	return out
}

// testersAfter returns up to maxAlternates testers of c(i,s), or nodes
// held Unknown, that come after t in firstTester's order and before the
// end-th.
func (n *Node) testersAfter(i, s, t, end int) []int {
	p := i ^ 1<<(s-1)
	var out []int
	for c := n.testerIn(i, s, (t^p)+1, end, true); c >= 0 && len(out) < maxAlternates; c = n.testerIn(i, s, (c^p)+1, end, true) {
		out = append(out, c)
	}
	return out
}

// pushes returns the pushes of the interval's events: every id whose known
// status this node changed by its own test (so with a new counter), and
// every id whose direct verdict it gave a new counter to override another
// verdict heard (catchUp: to the nodes that took that one, the correction
// is the event), with the entry it holds now. A first verdict after
// Unknown (a restart) is no event and is not pushed. Nothing when
// Config.Push is off.
func (iv *interval) pushes() []Push {
	if !iv.node.Config.Push {
		return nil
	}
	var entries []IDEntry
	add := func(id int) {
		for _, ie := range entries {
			if ie.ID == id {
				return
			}
		}
		entries = append(entries, IDEntry{ID: id, Entry: iv.node.View.Get(id)})
	}
	for _, u := range iv.report.Updates {
		if u.IsDirect() && u.Old.Status != Unknown && u.New.Status != Unknown {
			add(u.ID)
		}
	}
	for _, id := range iv.overrode {
		add(id)
	}
	return iv.node.pushTargets(entries, Levels(iv.node.Config.N))
}

// Receive merges a push sent by node from while it ran node list v, between
// two intervals, and returns what it did: the status changes it made
// (Report.Updates, learned from from) and the pushes that pass the entries
// on in this node's clusters below p.Cluster (Report.Pushes). An entry
// about an id outside the list or removed from it, or of status Unknown,
// is dropped, and one about this node is taken (for its counter, as a
// fetch takes it) and passed on only when it holds it fault-free (sift);
// one older than the entry held is neither taken nor passed on, so a late
// or replayed push changes nothing and goes no further. One equal to it is
// passed on, so a node that learned the event by pull first still carries
// the push to its subtree, unless this node sent or passed on that very
// entry already: each tester that finds a repair at once (a hello asks
// them all) roots a tree of its own, and at N = 256 the copies of the
// other trees, passed on whole, cost every agent up to log2 N SETs for one
// repair. A push from a node
// running another list is dropped whole (ErrOtherList), as a fetch is.
// During an interval, Interval.Take merges a push instead.
func (n *Node) Receive(from int, p Push, v ListVersion) (Report, error) {
	rep := Report{Node: n.ID}
	pass, refused, err := n.sift(from, p, v)
	rep.Refused = refused
	if err != nil {
		return rep, err
	}
	for _, ie := range pass {
		n.merge(ie, from, &rep)
	}
	if n.Config.Push {
		rep.Pushes = n.pushTargets(pass, p.Cluster-1)
	}
	return rep, nil
}

// merge takes entry ie, heard from node from, if it is newer than the one
// held, lists a status change in rep, and reports whether it took it.
func (n *Node) merge(ie IDEntry, from int, rep *Report) bool {
	mine := n.View.Get(ie.ID)
	if !ie.Entry.Newer(mine) {
		return false
	}
	n.View.Set(ie.ID, ie.Entry)
	n.noteReturn(ie.ID, mine, ie.Entry)
	n.forget(ie.ID)
	if mine.Status != ie.Entry.Status {
		rep.Updates = append(rep.Updates, Update{ID: ie.ID, Old: mine, New: ie.Entry, From: from})
	} else if mine.Status == FaultFree {
		rep.Moved = append(rep.Moved, ie.ID)
	}
	return true
}

// sift checks a push and returns its entries that are to be taken or
// passed on: none outside the list or Unknown, none older than the entry
// held or equal to the one this node pushed last (pushed), and about this
// node only one that holds it fault-free. That one is
// passed on and its counter taken: a restarted node is the news its tester
// pushes, and often the child through which the news reaches its own
// subtree; a node that receives itself faulty is alive, and its testers
// will say so. An entry whose counter leads the one held by more than the
// bound (Entry.takes) is refused: listed, neither taken nor passed on, also
// for an id held Unknown, since nobody asked for a push.
func (n *Node) sift(from int, p Push, v ListVersion) (pass []IDEntry, refused []Update, err error) {
	switch {
	case from < 0 || from >= n.Config.N || from == n.ID:
		return nil, nil, fmt.Errorf("push from node %d to node %d: %w", from, n.ID, ErrBadConfig)
	case p.Cluster < 1 || p.Cluster > Levels(n.Config.N):
		return nil, nil, fmt.Errorf("push from node %d for cluster %d of %d: %w", from, p.Cluster, Levels(n.Config.N), ErrBadConfig)
	case v.Known() && n.List.Known() && v != n.List:
		return nil, nil, fmt.Errorf("push from node %d: %w", from, ErrOtherList)
	}
	for _, ie := range p.Entries {
		id := ie.ID
		if id < 0 || id >= n.Config.N || n.Config.IsRemoved(id) || ie.Entry.Status == Unknown || id == n.ID && !ie.Entry.Status.Up() {
			continue
		}
		held := n.View.Get(id)
		if _, refuse := ie.Entry.takes(held); refuse {
			refused = append(refused, Update{ID: id, Old: held, New: ie.Entry, From: from})
			continue
		}
		if held.Newer(ie.Entry) || ie.Entry == held && n.pushed[id] == held {
			continue // older news (a late or replayed push), or news this node passed on already
		}
		if n.stale(from, held, ie.Entry) {
			continue // a fault from a node just back, maybe a test begun while it was cut off (isolation.go)
		}
		pass = append(pass, ie)
	}
	return pass, refused, nil
}
