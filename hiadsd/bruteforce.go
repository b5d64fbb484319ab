package hiadsd

// bruteForce tests every other node and fetches nothing.
func (iv *interval) bruteForce() {
	for _, j := range iv.node.others() {
		iv.test(j)
	}
}
