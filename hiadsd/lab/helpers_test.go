package lab

// targets lists the nodes an interval tested, in order.
func targets(r Report) []int {
	var out []int
	for _, tr := range r.Tests {
		out = append(out, tr.Target)
	}
	return out
}
