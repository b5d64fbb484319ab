package hiadsd

import "slices"

// vcube runs every assigned test, then takes newer entries from each node
// tested as a source (Algorithm 3 of seed 001). The assignment is recomputed
// from the view at the next interval, so it follows every event learned.
// With Config.Rotate it tests one cluster per interval (vcubeRotating).
func (iv *interval) vcube() {
	if iv.node.Config.Rotate {
		iv.vcubeRotating()
		return
	}
	if !iv.m.targeted { // planned once an interval (rotatingPlan says why)
		iv.m.targets, iv.m.targeted = iv.node.vcubeTargets(iv.m.nonTesterHeads(), iv.m.targets[:0]), true
	}
	targets := iv.m.targets
	iv.report.Tests = slices.Grow(iv.report.Tests, len(targets))
	iv.report.Fetches = slices.Grow(iv.report.Fetches, len(targets))
	for _, j := range targets {
		iv.test(j)
	}
	iv.fetchSources(0)
	iv.settle()
}

// fetchSources takes newer entries, for every id, from each node tested
// from the from-th test on that may be a source; it reports whether one
// answered.
func (iv *interval) fetchSources(from int) bool {
	all := iv.m.everyID()
	answered := false
	for _, t := range iv.report.Tests[from:] {
		if iv.isSource(t.Target, t.Status) && iv.fetch(t.Target, all, false) {
			answered = true
		}
	}
	return answered
}

// vcubeRotating is vCube with one cluster a interval: the node runs only
// the tests it is assigned in cluster s = Next, so every node is tested
// about once per interval instead of log2 N times, and s turns 1..log2 N
// with the intervals. When the nodes agree on s (the daemon derives it from
// the clock, the simulator from its time), the tests of an interval pair
// the nodes along one dimension of the hypercube: every node tests one and
// is tested by one, and in log2 N intervals what any node knows has reached
// every other, vCube's bound. A cluster that yields no source (its nodes
// faulty, tested-only or absent) is followed by the next, as Hi-ADSD does,
// so a node always reads some view, and one that is cut off tests every
// cluster (which self-suspicion needs: isolation.go).
func (iv *interval) vcubeRotating() {
	n := iv.node
	l := Levels(n.Config.N)
	s := n.level()
	iv.report.Level = s
	heads := iv.m.nonTesterHeads() // of n, the machine's node
	for k := 0; k < l; k++ {
		from := len(iv.report.Tests)
		for _, j := range iv.rotatingPlan(k, (s-1+k)%l+1, heads) {
			if !iv.wasTested(j) {
				iv.test(j)
			}
		}
		if iv.fetchSources(from) {
			break
		}
	}
	iv.settle()
	n.Next = s%l + 1
}

// rotatingPlan returns the targets of cluster s, the k-th the rotating pass
// tests. The first pass that plans it on real answers only keeps the plan
// for the interval: news taken midway (midway.go) changes the view a later
// pass starts from, and a plan made anew from it could pass over tests
// already answered, and their verdicts. A plan that rests on expected
// verdicts is made anew, since the real ones may differ.
func (iv *interval) rotatingPlan(k, s int, heads []int) []int {
	m := iv.m
	for len(m.plan) <= k {
		m.plan = append(m.plan, planned{})
	}
	if p := &m.plan[k]; p.made {
		return p.targets
	}
	targets := iv.node.rotatingTargets(s, heads)
	if !iv.expecting {
		m.plan[k] = planned{targets: targets, made: true}
	}
	return targets
}

