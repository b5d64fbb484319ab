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
