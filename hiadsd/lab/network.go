package lab

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"unsafe"

	"github.com/diagagent/diagagent/hiadsd"
)

// host is one of the core's nodes in the network's array, placed so that
// its station and list, which every fetch of it reads, share one cache
// line: hosts are a whole number of lines long (the array, a large
// allocation, starts on a page), and the node starts 16 octets in.
type host struct {
	_    [16]byte
	node hiadsd.Node
	_    [hostPad]byte
}

// hostPad rounds host up to a whole number of 64-octet cache lines, as
// hiadsd.Node's size changes: 1 to 64 octets (a zero-length last field
// would be padded by 8, off the lines).
const hostPad = 64 - (16+unsafe.Sizeof(hiadsd.Node{}))%64

// ErrNoAnswer means the node asked for entries, or pushed to, did not answer.
var ErrNoAnswer = errors.New("node gave no diagnostic information")

// ErrResearch refuses what only the daemon's algorithms do (pushes, node
// list changes, the station) on a network running a research algorithm.
var ErrResearch = errors.New("research algorithms run as the papers describe them: no pushes, list changes or station")

// Network is an in-memory system of N nodes with true states, for the
// simulator and the tests. Nodes start converged (every view holds everyone
// fault-free, counter 0, as seed 002 initialises Hi-ADSD) on Sparse views.
// The daemon's algorithms run on the core's nodes, driven through the same
// Interval machine the daemon drives (Begin, Ready, Advance), every batch
// answered from the truth and the other nodes' views; a research algorithm
// runs on the lab's own benches (research.go).
type Network struct {
	algo    Algorithm
	cfg     *hiadsd.Config
	state   []hiadsd.Status // the truth: FaultFree, Faulty or Partial
	hosts   []host          // the core's nodes, side by side (a fetch reads every source's station and list); a tested-only node's is the zero Node, and a research network has none
	benches []bench         // a research network's nodes; a tested-only node's is unused
	views   []Sparse        // the nodes' views, side by side for locality; a joiner's view is its own
	rng     *rand.Rand      // what faulty nodes answer to Hi-Comp's tasks
	m       hiadsd.Interval // the one interval machine Step lends each node in turn
	res     []hiadsd.Result // the answers to the machine's batch
	buf     []hiadsd.IDEntry
	held    []hiadsd.IDEntry   // the reader's own stored entries of a fetch's ranges (Config.Recheck)
	entries []hiadsd.IDEntry   // backs the entries of one interval's fetch answers
	left    []bool             // nodes that ran a list removing them: they answer, but test no more
	version hiadsd.ListVersion // the newest list made by Join or Leave
	digests bool               // tests bring the tested node's digest (SetDigests)
	cut     []bool             // nodes cut off the network (Cut): alive, but reaching no one
	cuts    int                // how many are cut off now
	lossy   map[int]int        // nodes whose link loses packets (Lossy): percent lost each way
	blocked map[[2]int]bool    // one-way reachability faults (Block): tests from [0] to [1] fail
	loss    *rand.Rand         // the lossy links' draws
	touched uint32             // what touch read, kept so that the reads are made
}

// NewNetwork returns a network of cfg.N fault-free nodes running the core's
// cfg.Algorithm with cfg's options; the nodes share cfg.
func NewNetwork(cfg *hiadsd.Config) (*Network, error) { return New(Algorithm(cfg.Algorithm), cfg) }

// New returns a network of cfg.N fault-free nodes running algo. For one of
// the core's algorithms it sets cfg.Algorithm and the nodes share cfg; a
// research algorithm takes N and TestedOnly from cfg, and refuses the
// daemon's options (Push, Rotate, Recheck, Isolation).
func New(algo Algorithm, cfg *hiadsd.Config) (*Network, error) {
	if err := algo.Validate(*cfg); err != nil {
		return nil, err
	}
	if c, ok := algo.Core(); ok {
		cfg.Algorithm = c
	}
	nw := &Network{algo: algo, cfg: cfg, state: make([]hiadsd.Status, cfg.N), views: make([]Sparse, cfg.N),
		rng: rand.New(rand.NewPCG(1, 2)), left: make([]bool, cfg.N), cut: make([]bool, cfg.N)}
	if algo.Research() {
		nw.benches = make([]bench, cfg.N)
	} else {
		nw.hosts, nw.version = make([]host, cfg.N), hiadsd.ListVersion{Hash: listHash(cfg)}
	}
	for id := range nw.state {
		nw.state[id] = hiadsd.FaultFree
		if !cfg.IsTestedOnly(id) {
			if err := nw.boot(id, hiadsd.Entry{Status: hiadsd.FaultFree}); err != nil {
				return nil, err
			}
		}
	}
	return nw, nil
}

