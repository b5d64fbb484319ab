package hiadsd

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
)

// Network is an in-memory system of N nodes with true states, for the
// simulator and the tests. Nodes start converged (every view holds everyone
// fault-free, counter 0, as seed 002 initialises Hi-ADSD) on Sparse views.
type Network struct {
	cfg     *Config
	state   []Status    // the truth: FaultFree, Faulty or Partial
	nodes   []*Node     // nil for tested-only nodes
	views   []Sparse    // the nodes' views, side by side for locality
	buf     []IDEntry   // reused by every Fetch; Step reads it before the next call
	rng     *rand.Rand  // what faulty nodes answer to Hi-Comp's tasks
	m       Interval    // the one interval machine Step lends each node in turn
	left    []bool      // nodes that ran a list removing them: they answer, but test no more
	version ListVersion // the newest list made by Join or Leave
	digests bool        // tests bring the tested node's digest (SetDigests)
	cut     []bool      // nodes cut off the network (Cut): alive, but reaching no one
	cuts    int         // how many are cut off now
}

// NewNetwork returns a network of cfg.N fault-free nodes.
func NewNetwork(cfg *Config) (*Network, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	nw := &Network{cfg: cfg, state: make([]Status, cfg.N), nodes: make([]*Node, cfg.N), views: make([]Sparse, cfg.N),
		rng: rand.New(rand.NewPCG(1, 2)), left: make([]bool, cfg.N), cut: make([]bool, cfg.N), version: ListVersion{Hash: listHash(cfg)}}
	for id := range nw.state {
		nw.state[id] = FaultFree
		if !cfg.IsTestedOnly(id) {
			if err := nw.boot(id, Entry{Status: FaultFree}); err != nil {
				return nil, err
			}
		}
	}
	return nw, nil
}

// boot gives node id a fresh view whose every entry is def, on the newest
// list (Join, Leave), as an agent started from the file an operator wrote.
func (nw *Network) boot(id int, def Entry) error {
	var view *Sparse
	if id < len(nw.views) {
		nw.views[id] = *NewSparse(nw.cfg.N, def)
		view = &nw.views[id]
	} else {
		view = NewSparse(nw.cfg.N, def)
	}
	n, err := NewNode(nw.cfg, id, view)
	if err != nil {
		return err
	}
	n.List = nw.version
	nw.nodes[id] = n
	return nil
}

// view returns node id's view.
func (nw *Network) view(id int) *Sparse { return nw.nodes[id].View.(*Sparse) }

// Step runs one testing interval of node id against the network, on the
// network's one interval machine, so 65,536 nodes do not keep 65,536.
func (nw *Network) Step(id int) (Report, error) {
	if nw.nodes[id] == nil {
		return Report{}, fmt.Errorf("node %d: %w", id, ErrTestedOnly)
	}
	p := probe{nw: nw, self: id}
	nw.nodes[id].Digest = p.DigestOf(id)
	rep, err := nw.nodes[id].StepIn(p, &nw.m)
	if err != nil {
		return rep, err
	}
	return rep, nw.adopt(id, rep.Lists)
}

// Deliver hands node from's push p to its receiver, which merges it and
// returns what it passes on; a receiver that is not testing (down, or
// left) drops it (ErrNoAnswer), as a datagram to a dead host is lost.
func (nw *Network) Deliver(from int, p Push) (Report, error) {
	if p.To < 0 || p.To >= len(nw.nodes) || !nw.Testing(p.To) || nw.apart(from, p.To) {
		return Report{}, fmt.Errorf("push to node %d: %w", p.To, ErrNoAnswer)
	}
	return nw.nodes[p.To].Receive(from, p, nw.nodes[from].List)
}

// Reseed restarts the random source of faulty nodes' task outputs from seed.
func (nw *Network) Reseed(seed uint64) { nw.rng = rand.New(rand.NewPCG(seed, 2)) }

// Config returns the shared configuration.
func (nw *Network) Config() *Config { return nw.cfg }

// Node returns node id, or nil for a tested-only node.
func (nw *Network) Node(id int) *Node { return nw.nodes[id] }

// View returns node id's view, or nil for a tested-only node.
func (nw *Network) View(id int) *Sparse {
	if id >= len(nw.nodes) || nw.nodes[id] == nil {
		return nil
	}
	return nw.view(id)
}

// State returns the true status of node id.
func (nw *Network) State(id int) Status { return nw.state[id] }

// Testing reports whether node id runs testing intervals now.
func (nw *Network) Testing(id int) bool {
	return id < len(nw.state) && nw.state[id] == FaultFree && nw.nodes[id] != nil && !nw.left[id]
}

// SetState changes the truth about node id. Faulty and Partial stop its
// intervals; FaultFree after either restarts it with an all-unknown view.
func (nw *Network) SetState(id int, st Status) error {
	if id < 0 || id >= nw.cfg.N {
		return fmt.Errorf("node %d outside 0..%d: %w", id, nw.cfg.N-1, ErrBadConfig)
	}
	if st == Unknown {
		return fmt.Errorf("node %d cannot become %v: %w", id, st, ErrBadStatus)
	}
	was := nw.state[id]
	nw.state[id] = st
	if st == FaultFree && was != FaultFree && nw.nodes[id] != nil {
		return nw.boot(id, Entry{})
	}
	return nil
}

