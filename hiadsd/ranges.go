package hiadsd

// Range is the contiguous block of node ids Lo..Hi-1; a cluster is one Range
// and "everything" is Range{0, N}, which maps onto one GETBULK of DiagTree rows.
type Range struct {
	Lo, Hi int
}

// Len returns the number of ids in r.
func (r Range) Len() int { return max(r.Hi-r.Lo, 0) }

// InRanges reports whether id lies in one of ranges.
func InRanges(id int, ranges []Range) bool {
	for _, r := range ranges {
		if id >= r.Lo && id < r.Hi {
			return true
		}
	}
	return false
}

// Copied counts the ids of ranges that a fetch of them copies: all but
// self and the targets of tests, which were judged directly.
func Copied(ranges []Range, self int, tests []TestResult) int {
	c := 0
	for _, r := range ranges {
		c += r.Len()
	}
	for _, t := range tests {
		if InRanges(t.Target, ranges) {
			c--
		}
	}
	if InRanges(self, ranges) {
		c--
	}
	return c
}
