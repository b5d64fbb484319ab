package lab

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/diagagent/diagagent/hiadsd"
)

// TestRestartedTesterCatchesUp replays a history that once left a node wrong
// for good: node 1 restarts, sees node 0 faulty from an all-unknown view
// (counter 0 while the others hold 1), and on node 0's repair announced
// "fault-free 1", which lost the tie to everyone's "faulty 1". hiadsd.Node 1 only
// ever hears of node 0 by testing it, so only the catch-up fetches of a
// restarted node bring its counter level.
func TestRestartedTesterCatchesUp(t *testing.T) {
	nw, err := NewNetwork(&hiadsd.Config{N: 4, Algorithm: hiadsd.HiADSD})
	if err != nil {
		t.Fatal(err)
	}
	history := []struct {
		node   int
		status hiadsd.Status
		rounds [][]int // the order the testing nodes step in, round by round
	}{
		{0, hiadsd.Faulty, [][]int{{3, 2, 1}, {2, 3, 1}}},
		{1, hiadsd.Faulty, [][]int{{3, 2}, {3, 2}}},
		{1, hiadsd.FaultFree, [][]int{{2, 3, 1}, {2, 1, 3}}},
		{0, hiadsd.FaultFree, [][]int{{3, 2, 0, 1}, {0, 3, 1, 2}, {1, 0, 2, 3}, {1, 2, 0, 3}}},
	}
	for _, h := range history {
		if err := nw.SetState(h.node, h.status); err != nil {
			t.Fatal(err)
		}
		for _, order := range h.rounds {
			for _, id := range order {
				if _, err := nw.Step(id); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for holder := 1; holder < 4; holder++ {
		if got := nw.View(holder).Get(0).Status; got != hiadsd.FaultFree {
			t.Errorf("node %d holds node 0 %v after its repair was diagnosable, want fault-free", holder, got)
		}
	}
}

// TestRestartedNodeTestsItsPlan: a node restarted with an all-unknown view
// tests what the rotating plan names and reads a view, rather than every
// peer: at N = 256 the agent that restarted after a crash tested all 255
// in its first interval (4 minutes under SNMPv3), and its repair was lost.
// Its tester at the interval's cluster may be down too: then the next
// cluster's gives the view.
func TestRestartedNodeTestsItsPlan(t *testing.T) {
	for _, c := range []struct {
		name     string
		down     []int // besides the restarted node, down throughout
		maxTests int
	}{
		{"peers up", nil, 1},
		{"its cluster-1 partner down", []int{129}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			const n, self = 256, 128
			nw, err := NewNetwork(&hiadsd.Config{N: n, Algorithm: hiadsd.VCube, Rotate: true, Push: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range append([]int{self}, c.down...) {
				if err := nw.SetState(id, hiadsd.Faulty); err != nil {
					t.Fatal(err)
				}
			}
			if err := nw.SetState(self, hiadsd.FaultFree); err != nil { // restarted: its view is unknown
				t.Fatal(err)
			}
			if u := nw.View(self).Unknowns(); u != n-1 {
				t.Fatalf("the restarted node holds %d ids unknown, want all %d others", u, n-1)
			}
			nw.Node(self).Next = 1
			rep, err := nw.Step(self)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Tests) > c.maxTests {
				t.Errorf("its first interval ran %d tests (%v), want at most %d", len(rep.Tests), rep.Tests, c.maxTests)
			}
			if u := nw.View(self).Unknowns(); u != 0 {
				t.Errorf("after its first interval it holds %d ids unknown, want 0 (it read a view)", u)
			}
			for _, id := range c.down {
				if got := nw.View(self).Get(id).Status; got != hiadsd.Faulty {
					t.Errorf("it holds node %d, which is down, %v", id, got)
				}
			}
		})
	}
}

// TestColdStartFindsTheDown: every node starts with an all-unknown view,
// as agents started together do, and two are down from the start. Each
// live node counts the unknown ones as testers in its plan, so the down
// ones' tests are nobody's until their own testers find them; within
// three passes of the log2 N clusters every live node holds the truth.
func TestColdStartFindsTheDown(t *testing.T) {
	const n = 64
	down := []int{5, 6} // 6 tests 5 in cluster 1: both unknown at first
	nw, err := NewNetwork(&hiadsd.Config{N: n, Algorithm: hiadsd.VCube, Rotate: true, Push: true})
	if err != nil {
		t.Fatal(err)
	}
	for id := range n {
		if err := nw.SetState(id, hiadsd.Faulty); err != nil {
			t.Fatal(err)
		}
	}
	for id := range n {
		if !slices.Contains(down, id) {
			if err := nw.SetState(id, hiadsd.FaultFree); err != nil {
				t.Fatal(err)
			}
		}
	}
	rng := rand.New(rand.NewPCG(7, 7))
	l := hiadsd.Levels(n)
	maxRan := 0
	for r := range 3 * l {
		ran, _ := rotationRound(t, nw, r%l+1, rng)
		maxRan = max(maxRan, slices.Max(ran))
	}
	for id := range n {
		if !nw.Testing(id) {
			continue
		}
		for j := range n {
			want := hiadsd.FaultFree
			if slices.Contains(down, j) {
				want = hiadsd.Faulty
			}
			if got := nw.View(id).Get(j).Status; got != want {
				t.Errorf("node %d holds node %d %v after %d rounds, want %v", id, j, got, 3*l, want)
			}
		}
	}
	if maxRan > l {
		t.Errorf("a node ran %d tests in one interval, want at most log2 N = %d", maxRan, l)
	}
}