// Tester returns the Tester node id uses: tests read the truth and fetches
// read the tested node's view.
func (nw *Network) Tester(id int) Tester { return probe{nw: nw, self: id} }

// probe is one node's window on the network.
type probe struct {
	nw   *Network
	self int
}

// Test returns the true status of j.
func (p probe) Test(j int) Status {
	if p.nw.apart(p.self, j) {
		return Faulty
	}
	return p.nw.state[j]
}

// Cut cuts node id off the network (on) or plugs it back: while cut it is
// alive and keeps testing, but its tests, fetches and pushes reach no one,
// and no one's reach it, as with a pulled cable.
func (nw *Network) Cut(id int, on bool) error {
	if id < 0 || id >= len(nw.cut) {
		return fmt.Errorf("node %d outside 0..%d: %w", id, len(nw.cut)-1, ErrBadConfig)
	}
	switch {
	case on && !nw.cut[id]:
		nw.cuts++
	case !on && nw.cut[id]:
		nw.cuts--
	}
	nw.cut[id] = on
	return nil
}

// apart reports whether a and b, two nodes, cannot reach each other.
// Nodes that joined after NewNetwork are beyond cut and never cut off.
func (nw *Network) apart(a, b int) bool {
	return nw.cuts > 0 && a != b && (nw.isCut(a) || nw.isCut(b))
}

// isCut reports whether node id is cut off.
func (nw *Network) isCut(id int) bool { return id < len(nw.cut) && nw.cut[id] }

// Withholds tells whether node j withholds its view (Node.Withholds).
func (p probe) Withholds(j int) bool {
	n := p.nw.nodes[j]
	return n != nil && n.Withholds()
}

// Fetch returns j's entries in ranges. While the caller still holds some id
// Unknown it gets every entry; afterwards only j's stored (non-default)
// entries, as no default can be newer than a known entry.
func (p probe) Fetch(j int, ranges []Range) ([]IDEntry, error) {
	if !p.nw.Testing(j) || p.nw.apart(p.self, j) {
		return nil, fmt.Errorf("node %d is %v: %w", j, p.nw.state[j], ErrNoAnswer)
	}
	src, out := p.nw.view(j), p.nw.buf[:0]
	if p.nw.view(p.self).Unknowns() == 0 {
		out = src.AppendStored(out, ranges)
	} else {
		for _, r := range ranges {
			for id := r.Lo; id < min(r.Hi, src.Len()); id++ {
				out = append(out, IDEntry{ID: id, Entry: src.Get(id)})
			}
		}
	}
	p.nw.buf = out
	return out, nil
}

// SetDigests makes every test of a fault-free node bring its digest, so a
// fetch that would bring nothing new is skipped (digest.go), as the daemon's
// tests do; off, every fetch is made, as in the papers.
func (nw *Network) SetDigests(on bool) { nw.digests = on }

// DigestOf returns a digest of what a fetch of node j reads: its view's
// entries, its station and its list; 0 unless SetDigests is on.
func (p probe) DigestOf(j int) uint64 {
	n := p.nw.nodes[j]
	if !p.nw.digests || n == nil {
		return 0
	}
	st := n.Station
	a := st.Addr.As16()
	d := p.nw.view(j).Digest()
	d = d*31 + entryMix(int(a[12])<<24|int(a[13])<<16|int(a[14])<<8|int(a[15]), Entry{Counter: st.Counter})
	d = d*31 + entryMix(int(n.List.Hash>>32), Entry{Counter: n.List.Counter}) ^ n.List.Hash
	if d == 0 {
		d = 1 // 0 means none told
	}
	return d
}

// StationOf returns the station node j holds.
func (p probe) StationOf(j int) Station {
	if n := p.nw.nodes[j]; n != nil {
		return n.Station
	}
	return Station{}
}

// SetStation makes a the station at node id, as a SET of nmsID there does.
func (nw *Network) SetStation(id int, a netip.Addr) (StationChange, error) {
	if id < 0 || id >= nw.cfg.N || nw.nodes[id] == nil {
		return StationChange{}, fmt.Errorf("node %d cannot hold a station: %w", id, ErrBadConfig)
	}
	return nw.nodes[id].SetStation(a), nil
}

// Run returns j's output for a Hi-Comp task: the right one from a fault-free
// node, otherwise a random value with j+1 in its low 20 bits, so it differs
// from the right output and from every other node's (assertion 2 of seed 004,
// section 3.1, for N below 2^20).
func (p probe) Run(j int, task uint64) uint64 {
	want := TaskOutput(task)
	if p.nw.state[j] == FaultFree {
		return want
	}
	return want ^ (p.nw.rng.Uint64()<<20 | uint64(j+1))
}
