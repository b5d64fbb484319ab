package hiadsd

// hiadsd tests one cluster c_{i,s}, going on to the next level in the same
// interval while no source is found; s advances by one per interval.
func (iv *interval) hiadsd() {
	n := iv.node
	l := Levels(n.Config.N)
	s := n.level()
	iv.report.Level = s
	for k := 0; k < l; k++ {
		lvl := (s-1+k)%l + 1
		rng := clusterRange(n.ID, lvl, n.Config.N)
		if iv.searchList(ClusterHiADSD(n.ID, lvl, n.Config.N), []Range{rng}) {
			break
		}
	}
	n.Next = s%l + 1
}

// vring tests i+1, i+2, ... until a source, and copies everything from it.
func (iv *interval) vring() {
	iv.searchList(iv.node.ring(), []Range{{Lo: 0, Hi: iv.node.Config.N}})
}

// bruteForce tests every other node and fetches nothing.
func (iv *interval) bruteForce() {
	for _, j := range iv.node.others() {
		iv.test(j)
	}
}

// vcube runs every assigned test, then takes newer entries from each node
// tested as a source (Algorithm 3 of seed 001). The assignment is recomputed
// from the view at the next interval, so it follows every event learned.
func (iv *interval) vcube() {
	targets := iv.node.vcubeTargets()
	iv.report.Tests = make([]TestResult, 0, len(targets))
	iv.report.Fetches = make([]FetchResult, 0, len(targets))
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
