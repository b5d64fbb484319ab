package hiadsd

// Range is the contiguous block of node ids Lo..Hi-1; a cluster is one Range
// and "everything" is Range{0, N}, which maps onto one GETBULK of DiagTree rows.
type Range struct {
	Lo, Hi int
}

// Len returns the number of ids in r.
func (r Range) Len() int { return max(r.Hi-r.Lo, 0) }

// Tester is what a node needs from the world during one testing interval.
type Tester interface {
	// Test tests node j now and returns FaultFree, Faulty or Partial.
	Test(j int) Status
	// Fetch returns node j's entries for the ids in ranges. It may leave out
	// entries that cannot be newer than the caller's own (the simulator leaves
	// out defaults); an error means j gave no information.
	Fetch(j int, ranges []Range) ([]IDEntry, error)
}

// inRanges reports whether id lies in one of ranges.
func inRanges(id int, ranges []Range) bool {
	for _, r := range ranges {
		if id >= r.Lo && id < r.Hi {
			return true
		}
	}
	return false
}
