package hiadsd

// vring tests i+1, i+2, ... until a source, and copies everything from it.
func (iv *interval) vring() {
	iv.searchList(iv.node.ring(), []Range{{Lo: 0, Hi: iv.node.Config.N}})
}
