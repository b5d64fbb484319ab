package hiadsd

import "testing"

// TestTimestampsClusters checks section 2.1.4 of seed 004 on 8 nodes: a
// source j reports on c_{i,L,j}, the N/2 nodes node i reaches through j (the
// clusters of Fig. 3.6, which section 3.2 says are Hi-ADSD with Timestamps'):
// node 0 testing node 2 takes news of 6 from it but not of 5, which it hears
// of through node 4.
func TestTimestampsClusters(t *testing.T) {
	cfg := &Config{N: 8, Algorithm: HiADSDTimestamps}
	node := newTestNode(t, cfg, 0)
	node.Next = 2
	two := converged(8)
	two[5] = Entry{Status: Faulty, Counter: 1}
	two[6] = Entry{Status: Faulty, Counter: 1}
	rep, err := node.Step(&fakeTester{views: map[int]View{2: two}})
	if err != nil {
		t.Fatal(err)
	}
	if got := node.View.Get(6).Status; got != Faulty {
		t.Errorf("node 0 holds node 6 %v, want the faulty it heard from node 2", got)
	}
	if got := node.View.Get(5).Status; got != FaultFree {
		t.Errorf("node 0 holds node 5 %v; 5 is outside c_{0,3,2} = {2,3,6,7}", got)
	}
	if rep.Units != 3 {
		t.Errorf("%d units, want N/2-1 = 3 (2 itself is tested)", rep.Units)
	}
}

// TestTimestampsFixedUnits checks that a fault-free system moves a fixed N/2-1
// entries per interval, whatever level each node tests.
func TestTimestampsFixedUnits(t *testing.T) {
	nw, err := NewNetwork(&Config{N: 16, Algorithm: HiADSDTimestamps})
	if err != nil {
		t.Fatal(err)
	}
	for round := 1; round <= Levels(16); round++ {
		for id, rep := range stepAll(t, nw) {
			if rep.Units != 7 || len(rep.Tests) != 1 {
				t.Errorf("round %d: node %d made %d tests and moved %d units, want 1 and 7", round, id, len(rep.Tests), rep.Units)
			}
		}
	}
}
