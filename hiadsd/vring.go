package hiadsd

// vring tests i+1, i+2, ... until a source, and copies everything from it.
// It walks the ring in place: building the N-1 list each interval made the
// simulator allocate N^2 ids per round.
func (iv *interval) vring() {
	n := iv.node
	all := iv.m.everyID()
	for k := 1; k < n.Config.N; k++ {
		if j := (n.ID + k) % n.Config.N; iv.isSource(j, iv.test(j)) && iv.fetch(j, all, true) {
			break
		}
	}
	iv.settle()
}
