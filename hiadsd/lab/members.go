package lab

import (
	"errors"
	"fmt"
	"hash/fnv"
	"slices"

	"github.com/diagagent/diagagent/hiadsd"
)

// The node-list changes of the in-memory Network: a node joins or leaves
// through one node, as an operator's SET or reload there does; the others
// learn the new list from the sources they fetch (Report.Lists) and switch
// to it between two intervals (Node.SetList), as the daemon does. Only
// the daemon's algorithms change lists.

// Version returns the newest list version made by Join or Leave.
func (nw *Network) Version() hiadsd.ListVersion { return nw.version }

// Join adds a node, fault-free, with the next id, through node via: via
// runs the new list at once, and the new node starts on it with an
// all-unknown view. It returns the new id.
func (nw *Network) Join(via int) (int, error) {
	if nw.algo.Research() {
		return 0, ErrResearch
	}
	if !nw.Testing(via) {
		return 0, fmt.Errorf("node %d is not testing, so no node can join through it: %w", via, hiadsd.ErrBadConfig)
	}
	cfg := *nw.hosts[via].node.Config
	cfg.N++
	if err := nw.change(via, &cfg); err != nil {
		return 0, err
	}
	id := cfg.N - 1
	nw.state, nw.hosts, nw.left = append(nw.state, hiadsd.FaultFree), append(nw.hosts, host{}), append(nw.left, false)
	return id, nw.boot(id, hiadsd.Entry{})
}

// Leave removes node id from the list through node via; id keeps
// answering until it learns the new list, and then stops testing.
func (nw *Network) Leave(id, via int) error {
	if nw.algo.Research() {
		return ErrResearch
	}
	if id == via || !nw.Testing(via) {
		return fmt.Errorf("node %d cannot remove node %d: %w", via, id, hiadsd.ErrBadConfig)
	}
	old := nw.hosts[via].node.Config
	if id < 0 || id >= old.N || old.IsRemoved(id) {
		return fmt.Errorf("node %d is not in node %d's list: %w", id, via, hiadsd.ErrBadConfig)
	}
	cfg := *old
	cfg.Removed = append(slices.Clone(old.Removed), id)
	slices.Sort(cfg.Removed)
	return nw.change(via, &cfg)
}

// change makes cfg the list node via runs, at the version after the newest.
func (nw *Network) change(via int, cfg *hiadsd.Config) error {
	v := hiadsd.ListVersion{Counter: max(nw.version.Counter, nw.hosts[via].node.List.Counter) + 1, Hash: listHash(cfg)}
	if err := nw.hosts[via].node.SetList(cfg, v); err != nil {
		return err
	}
	nw.cfg, nw.version = cfg, v
	return nil
}

// adopt switches node id, after an interval, to the newest list among the
// sources seen running a newer one; a list that removes id stops it.
func (nw *Network) adopt(id int, seen []hiadsd.ListSeen) error {
	best := -1
	for _, s := range seen {
		if src := nw.Node(s.From); src != nil && src.List.Newer(nw.hosts[id].node.List) && (best < 0 || src.List.Newer(nw.hosts[best].node.List)) {
			best = s.From
		}
	}
	if best < 0 {
		return nil
	}
	src := &nw.hosts[best].node
	err := nw.hosts[id].node.SetList(src.Config, src.List)
	if errors.Is(err, hiadsd.ErrRemoved) {
		nw.left[id] = true
		return nil
	}
	return err
}

// listHash fingerprints a list of the Network: its size, tested-only and
// removed ids.
func listHash(cfg *hiadsd.Config) uint64 {
	h := fnv.New64a()
	fmt.Fprint(h, cfg.N, cfg.TestedOnly, cfg.Removed)
	return h.Sum64() | 1
}