// boot gives node id a fresh view whose every entry is def, on the newest
// list (Join, Leave), as an agent started from the file an operator wrote.
func (nw *Network) boot(id int, def hiadsd.Entry) error {
	var view *Sparse
	if id < len(nw.views) {
		nw.views[id] = *NewSparse(nw.cfg.N, def)
		view = &nw.views[id]
	} else {
		view = NewSparse(nw.cfg.N, def)
	}
	if nw.algo.Research() {
		nw.benches[id] = newBench(nw.cfg, id, view)
		return nil
	}
	n, err := hiadsd.NewNode(nw.cfg, id, view)
	if err != nil {
		return err
	}
	n.List = nw.version
	nw.hosts[id].node = *n
	return nil
}

// Algorithm returns the algorithm the network runs.
func (nw *Network) Algorithm() Algorithm { return nw.algo }

// view returns node id's view.
func (nw *Network) view(id int) *Sparse {
	if id < len(nw.views) {
		return &nw.views[id]
	}
	return nw.hosts[id].node.View.(*Sparse) // a joiner's
}

// Step runs one testing interval of node id against the network and
// returns what it did.
func (nw *Network) Step(id int) (Report, error) {
	if nw.cfg.IsTestedOnly(id) {
		return Report{}, fmt.Errorf("node %d: %w", id, hiadsd.ErrTestedOnly)
	}
	if nw.algo.Research() {
		return nw.research(id), nil
	}
	n := &nw.hosts[id].node
	n.Digest = nw.digestOf(id)
	if err := nw.m.Begin(n); err != nil {
		return Report{}, err
	}
	nw.entries = nw.entries[:0]
	for !nw.m.Done() {
		if err := nw.m.Advance(nw.answer(id, nw.m.Ready())); err != nil {
			return Report{}, err
		}
	}
	rep := Report{Report: nw.m.Report()}
	return rep, nw.adopt(id, rep.Lists)
}

// answer answers one batch of node self's machine from the network: a test
// reads the truth (and, of a fault-free node, its digest and whether it
// withholds its view), a fetch reads the source's view, station and list.
func (nw *Network) answer(self int, ops []hiadsd.Op) []hiadsd.Result {
	nw.touch(ops)
	res := nw.res[:0]
	for _, op := range ops {
		res = append(res, hiadsd.Result{})
		r := &res[len(res)-1] // built in place: a Result is a few cache lines
		switch op.Kind {
		case hiadsd.OpTest:
			r.Status, r.Sent, r.Unanswered = nw.testOnce(self, op.Target)
			held := hiadsd.Unknown
			if nw.cfg.Vantage > 0 && (nw.lossy != nil || nw.blocked != nil) { // else no node answers in part
				held = nw.view(self).Get(op.Target).Status
			}
			hint := r.Status == hiadsd.FaultFree && held == hiadsd.FaultFree && r.Unanswered == 1
			lost := r.Status == hiadsd.FaultFree && held == hiadsd.FaultFree &&
				(r.Unanswered >= 2 || nw.Node(op.Target) != nil && nw.Node(op.Target).SeesLoss()) // it says it sees loss
			hint = hint && !lost // one request lost: the burst ends if clean, and asks the others at its first loss
			if (r.Status != hiadsd.FaultFree || lost) && len(op.Via) > 0 {
				r.Seen = nw.second(self, op.Target, op.Via)
			}
			if held != hiadsd.Unknown && (r.Status != hiadsd.FaultFree && r.Status != held || held == hiadsd.Degraded || lost || hint) {
				clean, was := 0, r.Unanswered
				if hint {
					clean = hiadsd.CleanRequests
				}
				r.Status, r.Sent, r.Unanswered = nw.measure(self, op.Target, r.Status, r.Sent, r.Unanswered, clean)
				if hint && r.Unanswered > was && len(op.Via) > 0 {
					r.Seen = nw.second(self, op.Target, op.Via)
				}
			}
			if r.Status == hiadsd.FaultFree {
				r.Digest = nw.digestOf(op.Target)
				r.Withheld = nw.cfg.Isolation > 0 && nw.withholds(op.Target) // none withholds without self-suspicion
			}
		case hiadsd.OpFetch:
			got, err := nw.fetch(self, op.Target, op.Ranges)
			lo := len(nw.entries)
			nw.entries = append(nw.entries, got...) // got is reused by the next fetch
			r.Entries, r.Err = nw.entries[lo:len(nw.entries):len(nw.entries)], err
			if err == nil {
				r.Station, r.List = nw.hosts[op.Target].node.Station, nw.hosts[op.Target].node.List
			}
		}
	}
	nw.res = res
	return res
}

