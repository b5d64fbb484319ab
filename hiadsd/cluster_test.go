package hiadsd

import (
	"slices"
	"testing"
)

// TestClusterHiADSDTable1 checks c_{i,s} against Table 1 of seed 002 (N = 8).
func TestClusterHiADSDTable1(t *testing.T) {
	want := [3][8][]int{
		{{1}, {0}, {3}, {2}, {5}, {4}, {7}, {6}},
		{{2, 3}, {3, 2}, {0, 1}, {1, 0}, {6, 7}, {7, 6}, {4, 5}, {5, 4}},
		{{4, 5, 6, 7}, {5, 6, 7, 4}, {6, 7, 4, 5}, {7, 4, 5, 6}, {0, 1, 2, 3}, {1, 2, 3, 0}, {2, 3, 0, 1}, {3, 0, 1, 2}},
	}
	for s := 1; s <= 3; s++ {
		for i := 0; i < 8; i++ {
			if got := ClusterHiADSD(i, s, 8); !slices.Equal(got, want[s-1][i]) {
				t.Errorf("c_{%d,%d} = %v, want %v", i, s, got, want[s-1][i])
			}
		}
	}
}

// TestClusterVCubeTable1 checks c(i,s) against Table 1 of seed 001 (N = 8).
func TestClusterVCubeTable1(t *testing.T) {
	want := [3][8][]int{
		{{1}, {0}, {3}, {2}, {5}, {4}, {7}, {6}},
		{{2, 3}, {3, 2}, {0, 1}, {1, 0}, {6, 7}, {7, 6}, {4, 5}, {5, 4}},
		{{4, 5, 6, 7}, {5, 4, 7, 6}, {6, 7, 4, 5}, {7, 6, 5, 4}, {0, 1, 2, 3}, {1, 0, 3, 2}, {2, 3, 0, 1}, {3, 2, 1, 0}},
	}
	for s := 1; s <= 3; s++ {
		for i := 0; i < 8; i++ {
			if got := clusterVCube(i, s, 8); !slices.Equal(got, want[s-1][i]) {
				t.Errorf("c(%d,%d) = %v, want %v", i, s, got, want[s-1][i])
			}
		}
	}
}

// vcubeRecursive is the definition of seed 001 written literally, as a reference.
func vcubeRecursive(i, s int) []int {
	p := i ^ 1<<(s-1)
	out := []int{p}
	for k := 1; k < s; k++ {
		out = append(out, vcubeRecursive(p, k)...)
	}
	return out
}

// TestClusterVCubeMatchesRecursion checks the closed form against the recursion up to N = 256.
func TestClusterVCubeMatchesRecursion(t *testing.T) {
	const n = 256
	for s := 1; s <= Levels(n); s++ {
		for i := 0; i < n; i++ {
			if got, want := clusterVCube(i, s, n), vcubeRecursive(i, s); !slices.Equal(got, want) {
				t.Fatalf("c(%d,%d) = %v, want %v", i, s, got, want)
			}
		}
	}
}

// TestClustersAreTheSameSet checks that both functions list the same contiguous
// block, the one clusterRange names, and skip ids >= N (here N = 37, as in seed 002's LAN).
func TestClustersAreTheSameSet(t *testing.T) {
	for _, n := range []int{2, 3, 8, 37, 100} {
		for s := 1; s <= Levels(n); s++ {
			for i := 0; i < n; i++ {
				h, v := ClusterHiADSD(i, s, n), clusterVCube(i, s, n)
				r := clusterRange(i, s, n)
				var block []int
				for id := r.Lo; id < r.Hi; id++ {
					block = append(block, id)
				}
				hs, vs := slices.Sorted(slices.Values(h)), slices.Sorted(slices.Values(v))
				if !slices.Equal(hs, block) || !slices.Equal(vs, block) {
					t.Fatalf("n=%d i=%d s=%d: hiadsd %v vcube %v block %v", n, i, s, h, v, block)
				}
			}
		}
	}
}

func TestLevels(t *testing.T) {
	for n, want := range map[int]int{1: 0, 2: 1, 3: 2, 4: 2, 5: 3, 8: 3, 37: 6, 64: 6, 65: 7, 65536: 16} {
		if got := Levels(n); got != want {
			t.Errorf("Levels(%d) = %d, want %d", n, got, want)
		}
	}
}

// TestLatencyBound checks the bounds against Table 2 of seed 002 and Table 2 of seed 001.
func TestLatencyBound(t *testing.T) {
	table2 := map[int]int{4: 4, 8: 9, 16: 16, 32: 25, 64: 36, 128: 49, 256: 64, 512: 81, 1024: 100}
	for n, want := range table2 {
		if got := LatencyBound(HiADSD, n); got != want {
			t.Errorf("Hi-ADSD bound for %d = %d, want %d", n, got, want)
		}
		if got := LatencyBound(VRing, n); got != n-1 {
			t.Errorf("vRing bound for %d = %d, want %d", n, got, n-1)
		}
	}
	if got := LatencyBound(VCube, 1024); got != 10 {
		t.Errorf("vCube bound for 1024 = %d, want 10", got)
	}
	if got := LatencyBound(BruteForce, 1024); got != 1 {
		t.Errorf("brute-force bound = %d, want 1", got)
	}
	// The rotating plan tests a cluster once every log2 N intervals: twice
	// the full plan's bound; it changes nothing for the other algorithms.
	if got, full, hi := PullBound(VCube, 256, true), PullBound(VCube, 256, false), PullBound(HiADSD, 256, true); got != 16 || full != 8 || hi != 64 {
		t.Errorf("pull bounds at 256: vCube rotating %d, full %d, Hi-ADSD %d; want 16, 8 and 64", got, full, hi)
	}
}
