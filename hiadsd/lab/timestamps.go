package lab

import "github.com/diagagent/diagagent/hiadsd"

// hiadsdTimestamps tests clusters as Hi-ADSD does, but takes from the source
// j found the entries of c_{i,L,j}, the nodes i reaches through j in the
// hypercube TFF_i (seed 004, section 3.2 defines Hi-Comp's clusters "as in
// Hi-ADSD with Timestamps"): N/2 ids when j heads c_{i,s}, which holds all of
// c_{i,s}. A source deeper in c_{i,s} reaches fewer, so the rest of c_{i,s} is
// taken from it as in Hi-ADSD. Every node is heard of through many sources,
// and the event counters pick the newest.
func (r *run) hiadsdTimestamps() {
	b := r.b
	all := []hiadsd.Range{{Lo: 0, Hi: b.cfg.N}}
	r.hierarchical(func(lvl int) bool {
		own := clusterRange(b.id, lvl, b.cfg.N)
		for _, j := range hiadsd.ClusterHiADSD(b.id, lvl, b.cfg.N) {
			if !r.isSource(j, r.test(j)) {
				continue
			}
			keep := func(y int) bool { return InCluster(b.id, j, y) || hiadsd.InRanges(y, []hiadsd.Range{own}) }
			if _, ok := r.fetchWhere(j, all, keep); ok {
				r.report.Units += timestampUnits(b.id, j, own, b.cfg.N)
				return true
			}
		}
		return false
	})
}

// timestampUnits counts the entries a Timestamps source j supplies to i:
// c_{i,L,j} together with c_{i,s}, less j's own entry.
func timestampUnits(i, j int, own hiadsd.Range, n int) int {
	c := ClusterSize(i, j, n) - 1
	for y := own.Lo; y < own.Hi; y++ {
		if !InCluster(i, j, y) {
			c++
		}
	}
	return c
}
