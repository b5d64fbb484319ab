package lab

import (
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