// touch reads, for every fetch of ops, the words of its source that the
// answer reads, one after the other: the reads miss the cache at 65,536
// nodes, and issued together they wait for memory once, not once each.
func (nw *Network) touch(ops []hiadsd.Op) {
	var sum uint32
	for _, op := range ops {
		if op.Kind == hiadsd.OpFetch && op.Target < len(nw.views) {
			n := &nw.hosts[op.Target].node
			sum += n.Station.Counter + uint32(n.List.Hash) + uint32(len(nw.views[op.Target].diff))
		}
	}
	nw.touched = sum
}

// Deliver hands node from's push p to its receiver, which merges it and
// returns what it passes on; a receiver that is not testing (down, or
// left) drops it (ErrNoAnswer), as a datagram to a dead host is lost.
func (nw *Network) Deliver(from int, p hiadsd.Push) (Report, error) {
	if nw.algo.Research() {
		return Report{}, ErrResearch
	}
	if p.To < 0 || p.To >= len(nw.hosts) || !nw.Testing(p.To) || nw.apart(from, p.To) {
		return Report{}, fmt.Errorf("push to node %d: %w", p.To, ErrNoAnswer)
	}
	rep, err := nw.hosts[p.To].node.Receive(from, p, nw.hosts[from].node.List)
	return Report{Report: rep}, err
}

// Reseed restarts the random source of faulty nodes' task outputs from seed.
func (nw *Network) Reseed(seed uint64) { nw.rng = rand.New(rand.NewPCG(seed, 2)) }

// Config returns the shared configuration.
func (nw *Network) Config() *hiadsd.Config { return nw.cfg }

// Node returns the core's node id, nil for a tested-only node and on a
// research network.
func (nw *Network) Node(id int) *hiadsd.Node {
	if nw.hosts == nil || nw.hosts[id].node.Config == nil {
		return nil
	}
	return &nw.hosts[id].node
}

// SetNext makes level the Hi-ADSD (or rotating vCube) cluster node id
// tests next.
func (nw *Network) SetNext(id, level int) {
	if nw.algo.Research() {
		nw.benches[id].next = level
	} else if n := nw.Node(id); n != nil {
		n.Next = level
	}
}

// View returns node id's view, or nil for a tested-only node.
func (nw *Network) View(id int) *Sparse {
	if id >= len(nw.state) || nw.cfg.IsTestedOnly(id) {
		return nil
	}
	return nw.view(id)
}

// State returns the true status of node id.
func (nw *Network) State(id int) hiadsd.Status { return nw.state[id] }

// Testing reports whether node id runs testing intervals now.
func (nw *Network) Testing(id int) bool {
	return id < len(nw.state) && nw.state[id] == hiadsd.FaultFree && !nw.cfg.IsTestedOnly(id) && !nw.left[id]
}

// SetState changes the truth about node id. Faulty and Partial stop its
// intervals; FaultFree after either restarts it with an all-unknown view.
func (nw *Network) SetState(id int, st hiadsd.Status) error {
	if id < 0 || id >= len(nw.state) {
		return fmt.Errorf("node %d outside 0..%d: %w", id, len(nw.state)-1, hiadsd.ErrBadConfig)
	}
	if st == hiadsd.Unknown {
		return fmt.Errorf("node %d cannot become %v: %w", id, st, hiadsd.ErrBadStatus)
	}
	was := nw.state[id]
	nw.state[id] = st
	if st == hiadsd.FaultFree && was != hiadsd.FaultFree && !nw.cfg.IsTestedOnly(id) {
		return nw.boot(id, hiadsd.Entry{})
	}
	return nil
}

// test returns what node self's test of j finds: the truth, or Faulty when
// the two cannot reach each other.
func (nw *Network) test(self, j int) hiadsd.Status {
	if nw.apart(self, j) {
		return hiadsd.Faulty
	}
	return nw.state[j]
}

