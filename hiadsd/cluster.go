package hiadsd

import "math/bits"

// Levels returns L = ceil(log2 n), the number of clusters per node (0 for n < 2).
func Levels(n int) int {
	if n < 2 {
		return 0
	}
	return bits.Len(uint(n - 1))
}

// ClusterHiADSD returns c_{i,s} of Hi-ADSD (seed 002, section 3.1) for a system
// of n nodes, s = 1..Levels(n): the ordered list node i tests at level s, with
// ids >= n skipped.
func ClusterHiADSD(i, s, n int) []int {
	half := 1 << (s - 1)
	full := half << 1
	a := 0
	if i%full < half {
		a = 1
	}
	out := make([]int, 0, half)
	for j := 0; j < half; j++ {
		t := (i%full+half+j)%(1<<(s-1+a)) + (i/full)*full
		if a == 1 && t < i {
			t += half
		}
		if t < n {
			out = append(out, t)
		}
	}
	return out
}

// clusterVCube returns c(i,s) of vCube (seed 001, section 7.3) for n nodes.
// Unrolling the recursion gives element k = (i xor 2^(s-1)) xor k; ids >= n are skipped.
func clusterVCube(i, s, n int) []int {
	half := 1 << (s - 1)
	p := i ^ half
	out := make([]int, 0, half)
	for k := 0; k < half; k++ {
		if t := p ^ k; t < n {
			out = append(out, t)
		}
	}
	return out
}

// clusterRange returns the contiguous ids of the level-s cluster that node i
// tests (the set of both cluster functions), clipped to n.
func clusterRange(i, s, n int) Range {
	half := 1 << (s - 1)
	lo := (i ^ half) &^ (half - 1)
	return Range{Lo: lo, Hi: min(lo+half, n)}
}
