package hiadsd

// hiadsdTimestamps tests clusters as Hi-ADSD does, but takes from the source
// found the entries of the whole half of the system that holds it, N/2 ids
// (seed 004, section 2.1.4): every node is then heard of through many sources,
// and the event counters pick the newest.
func (iv *interval) hiadsdTimestamps() {
	n := iv.node
	iv.hierarchical(func(lvl int) bool {
		for _, j := range ClusterHiADSD(n.ID, lvl, n.Config.N) {
			if iv.isSource(j, iv.test(j)) && iv.fetch(j, []Range{HalfOf(j, n.Config.N)}, true) {
				return true
			}
		}
		return false
	})
}

// HalfOf returns the aligned block of 2^(L-1) ids that holds j, clipped to n:
// the cluster a Hi-ADSD with Timestamps source reports on.
func HalfOf(j, n int) Range {
	l := Levels(n)
	if l == 0 {
		return Range{Lo: 0, Hi: n}
	}
	lo := j >> (l - 1) << (l - 1)
	return Range{Lo: lo, Hi: min(lo+1<<(l-1), n)}
}
