package lab

import (
	"slices"
	"testing"

	"github.com/diagagent/diagagent/hiadsd"
)

// TestDetoursFigure27 replays Fig. 2.7 of seed 004: on 8 nodes with node 4
// faulty, node 0 testing its level-3 cluster tests node 4 only, and hears of
// node 5 through node 1 and of nodes 6 and 7 through node 2 (the detour
// 0,2,6,7 of Fig. 2.8), where Hi-ADSD goes on testing inside the cluster.
func TestDetoursFigure27(t *testing.T) {
	for _, tc := range []struct {
		algo    Algorithm
		tests   []int
		sources []int
	}{
		{HiADSDDetours, []int{4}, []int{1, 2}},
		{HiADSD, []int{4, 5}, []int{5}},
	} {
		nw, err := New(tc.algo, &hiadsd.Config{N: 8})
		if err != nil {
			t.Fatal(err)
		}
		if err := nw.SetState(4, hiadsd.Faulty); err != nil {
			t.Fatal(err)
		}
		nw.SetNext(0, 3)
		rep, err := nw.Step(0)
		if err != nil {
			t.Fatal(err)
		}
		var sources []int
		for _, f := range rep.Fetches {
			sources = append(sources, f.From)
		}
		if got := targets(rep); !slices.Equal(got, tc.tests) {
			t.Errorf("%v: node 0 tested %v, want %v", tc.algo, got, tc.tests)
		}
		if !slices.Equal(sources, tc.sources) {
			t.Errorf("%v: node 0 fetched from %v, want %v", tc.algo, sources, tc.sources)
		}
	}
	if got := DetourVia(0, 2); got != 2 {
		t.Errorf("detour of node 0 to c_{4,2} = {6,7} goes through %d, want 2", got)
	}
}

// TestDetoursTestBound puts N/2 faulty nodes in one cluster, Hi-ADSD's worst
// case (seed 002: N^2/4 tests in one round), and checks that Detours stays
// within seed 004's bound of N log N tests over log N rounds.
func TestDetoursTestBound(t *testing.T) {
	const n = 16
	l := hiadsd.Levels(n)
	count := map[Algorithm]int{}
	for _, algo := range []Algorithm{HiADSD, HiADSDDetours} {
		nw, err := New(algo, &hiadsd.Config{N: n})
		if err != nil {
			t.Fatal(err)
		}
		for id := n / 2; id < n; id++ {
			if err := nw.SetState(id, hiadsd.Faulty); err != nil {
				t.Fatal(err)
			}
		}
		for r := 0; r < l; r++ {
			for _, rep := range stepAll(t, nw) {
				count[algo] += rep.TestCount()
			}
		}
	}
	if count[HiADSDDetours] > n*l {
		t.Errorf("Detours made %d tests in %d rounds, bound N log N = %d", count[HiADSDDetours], l, n*l)
	}
	if count[HiADSD] <= n*l {
		t.Errorf("Hi-ADSD made %d tests in %d rounds; the case should exceed N log N = %d", count[HiADSD], l, n*l)
	}
}

// TestDetourFallsBack fails the detour node too: node 0 still holds node 2
// fault-free, so it asks it for c_{4,2} = {6,7}, gets no answer, and tests
// inside the subcluster instead, as Hi-ADSD would.
func TestDetourFallsBack(t *testing.T) {
	nw, err := New(HiADSDDetours, &hiadsd.Config{N: 8})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []int{2, 4} {
		if err := nw.SetState(id, hiadsd.Faulty); err != nil {
			t.Fatal(err)
		}
	}
	nw.SetNext(0, 3)
	rep, err := nw.Step(0)
	if err != nil {
		t.Fatal(err)
	}
	if got := targets(rep); !slices.Equal(got, []int{4, 6}) {
		t.Errorf("node 0 tested %v, want [4 6]", got)
	}
	var failed []int
	for _, f := range rep.Fetches {
		if f.Err != nil {
			failed = append(failed, f.From)
		}
	}
	if !slices.Equal(failed, []int{2}) {
		t.Errorf("fetches without an answer: %v, want the detour through 2 only", failed)
	}
}
