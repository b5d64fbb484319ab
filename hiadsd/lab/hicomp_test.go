package lab

import (
	"slices"
	"testing"

	"github.com/diagagent/diagagent/hiadsd"
)

// TestHiCompClusters checks Figs. 3.3 and 3.6 of seed 004 on 8 nodes: node
// 0's children are 1, 2 and 4, node 5 is at diagnostic distance 2, and the
// clusters node 0 hears of through its children are {1,3,5,7}, {2,3,6,7} and
// {4,5,6,7}.
func TestHiCompClusters(t *testing.T) {
	if got := Row(0, 1, 8); !slices.Equal(got, []int{1, 2, 4}) {
		t.Errorf("children of 0 = %v, want [1 2 4]", got)
	}
	if !slices.Contains(Row(0, 2, 8), 5) {
		t.Errorf("row 2 of TFF_0 = %v, want it to hold 5", Row(0, 2, 8))
	}
	for p, want := range map[int][]int{1: {1, 3, 5, 7}, 2: {2, 3, 6, 7}, 4: {4, 5, 6, 7}} {
		var got []int
		for y := 0; y < 8; y++ {
			if InCluster(0, p, y) {
				got = append(got, y)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("c_{0,3,%d} = %v, want %v", p, got, want)
		}
		if ClusterSize(0, p, 8) != 4 {
			t.Errorf("|c_{0,3,%d}| = %d, want N/2 = 4", p, ClusterSize(0, p, 8))
		}
	}
}

// TestHiCompFaultFreeTasks checks section 3.2.1: with every node fault-free
// node 0 of 16 sends one task to children 1 and 2 and one to 4 and 8, and
// takes N/2-1 entries from each.
func TestHiCompFaultFreeTasks(t *testing.T) {
	nw, err := New(HiComp, &hiadsd.Config{N: 16})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := nw.Step(0)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Tasks != 2 || !slices.Equal(targets(rep), []int{1, 2, 4, 8}) {
		t.Errorf("node 0: %d tasks judging %v, want 2 judging [1 2 4 8]", rep.Tasks, targets(rep))
	}
	if rep.Units != 4*7 {
		t.Errorf("node 0 moved %d units, want 4 clusters of 7", rep.Units)
	}
}

// Section 4.1.1 of seed 004 is replayed in testdata/hicomp.txt.

// TestHiCompAlone checks section 4.1.2 and Theorem 2 of seed 004: with only
// nodes 0 and 15 fault-free and node 15 failing, node 0 diagnoses all 15
// others by comparing them with each other and finally with itself, within
// (N^2-N)/2 tasks.
func TestHiCompAlone(t *testing.T) {
	const n = 16
	nw, err := New(HiComp, &hiadsd.Config{N: n})
	if err != nil {
		t.Fatal(err)
	}
	for id := 1; id < n; id++ {
		if err := nw.SetState(id, hiadsd.Faulty); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := nw.Step(0)
	if err != nil {
		t.Fatal(err)
	}
	for id := 1; id < n; id++ {
		if got := nw.View(0).Get(id).Status; got != hiadsd.Faulty {
			t.Errorf("node 0 holds node %d %v, want faulty", id, got)
		}
	}
	if rep.Tasks > (n*n-n)/2 {
		t.Errorf("%d tasks, Theorem 2 bounds one node by %d", rep.Tasks, (n*n-n)/2)
	}
}

// TestHiCompFaultyAnswers checks the simulated assertion 2: a faulty node's
// output never matches the right one nor another faulty node's.
func TestHiCompFaultyAnswers(t *testing.T) {
	nw, err := New(HiComp, &hiadsd.Config{N: 8})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []int{3, 5} {
		if err := nw.SetState(id, hiadsd.Faulty); err != nil {
			t.Fatal(err)
		}
	}
	r := &run{nw: nw}
	for task := uint64(0); task < 1000; task++ {
		right, a, b := TaskOutput(task), r.runTask(3, task), r.runTask(5, task)
		if r.runTask(1, task) != right || a == right || b == right || a == b {
			t.Fatalf("task %d: fault-free %x, right %x, faulty %x and %x", task, r.runTask(1, task), right, a, b)
		}
	}
}

// TestHiCompJudgesItsChildren checks that on a fault-free system a node
// judges its row of children in TFF_i and nothing more.
func TestHiCompJudgesItsChildren(t *testing.T) {
	nw, err := New(HiComp, &hiadsd.Config{N: 8})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := nw.Step(5)
	if err != nil {
		t.Fatal(err)
	}
	if got := slices.Sorted(slices.Values(targets(rep))); !slices.Equal(got, []int{1, 4, 7}) {
		t.Errorf("node 5 judged %v, want [1 4 7]", got)
	}
}
