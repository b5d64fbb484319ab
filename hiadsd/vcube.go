package hiadsd

import "slices"

// vcube runs every assigned test, then takes newer entries from each node
// tested as a source (Algorithm 3 of seed 001). The assignment is recomputed
// from the view at the next interval, so it follows every event learned.
func (iv *interval) vcube() {
	if iv.m.targets == nil { // every pass of the interval starts from the same view
		iv.m.targets = iv.node.vcubeTargets()
	}
	targets := iv.m.targets
	iv.report.Tests = slices.Grow(iv.report.Tests, len(targets))
	iv.report.Fetches = slices.Grow(iv.report.Fetches, len(targets))
	for _, j := range targets {
		iv.test(j)
	}
	all := []Range{{Lo: 0, Hi: iv.node.Config.N}}
	for _, t := range iv.report.Tests {
		if iv.isSource(t.Target, t.Status) {
			iv.fetch(t.Target, all, false)
		}
	}
}

// vcubeTargets returns, in increasing order, every j for which this node is the
// first node of c(j,s) it holds a fault-free tester, for some s. Only clusters
// whose head is not such a tester can name this node past their head, so the
// search walks the node's non-testers instead of all N ids.
func (n *Node) vcubeTargets() []int {
	cfg := n.Config
	l := Levels(cfg.N)
	out := make([]int, 0, l)
	heads := n.nonTesterHeads()
	for s := 1; s <= l; s++ {
		half := 1 << (s - 1)
		if j := n.ID ^ half; j < cfg.N {
			out = append(out, j)
		}
		for _, q := range heads {
			if q>>(s-1) != n.ID>>(s-1) || q == n.ID {
				continue
			}
			if j := q ^ half; j < cfg.N && n.firstTester(j, s) == n.ID {
				out = append(out, j)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// nonTesterHeads lists the ids that may head a cluster without being a tester
// in this node's view: not held fault-free, tested-only, or absent (>= N) in
// the node's own top-level half.
func (n *Node) nonTesterHeads() []int {
	var out []int
	n.View.EachNotFaultFree(func(id int) { out = append(out, id) })
	out = append(out, n.Config.TestedOnly...)
	out = append(out, n.Config.Removed...)
	if l := Levels(n.Config.N); l > 0 {
		lo := n.ID >> (l - 1) << (l - 1)
		for id := max(lo, n.Config.N); id < lo+1<<(l-1); id++ {
			out = append(out, id)
		}
	}
	return out
}

// firstTester returns the first node of c(j,s) this node holds a tester, or -1.
func (n *Node) firstTester(j, s int) int { return n.testerFrom(j, s, 0) }

// testerFrom returns the first node this node holds a tester among c(j,s)
// in its order (the k-th node is j ^ 2^(s-1) ^ k), starting at the k-th;
// -1 if none.
func (n *Node) testerFrom(j, s, k int) int {
	half := 1 << (s - 1)
	p := j ^ half
	for ; k < half; k++ {
		t := p ^ k
		if t < n.Config.N && n.isTester(t) {
			return t
		}
	}
	return -1
}
