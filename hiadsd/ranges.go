package hiadsd

// Range is the contiguous block of node ids Lo..Hi-1; a cluster is one Range
// and "everything" is Range{0, N}, which maps onto one GETBULK of DiagTree rows.
type Range struct {
	Lo, Hi int
}

// Len returns the number of ids in r.
func (r Range) Len() int { return max(r.Hi-r.Lo, 0) }

// inRanges reports whether id lies in one of ranges.
func inRanges(id int, ranges []Range) bool {
	for _, r := range ranges {
		if id >= r.Lo && id < r.Hi {
			return true
		}
	}
	return false
}
