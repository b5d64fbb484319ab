package hiadsd

import (
	"slices"
	"testing"
)

func TestIsolationNeedsTwoSilentTests(t *testing.T) {
	one := []TestResult{{Target: 1, Status: Faulty}}
	two := append(one, TestResult{Target: 2, Status: Faulty})
	mixed := append(one, TestResult{Target: 2, Status: Partial})
	if cutOff(one) || !cutOff(two) || cutOff(mixed) || cutOff(nil) {
		t.Fatalf("cutOff: one %v, two %v, one answered by ping %v, none %v; want false true false false",
			cutOff(one), cutOff(two), cutOff(mixed), cutOff(nil))
	}
	if err := (&Config{N: 4, Isolation: -1}).Validate(); err == nil {
		t.Fatal("negative Isolation accepted")
	}
}

// TestNodeHeldFaultyNotBelievedAboutFaults: a push from a node this node
// still holds faulty (the cut-off side, its push arriving before the test
// that brings it back) does not make a node held fault-free faulty with
// Isolation; without it (the papers'), it does. Its fault-free news of a
// node held faulty is taken either way.
func TestNodeHeldFaultyNotBelievedAboutFaults(t *testing.T) {
	for _, iso := range []int{0, 2} {
		n := newTestNode(t, &Config{N: 8, Algorithm: VRing, Isolation: iso}, 4)
		n.View.Set(5, Entry{Status: Faulty, Counter: 1})
		n.View.Set(7, Entry{Status: Faulty, Counter: 1})
		if _, err := n.Receive(5, Push{To: 4, Cluster: 1, Entries: []IDEntry{
			{ID: 6, Entry: Entry{Status: Faulty, Counter: 1}},
			{ID: 7, Entry: Entry{Status: FaultFree, Counter: 2}},
		}}, ListVersion{}); err != nil {
			t.Fatal(err)
		}
		if got := n.View.Get(6).Status; (got == Faulty) != (iso == 0) {
			t.Errorf("isolation %d: node 6 pushed faulty by node 5, held faulty, is held %v", iso, got)
		}
		if got := n.View.Get(7); got != (Entry{Status: FaultFree, Counter: 2}) {
			t.Errorf("isolation %d: node 7 pushed fault-free by node 5 is held %v", iso, got)
		}
	}
}

// TestReturningNodeNotBelievedAboutFaults: a node just back (held faulty,
// now tested fault-free) serves the faults it saw while it was cut off, at
// newer counters. With Isolation they are not taken for nodes held
// fault-free; its fault-free entries are, and their moved counters are
// reported (Report.Moved). Without Isolation (the papers') they are taken.
func TestReturningNodeNotBelievedAboutFaults(t *testing.T) {
	for _, iso := range []int{0, 2} {
		n := newTestNode(t, &Config{N: 8, Algorithm: VRing, Isolation: iso}, 4)
		n.View.Set(5, Entry{Status: Faulty, Counter: 1})
		src := converged(8)
		src[2] = Entry{Status: Faulty, Counter: 1}    // seen from the other side of the cut
		src[3] = Entry{Status: FaultFree, Counter: 2} // seen failing and back
		rep := step(t, n, &fakeTester{views: map[int]View{5: src}})
		if got := n.View.Get(5); got.Status != FaultFree {
			t.Fatalf("isolation %d: node 5 held %v, want fault-free", iso, got)
		}
		want := Entry{Status: Faulty, Counter: 1}
		if iso > 0 {
			want = Entry{Status: FaultFree}
		}
		if got := n.View.Get(2); got != want {
			t.Errorf("isolation %d: node 2 held %v, want %v", iso, got, want)
		}
		if n.View.Get(3) != (Entry{Status: FaultFree, Counter: 2}) || !slices.Contains(rep.Moved, 3) {
			t.Errorf("isolation %d: node 3 held %v, moved %v; want fault-free at 2, reported moved", iso, n.View.Get(3), rep.Moved)
		}
		// Pushed by the node just back: a test it began while cut off.
		if _, err := n.Receive(5, Push{To: 4, Cluster: 1, Entries: []IDEntry{{ID: 6, Entry: Entry{Status: Faulty, Counter: 1}}}}, ListVersion{}); err != nil {
			t.Fatal(err)
		}
		if got := n.View.Get(6).Status; (got == Faulty) != (iso == 0) {
			t.Errorf("isolation %d: node 6 pushed faulty by node 5 just back, held %v", iso, got)
		}
		step(t, n, &fakeTester{views: map[int]View{5: src}})
		step(t, n, &fakeTester{views: map[int]View{5: src}})
		if iso > 0 && n.View.Get(2) != want {
			t.Errorf("node 2 taken faulty within %d intervals of node 5's return", returningIntervals)
		}
		step(t, n, &fakeTester{views: map[int]View{5: src}})
		if got := n.View.Get(2); got.Status != Faulty {
			t.Errorf("isolation %d: node 2 held %v %d intervals after node 5's return; want its fault taken", iso, got, returningIntervals+1)
		}
	}
}
