package hiadsd

import (
	"errors"
	"fmt"
	"slices"
)

// ListVersion names the node list a node runs: Counter orders the changes
// made to it (a serial number, as Entry's counter) (as the station's counter does, a change made at one node takes
// the next counter there) and Hash fingerprints its content. Two nodes
// exchange entries only while they run the same version, since an id means
// the same node only under the same list.
type ListVersion struct {
	Counter uint32
	Hash    uint64
}

// Known reports whether v names a list; the zero ListVersion is a source
// that told none (an agent older than list versions).
func (v ListVersion) Known() bool { return v.Hash != 0 }

// Newer reports whether v supersedes old under the simplest rule for a
// list that changes at one node at a time (the lab's): the later counter
// wins, and on equal counters above 0 the larger hash. Lists at counter 0
// are the files nodes started from: two that differ are an operator's
// mistake no rule can settle, so neither wins. The agents merge lists
// instead, fact by fact (agent/nodelist), so that changes made at once at
// two nodes are both kept.
func (v ListVersion) Newer(old ListVersion) bool {
	if !v.Known() {
		return false
	}
	if v.Counter != old.Counter {
		return serialAfter(v.Counter, old.Counter)
	}
	return v.Counter > 0 && v.Hash > old.Hash
}

// Within reports whether v's counter leads old's by at most MaxLead (one
// that does not lead it is within): a list changes once per change made at
// some node, so a list read from a peer that is further ahead is not one a
// correct peer runs.
func (v ListVersion) Within(old ListVersion) bool {
	return !serialAfter(v.Counter, old.Counter) || v.Counter-old.Counter <= MaxLead
}

// ListSeen is a node list, newer than the node's own, that a source runs.
type ListSeen struct {
	From int
	List ListVersion
}

// ErrOtherList is the FetchResult.Err of a source that runs another node
// list: its entries are not merged (see ListVersion).
var ErrOtherList = errors.New("the source runs another node list")

// ErrRemoved is SetList's error when the new list removes the node itself.
var ErrRemoved = errors.New("the node list removes this node")

// otherList reports whether a source running v runs another list than this
// node, and records it in the report: the caller may read that list, and
// merge it or take it (Newer is one rule for which). A source or a node
// that tells no version is taken as it is.
func (iv *interval) otherList(j int, v ListVersion) bool {
	mine := iv.node.List
	if !v.Known() || !mine.Known() || v == mine {
		return false
	}
	iv.report.Lists = append(iv.report.Lists, ListSeen{From: j, List: v})
	return true
}

// SetList moves the node, between two intervals, to the node list cfg at
// version v. Ids keep their meaning from one list to the next (a list never
// shrinks, and a removed id stays removed until given again as a reset id,
// see Config.Removed), so what the
// node knows of the nodes that stay is kept as it is; a new id starts
// Unknown, and the node catches up (Node.CatchUp) so that what it reports
// of the new nodes is not older news. It returns ErrRemoved, changing
// nothing, when the new list removes the node itself.
func (n *Node) SetList(cfg *Config, v ListVersion) error {
	return n.Renumber(cfg, v, nil, n.ID)
}

// Renumber is SetList for a list in which the ids of reset name other
// nodes than they did (two nodes added at once under one id at two nodes:
// the one that moved), and this node's own id is self. What the node knew
// of a reset id is forgotten: it starts Unknown as a new id does. A reset
// id may be one that was removed. A node whose own id moved forgets what it
// tested and pushed, as a restarted one does.
func (n *Node) Renumber(cfg *Config, v ListVersion, reset []int, self int) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if cfg.N < n.Config.N {
		return fmt.Errorf("the new list has %d ids, fewer than %d: ids are never taken back: %w", cfg.N, n.Config.N, ErrBadConfig)
	}
	for _, id := range n.Config.Removed {
		if !cfg.IsRemoved(id) && !slices.Contains(reset, id) {
			return fmt.Errorf("id %d was removed and comes back: %w", id, ErrBadConfig)
		}
	}
	if self < 0 || self >= cfg.N || cfg.IsRemoved(self) {
		return ErrRemoved
	}
	if cfg.N > n.Config.N {
		n.View = n.View.Grow(cfg.N)
		n.CatchUp = max(n.CatchUp, Levels(cfg.N))
	}
	for _, id := range reset {
		n.View.Set(id, Entry{})
		delete(n.pushed, id)
		delete(n.silent, id)
		delete(n.unreached, id)
		n.asked = slices.DeleteFunc(n.asked, func(a int) bool { return a == id })
		n.released = slices.DeleteFunc(n.released, func(r released) bool { return r.id == id })
	}
	if len(reset) > 0 {
		n.CatchUp = max(n.CatchUp, Levels(cfg.N))
	}
	if self != n.ID {
		n.ID, n.Next, n.pushed, n.asked, n.silent, n.unreached = self, 1, nil, nil, nil, nil
		e := n.View.Get(self)
		e.Status = FaultFree
		n.View.Set(self, e)
	}
	n.Config, n.List = cfg, v
	n.merged = nil // the digests were of sources on the old list
	return nil
}

// IsRemoved reports whether id was removed from the list.
func (c *Config) IsRemoved(id int) bool {
	if len(c.Removed) == 0 {
		return false
	}
	_, found := slices.BinarySearch(c.Removed, id)
	return found
}

// MembershipBound is the rounds a list change may take to reach every node
// running algo on n ids: the new list spreads as an event does
// (LatencyBound), then a node that joined is tested and spread as an event
// again; one more round is the one the change falls in.
func MembershipBound(algo Algorithm, n int) int { return 2*LatencyBound(algo, n) + 1 }