// rotatingTargets returns, in increasing order, the nodes this node tests
// when the interval's cluster is s: those it is the first tester of in
// c(j,s), and those whose clusters c(j,s), c(j,s+1), ... (turning past
// log2 N to 1) hold no tester up to one of which it is the first tester.
// Every node is then tested every interval, also when its cluster s is
// empty (N not a power of two) or faulty throughout.
func (n *Node) rotatingTargets(s int, heads []int) []int {
	l := Levels(n.Config.N)
	out := n.vcubeTargetsAt(s, heads, nil)
	for k := 1; k < l; k++ {
		t := (s-1+k)%l + 1
		from := len(out)
		out = n.vcubeTargetsAt(t, heads, out)
		kept := out[:from]
		for _, j := range out[from:] {
			if n.noTesterFrom(j, s, t) {
				kept = append(kept, j)
			}
		}
		out = kept
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// noTesterFrom reports whether this node holds no tester in any of the
// clusters c(j,s), c(j,s+1), ... before c(j,t), turning past log2 N to 1.
func (n *Node) noTesterFrom(j, s, t int) bool {
	l := Levels(n.Config.N)
	for u := s; u != t; u = u%l + 1 {
		if n.firstTester(j, u) >= 0 {
			return false
		}
	}
	return true
}

// vcubeTargets appends to out, in increasing order, every j for which this
// node is the first node of c(j,s) it holds a fault-free tester, for some s;
// heads are its nonTesterHeads.
func (n *Node) vcubeTargets(heads, out []int) []int {
	l := Levels(n.Config.N)
	for s := 1; s <= l; s++ {
		out = n.vcubeTargetsAt(s, heads, out)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// vcubeTargetsAt appends to out every j for which this node is the first
// node of c(j,s) it holds a fault-free tester. Only clusters whose head is
// not such a tester (heads: nonTesterHeads) can name this node past their
// head, so the search walks the node's non-testers instead of all N ids.
func (n *Node) vcubeTargetsAt(s int, heads, out []int) []int {
	half := 1 << (s - 1)
	if j := n.ID ^ half; j < n.Config.N {
		out = append(out, j)
	}
	for _, q := range heads {
		if q>>(s-1) != n.ID>>(s-1) || q == n.ID {
			continue
		}
		if j := q ^ half; j < n.Config.N && n.firstTester(j, s) == n.ID {
			out = append(out, j)
		}
	}
	return out
}

// nonTesterHeads lists the ids that may head a cluster without being a
// tester in the plan of the machine's node n: held faulty or partial, tested-only, or absent (>= N)
// in n's own top-level half; the list is m's until the next call. An id
// held Unknown counts as a tester (firstTester).
func (m *Interval) nonTesterHeads() []int {
	n := m.node
	if m.addHead == nil { // made once: a closure made at each call escaped through the View, two allocations a node
		m.addHead = func(id int) {
			if !m.node.unknownTester(id) {
				m.heads = append(m.heads, id)
			}
		}
	}
	m.heads = m.heads[:0]
	n.View.EachNotFaultFree(m.addHead)
	out := append(m.heads, n.Config.TestedOnly...)
	out = append(out, n.Config.Removed...)
	if l := Levels(n.Config.N); l > 0 {
		lo := n.ID >> (l - 1) << (l - 1)
		for id := max(lo, n.Config.N); id < lo+1<<(l-1); id++ {
			out = append(out, id)
		}
	}
	m.heads = out
	return out
}

// firstTester returns the first node of c(j,s) this node holds a tester,
// or -1, for the test plan. A node held Unknown counts, as seed 002 starts
// every view fault-free: a restarted agent, whose view is Unknown, then
// tests what its plan names, reads a view and knows everything, where it
// tested all 255 peers in its first interval at N = 256 (4 minutes, its
// loop stalled meanwhile, and the repair was lost). A node held Unknown
// that is down is found by its own tester, and the next in c(j,s) takes
// over j then.
func (n *Node) firstTester(j, s int) int { return n.testerFrom(j, s, 0, true) }

// testerFrom returns the first node this node holds a tester among c(j,s)
// in its order (the k-th node is j ^ 2^(s-1) ^ k), starting at the k-th;
// -1 if none. With unknown, a node that could be a tester but is held
// Unknown (not heard of since this node started) counts too.
func (n *Node) testerFrom(j, s, k int, unknown bool) int {
	return n.testerIn(j, s, k, 1<<(s-1), unknown)
}

// testerIn is testerFrom among the k-th to the end-1-th nodes of c(j,s) only.
func (n *Node) testerIn(j, s, k, end int, unknown bool) int {
	p := j ^ 1<<(s-1)
	for ; k < end; k++ {
		t := p ^ k
		if t < n.Config.N && (n.isTester(t) || unknown && n.unknownTester(t)) {
			return t
		}
	}
	return -1
}

// unknownTester reports whether id is held Unknown and could be a tester.
func (n *Node) unknownTester(id int) bool {
	return n.View.Get(id).Status == Unknown && !n.Config.IsTestedOnly(id) && !n.Config.IsRemoved(id)
}
