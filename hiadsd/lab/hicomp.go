package lab

import (
	"math/bits"

	"github.com/diagagent/diagagent/hiadsd"
)

// TaskOutput is the correct output of task, what every fault-free node computes
// (the splitmix64 finaliser: cheap, and different tasks give different outputs).
func TaskOutput(task uint64) uint64 {
	z := task + 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// runTask returns node j's output for a Hi-Comp task (seed 004, chapter 3):
// the right one from a fault-free node, otherwise a random value with j+1
// in its low 20 bits, so it differs from the right output and from every
// other node's (assertion 2 of seed 004, section 3.1, for N below 2^20).
func (r *run) runTask(j int, task uint64) uint64 {
	want := TaskOutput(task)
	if r.nw.state[j] == hiadsd.FaultFree {
		return want
	}
	return want ^ (r.nw.rng.Uint64()<<20 | uint64(j+1))
}

// hicomp is the scratch state of one Hi-Comp interval: the sets U (undefined)
// and FF (fault-free) of section 3.2.2, and which ids a fetched cluster covered.
type hicomp struct {
	r     *run
	tasks uint64
	u, ff []int
	kids  int   // xor bits of the children whose cluster was fetched
	deep  []int // xors (with this node) of other nodes whose cluster was fetched
}

// hicomp sends tasks to pairs of this node's children in TFF_i, going down a
// row of TFF_i while no pair compares equal; undefined nodes are settled
// against a fault-free one (or, alone, against this node itself), and every
// node no fetched cluster covered is compared with a fault-free one.
func (r *run) hicomp() {
	h := &hicomp{r: r}
	for d := 1; d <= hiadsd.Levels(r.b.cfg.N) && len(h.ff) == 0; d++ {
		h.row(Row(r.b.id, d, r.b.cfg.N))
	}
	h.finish()
	r.report.Tasks = int(h.tasks)
}

// Row returns the nodes at diagnostic distance d from i in TFF_i (the ids
// whose xor with i has d bits set), ordered by that xor: row 1 is the
// children i^1, i^2, i^4, ...
func Row(i, d, n int) []int {
	var out []int
	if d == 1 {
		for x := 1; x < 1<<hiadsd.Levels(n); x <<= 1 {
			if i^x < n {
				out = append(out, i^x)
			}
		}
		return out
	}
	for x := 1; x < 1<<hiadsd.Levels(n); x++ {
		if bits.OnesCount(uint(x)) == d && i^x < n {
			out = append(out, i^x)
		}
	}
	return out
}

// InCluster reports whether y is in c_{i,L,p}, the nodes i hears of through p:
// the descendants of p in TFF_i, those whose xor with i contains p's.
func InCluster(i, p, y int) bool {
	x := i ^ p
	return (i^y)&x == x
}

// row tests the nodes of one row two by two; an odd last one goes alone.
func (h *hicomp) row(nodes []int) {
	for k := 0; k < len(nodes); k += 2 {
		if k+1 == len(nodes) {
			h.single(nodes[k], -1)
			continue
		}
		p, q := nodes[k], nodes[k+1]
		if h.compare(p, q) {
			h.good(p)
			h.good(q)
			continue
		}
		h.single(p, -1)
		if h.verdict(p) == hiadsd.FaultFree {
			h.bad(q) // p is fault-free and q disagreed with it
			continue
		}
		h.single(q, p)
	}
}

// single settles p against a fault-free node if one is known, else against
// the undefined ones other than skip (already compared with p); failing
// that, p joins U.
func (h *hicomp) single(p, skip int) {
	if len(h.ff) > 0 {
		h.settle(p, h.ff[0])
		return
	}
	for k, other := range h.u {
		if other == skip || h.verdict(other) != hiadsd.Unknown || !h.compare(p, other) {
			continue
		}
		h.good(p)
		h.good(other)
		for _, rest := range h.u[k+1:] {
			h.bad(rest)
		}
		for _, rest := range h.u[:k] {
			h.bad(rest)
		}
		h.u = nil
		return
	}
	h.u = append(h.u, p)
}

// settle compares p with m, known fault-free, and records the outcome.
func (h *hicomp) settle(p, m int) {
	if h.compare(p, m) {
		h.good(p)
	} else {
		h.bad(p)
	}
}

// finish settles what the rows left: U and every id no cluster covered, against
// a fault-free node; with none, against this node's own output.
func (h *hicomp) finish() {
	if len(h.ff) == 0 {
		h.alone()
		return
	}
	m := h.ff[0]
	for _, p := range h.u {
		if h.verdict(p) == hiadsd.Unknown {
			h.settle(p, m)
		}
	}
	h.u = nil
	i, n := h.r.b.id, h.r.b.cfg.N
	free := (1<<hiadsd.Levels(n) - 1) &^ h.kids // ids outside every child's cluster differ from i only here
	for x := free; x != 0; x = (x - 1) & free {
		if y := i ^ x; y < n && !h.coveredDeep(x) && h.verdict(y) == hiadsd.Unknown {
			h.settle(y, m)
		}
	}
}

// coveredDeep reports whether the node at xor x lies in the cluster of a
// fetched node that is not a child.
func (h *hicomp) coveredDeep(x int) bool {
	for _, d := range h.deep {
		if x&d == d {
			return true
		}
	}
	return false
}

// alone compares every undefined node with this node, which holds itself
// fault-free: the first match is fault-free and the rest faulty.
func (h *hicomp) alone() {
	for k, p := range h.u {
		if h.verdict(p) != hiadsd.Unknown {
			continue
		}
		h.tasks++
		task := h.task()
		if h.r.runTask(p, task) != TaskOutput(task) {
			h.bad(p)
			continue
		}
		h.good(p)
		for _, rest := range h.u[k+1:] {
			h.bad(rest)
		}
		break
	}
	h.u = nil
}

// compare sends one task to p and q and reports whether their outputs match.
func (h *hicomp) compare(p, q int) bool {
	h.tasks++
	task := h.task()
	return h.r.runTask(p, task) == h.r.runTask(q, task)
}

// task names the next task: this node's id and a per-interval count.
func (h *hicomp) task() uint64 { return uint64(h.r.b.id)<<32 | h.tasks }

// verdict returns what this interval decided about p, hiadsd.Unknown if nothing.
func (h *hicomp) verdict(p int) hiadsd.Status {
	if !h.r.tested[p] {
		return hiadsd.Unknown
	}
	return h.r.b.view.Get(p).Status
}

// good records p fault-free and takes c_{i,L,p} from it, N/2-1 units.
func (h *hicomp) good(p int) {
	if h.verdict(p) == hiadsd.FaultFree {
		return
	}
	h.r.record(p, hiadsd.FaultFree)
	h.ff = append(h.ff, p)
	if h.r.b.cfg.IsTestedOnly(p) {
		return
	}
	i, n := h.r.b.id, h.r.b.cfg.N
	keep := func(y int) bool { return InCluster(i, p, y) }
	if _, ok := h.r.fetchWhere(p, []hiadsd.Range{{Lo: 0, Hi: n}}, keep); !ok {
		return
	}
	x := i ^ p
	if bits.OnesCount(uint(x)) == 1 {
		h.kids |= x
	} else {
		h.deep = append(h.deep, x)
	}
	h.r.report.Units += ClusterSize(i, p, n) - 1
}

// ClusterSize returns how many ids below n lie in c_{i,L,p}, p included:
// N/2 for a child when N is a power of two.
func ClusterSize(i, p, n int) int {
	x, l := i^p, hiadsd.Levels(n)
	if n == 1<<l {
		return 1 << (l - bits.OnesCount(uint(x)))
	}
	c := 0
	for y := 0; y < n; y++ {
		if InCluster(i, p, y) {
			c++
		}
	}
	return c
}

// bad records p faulty.
func (h *hicomp) bad(p int) {
	if h.verdict(p) == hiadsd.Unknown {
		h.r.record(p, hiadsd.Faulty)
	}
}
