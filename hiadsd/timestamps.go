package hiadsd

// hiadsdTimestamps tests clusters as Hi-ADSD does, but takes from the source
// j found the entries of c_{i,L,j}, the nodes i reaches through j in the
// hypercube TFF_i (seed 004, section 3.2 defines Hi-Comp's clusters "as in
// Hi-ADSD with Timestamps"): N/2 ids when j heads c_{i,s}, which holds all of
// c_{i,s}. A source deeper in c_{i,s} reaches fewer, so the rest of c_{i,s} is
// taken from it as in Hi-ADSD. Every node is heard of through many sources,
// and the event counters pick the newest.
func (iv *interval) hiadsdTimestamps() {
	n := iv.node
	all := []Range{{Lo: 0, Hi: n.Config.N}}
	iv.hierarchical(func(lvl int) bool {
		own := clusterRange(n.ID, lvl, n.Config.N)
		for _, j := range ClusterHiADSD(n.ID, lvl, n.Config.N) {
			if !iv.isSource(j, iv.test(j)) {
				continue
			}
			keep := func(y int) bool { return InCluster(n.ID, j, y) || inRanges(y, []Range{own}) }
			if _, ok := iv.fetchWhere(j, all, keep); ok {
				iv.report.Units += timestampUnits(n.ID, j, own, n.Config.N)
				return true
			}
		}
		return false
	})
}

// timestampUnits counts the entries a Timestamps source j supplies to i:
// c_{i,L,j} together with c_{i,s}, less j's own entry.
func timestampUnits(i, j int, own Range, n int) int {
	c := ClusterSize(i, j, n) - 1
	for y := own.Lo; y < own.Hi; y++ {
		if !InCluster(i, j, y) {
			c++
		}
	}
	return c
}
