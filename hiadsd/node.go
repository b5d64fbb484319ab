package hiadsd

import (
	"fmt"
	"slices"
)

// Node is the state one node carries from one testing interval to the next.
// The caller owns it; its intervals (Interval.Begin) change it, and so may the
// caller between intervals (a station set here, a new list).
type Node struct {
	// ID is this node's id, 0..N-1.
	ID int
	// Config is shared by every node of the system.
	Config *Config
	// View is what this node knows about every node.
	View View
	// Next is the Hi-ADSD cluster level (1..L) the next interval starts with;
	// other algorithms ignore it.
	Next int
	// CatchUp counts the intervals left in which every fetch asks for all N
	// entries; NewNode sets it to Levels(N) for a view that holds some id
	// Unknown (a restart), so the node's counters reach the system's before it
	// reports a change with a lagging counter that would lose to older news.
	CatchUp int
	// Station is the management station the system agrees on, an entry of
	// the view beside the nodes' own: every fetch carries the source's, and
	// the newer one wins (Station.Newer). The caller sets it here, between
	// intervals, with a counter above the one held.
	Station Station
	// List is the version of the node list (Config) the node runs; the zero
	// ListVersion for a caller that keeps none. Sources running another
	// version are not merged (ListVersion); SetList changes it.
	List ListVersion
	// Digest is the digest testers read from this node (DigestSource) as
	// of the start of its interval; 0 when unknown. A source that shows the
	// same digest serves what this node served then, which it still holds
	// or holds newer, so its fetch is skipped (digest.go). The caller sets
	// it before each interval.
	Digest uint64

	merged []merged // the last sources merged at a digest, oldest first (digest.go)
	// returning counts, per node this node held faulty or partial and now
	// holds fault-free, the intervals left in which its faults of nodes
	// this node holds fault-free are not taken (isolation.go's rejoin).
	returning map[int]int
	asked     []int // ids that asked to be tested (Ask), tested in the next interval that completes
	// pushed holds, per id, the entry this node last sent or passed on
	// down a push tree (pushTargets): the same entry pushed again, by
	// another tester that found it, goes no further from here (sift).
	pushed map[int]Entry
	// isolated counts the intervals in a row in which no test was answered,
	// released the verdicts applied during them once held long enough
	// (isolation.go).
	isolated int
	released []released
	// stirred counts the intervals left before the view is calm again
	// (Calm, vantage.go); afterCut those in which, a cut just over, its
	// tests say nothing of its own link (vantage.go). Both are 3 at most.
	stirred, afterCut uint8
	// The rest serves second vantage points alone (Config.Vantage), so
	// that a run without them carries and reads none of it: the
	// simulator's time at 65,536 nodes goes to reading nodes from memory.
	health *health // the node's own health (vantage.go), nil until the first interval with them
	// silent counts, per node held Degraded, the intervals in a row its
	// tests failed and it was held anyway (Holding, vantage.go).
	silent map[int]int
	// unreached counts, per node out of this node's reach alone, the
	// intervals it stays so without news (Unreached, vantage.go).
	unreached map[int]int
}

// NewNode returns node id with the given view, holding itself fault-free and
// starting Hi-ADSD at cluster 1. A restarted node gets a fresh all-unknown view.
func NewNode(cfg *Config, id int, view View) (*Node, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if id < 0 || id >= cfg.N {
		return nil, fmt.Errorf("node id %d outside 0..%d: %w", id, cfg.N-1, ErrBadConfig)
	}
	if view.Len() != cfg.N {
		return nil, fmt.Errorf("view covers %d ids, config has N = %d: %w", view.Len(), cfg.N, ErrBadConfig)
	}
	self := view.Get(id)
	self.Status = FaultFree
	view.Set(id, self)
	n := &Node{ID: id, Config: cfg, View: view, Next: 1}
	if view.Unknowns() > 0 {
		n.CatchUp = max(Levels(cfg.N), 1)
	}
	return n, nil
}

// isTester reports whether this node counts id as a fault-free testing node,
// a possible tester and source of information. A node always counts itself.
func (n *Node) isTester(id int) bool {
	if id == n.ID {
		return true
	}
	return !n.Config.IsTestedOnly(id) && n.View.Get(id).Status == FaultFree && !n.Config.IsRemoved(id)
}

// level returns the Hi-ADSD level of the next interval, repairing a bad Next.
func (n *Node) level() int {
	if n.Next < 1 || n.Next > Levels(n.Config.N) {
		return 1
	}
	return n.Next
}

// others returns every id but this node's, in order.
func (n *Node) others() []int {
	out := make([]int, 0, n.Config.N-1)
	for j := 0; j < n.Config.N; j++ {
		if j != n.ID {
			out = append(out, j)
		}
	}
	return out
}

// Ask records that node id asked to be tested now, as a node that restarted
// or whose link came back does of its testers: the next interval tests it
// once (if it does not test it anyway), and its verdict is recorded and
// pushed as any other. The asking changes no status by itself, so a forged
// or repeated ask costs one test. Ids out of range and the node itself are
// ignored; the caller bounds how often a peer may ask.
func (n *Node) Ask(id int) {
	if id < 0 || id >= n.Config.N || id == n.ID || slices.Contains(n.asked, id) {
		return
	}
	n.asked = append(n.asked, id)
}