// testOnce is test with the lossy links' and one-way faults, and the
// requests it sent and lost: a test sends up to testRequests requests,
// each lost when it or its reply is lost on a lossy link, and finds the
// node partial when all are (its echo gets through); a blocked way from
// self to j makes it faulty.
func (nw *Network) testOnce(self, j int) (st hiadsd.Status, sent, unanswered int) {
	st = nw.test(self, j)
	switch {
	case st != hiadsd.FaultFree:
		return st, 1, 1
	case len(nw.blocked) > 0 && nw.blocked[[2]int{self, j}]:
		return hiadsd.Faulty, testRequests, testRequests
	}
	for sent < testRequests {
		sent++
		if !nw.lost(self, j) && !nw.lost(j, self) {
			return hiadsd.FaultFree, sent, unanswered
		}
		unanswered++
	}
	return hiadsd.Partial, sent, unanswered
}

// testRequests is how many requests a lab test sends before it gives up,
// as the daemon's first try with test.retries 3.
const testRequests = 4

// lost draws whether a datagram from a to b is lost on a lossy link: each
// of the two links it crosses loses its percent.
func (nw *Network) lost(a, b int) bool {
	if len(nw.lossy) == 0 {
		return false
	}
	for _, id := range []int{a, b} {
		if pct := nw.lossy[id]; pct > 0 && nw.loss.IntN(100) < pct {
			return true
		}
	}
	return false
}

// second answers the questions node self asks of via about j: each asked
// agent's own test of j, Unknown where the question or its answer is lost.
func (nw *Network) second(self, j int, via []int) []hiadsd.Status {
	out := make([]hiadsd.Status, len(via))
	for k, h := range via {
		if !nw.Testing(h) || nw.apart(self, h) || nw.lost(self, h) || nw.lost(h, self) {
			continue
		}
		st, sent, unanswered := nw.testOnce(h, j)
		st, sent, unanswered = nw.measure(h, j, st, sent, unanswered, 0)
		n := &nw.hosts[h].node
		out[k] = hiadsd.Answer(st, n.View.Get(j).Status, sent, unanswered, !n.Doubting() && !n.SeesLoss() && n.Calm())
	}
	return out
}

// measure adds to a test of j by self that found st, having sent and lost
// requests, the hiadsd.ConfirmRequests the daemon spreads over a re-test
// of a new failure, a test of a node held degraded, or held fault-free
// whose answer lost a request or that says it sees loss, and a test
// answering another agent's question: a live node that answers one of them is
// fault-free (or degraded: hiadsd.Heavy), whatever the test found before.
// With clean set, the first clean requests all answered end it, as the
// daemon's burst on a hint of loss; and it ends, as the daemon's, once its
// verdict is settled (hiadsd.Settled).
func (nw *Network) measure(self, j int, st hiadsd.Status, sent, unanswered, clean int) (hiadsd.Status, int, int) {
	down := nw.test(self, j) != hiadsd.FaultFree || len(nw.blocked) > 0 && nw.blocked[[2]int{self, j}]
	first, answered, lost := 0, 0, 0
	for k := range hiadsd.ConfirmRequests {
		if hiadsd.Settled(hiadsd.ConfirmRequests, answered, lost) {
			break
		}
		if down || nw.lost(self, j) || nw.lost(j, self) {
			lost++
			continue
		}
		answered++
		st = hiadsd.FaultFree
		if k < clean {
			if first++; first == clean {
				break
			}
		}
	}
	return st, sent + answered + lost, unanswered + lost
}

// Lossy makes node id's link lose pct percent of the datagrams it sends
// and of those it receives (0 repairs it), with draws from seed: its tests
// and the tests of it fail now and then, as do its questions.
func (nw *Network) Lossy(id, pct int, seed uint64) {
	if nw.lossy == nil {
		nw.lossy = map[int]int{}
	}
	nw.lossy[id] = pct
	nw.loss = rand.New(rand.NewPCG(seed, 3))
}

// Block makes the tests from node a to node b fail (on) or pass again: a
// host firewall or a switch ACL that lets some agents reach b and not a.
func (nw *Network) Block(a, b int, on bool) {
	if nw.blocked == nil {
		nw.blocked = map[[2]int]bool{}
	}
	if on {
		nw.blocked[[2]int{a, b}] = true
	} else {
		delete(nw.blocked, [2]int{a, b})
	}
}

// Finds returns what a test by node self of node j would find now,
// without making it: what a sweep (hiadsd.Grouper.Swept) hears.
func (nw *Network) Finds(self, j int) hiadsd.Status { return nw.test(self, j) }

// Cut cuts node id off the network (on) or plugs it back: while cut it is
// alive and keeps testing, but its tests, fetches and pushes reach no one,
// and no one's reach it, as with a pulled cable.
func (nw *Network) Cut(id int, on bool) error {
	if id < 0 || id >= len(nw.cut) {
		return fmt.Errorf("node %d outside 0..%d: %w", id, len(nw.cut)-1, hiadsd.ErrBadConfig)
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
// Nodes that joined after New are beyond cut and never cut off.
func (nw *Network) apart(a, b int) bool {
	return nw.cuts > 0 && a != b && (nw.isCut(a) || nw.isCut(b))
}

// isCut reports whether node id is cut off.
func (nw *Network) isCut(id int) bool { return id < len(nw.cut) && nw.cut[id] }

// withholds tells whether node j withholds its view (Node.Withholds).
func (nw *Network) withholds(j int) bool {
	return nw.hosts[j].node.Withholds()
}

// fetch returns j's entries in ranges, as node self reads them. While self
// still holds some id Unknown it gets every entry; afterwards only j's
// stored (non-default) entries, as no default can be newer than a known
// entry, and, with Config.Recheck, j's default entry for each id that self
// holds otherwise, since a default can disagree with it (settle). The
// slices are reused by the next fetch.
func (nw *Network) fetch(self, j int, ranges []hiadsd.Range) ([]hiadsd.IDEntry, error) {
	if !nw.Testing(j) || nw.apart(self, j) {
		return nil, fmt.Errorf("node %d is %v: %w", j, nw.state[j], ErrNoAnswer)
	}
	src, out := nw.view(j), nw.buf[:0]
	if mine := nw.view(self); mine.Unknowns() == 0 {
		out = src.AppendStored(out, ranges)
		if nw.cfg.Recheck {
			nw.held = mine.AppendStored(nw.held[:0], ranges)
			for _, ie := range nw.held {
				if e := src.Get(ie.ID); e == src.Default() && e.Status != ie.Entry.Status {
					out = append(out, hiadsd.IDEntry{ID: ie.ID, Entry: e})
				}
			}
		}
	} else {
		for _, r := range ranges {
			for id := r.Lo; id < min(r.Hi, src.Len()); id++ {
				out = append(out, hiadsd.IDEntry{ID: id, Entry: src.Get(id)})
			}
		}
	}
	nw.buf = out
	return out, nil
}

// SetDigests makes every test of a fault-free node bring its digest, so a
// fetch that would bring nothing new is skipped, as the daemon's tests do;
// off, every fetch is made, as in the papers.
func (nw *Network) SetDigests(on bool) { nw.digests = on }

// digestOf returns a digest of what a fetch of node j reads: its view's
// entries, its station and its list; 0 unless SetDigests is on.
func (nw *Network) digestOf(j int) uint64 {
	if !nw.digests {
		return 0
	}
	n := nw.Node(j)
	if n == nil {
		return 0
	}
	a := n.Station.Addr.As16()
	d := nw.view(j).Digest()
	d = d*31 + entryMix(int(a[12])<<24|int(a[13])<<16|int(a[14])<<8|int(a[15]), hiadsd.Entry{Counter: n.Station.Counter})
	d = d*31 + entryMix(int(n.List.Hash>>32), hiadsd.Entry{Counter: n.List.Counter}) ^ n.List.Hash
	if d == 0 {
		d = 1 // 0 means none told
	}
	return d
}

// SetStation makes a the station at node id, as a SET of nmsID there does.
func (nw *Network) SetStation(id int, a netip.Addr) (hiadsd.StationChange, error) {
	if nw.algo.Research() {
		return hiadsd.StationChange{}, ErrResearch
	}
	if id < 0 || id >= nw.cfg.N || nw.Node(id) == nil {
		return hiadsd.StationChange{}, fmt.Errorf("node %d cannot hold a station: %w", id, hiadsd.ErrBadConfig)
	}
	n := &nw.hosts[id].node
	old := n.Station
	n.Station = hiadsd.Station{Addr: a, Counter: old.Counter + 1}
	return hiadsd.StationChange{Old: old, New: n.Station, From: hiadsd.Direct}, nil
}
