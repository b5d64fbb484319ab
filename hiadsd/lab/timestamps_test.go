package lab

import (
	"testing"

	"github.com/diagagent/diagagent/hiadsd"
)

// TestTimestampsClusters checks section 2.1.4 of seed 004 on 8 nodes: a
// source j reports on c_{i,L,j}, the N/2 nodes node i reaches through j (the
// clusters of Fig. 3.6, which section 3.2 says are Hi-ADSD with Timestamps'):
// node 0 testing node 2 takes news of 6 from it but not of 5, which it hears
// of through node 4.
func TestTimestampsClusters(t *testing.T) {
	nw, err := New(HiADSDTimestamps, &hiadsd.Config{N: 8})
	if err != nil {
		t.Fatal(err)
	}
	nw.SetNext(0, 2)
	nw.View(2).Set(5, hiadsd.Entry{Status: hiadsd.Faulty, Counter: 1})
	nw.View(2).Set(6, hiadsd.Entry{Status: hiadsd.Faulty, Counter: 1})
	rep, err := nw.Step(0)
	if err != nil {
		t.Fatal(err)
	}
	if got := nw.View(0).Get(6).Status; got != hiadsd.Faulty {
		t.Errorf("node 0 holds node 6 %v, want the faulty it heard from node 2", got)
	}
	if got := nw.View(0).Get(5).Status; got != hiadsd.FaultFree {
		t.Errorf("node 0 holds node 5 %v; 5 is outside c_{0,3,2} = {2,3,6,7}", got)
	}
	if rep.Units != 3 {
		t.Errorf("%d units, want N/2-1 = 3 (2 itself is tested)", rep.Units)
	}
}

// TestTimestampsFixedUnits checks that a fault-free system moves a fixed N/2-1
// entries per interval, whatever level each node tests.
func TestTimestampsFixedUnits(t *testing.T) {
	nw, err := New(HiADSDTimestamps, &hiadsd.Config{N: 16})
	if err != nil {
		t.Fatal(err)
	}
	for round := 1; round <= hiadsd.Levels(16); round++ {
		for id, rep := range stepAll(t, nw) {
			if rep.Units != 7 || len(rep.Tests) != 1 {
				t.Errorf("round %d: node %d made %d tests and moved %d units, want 1 and 7", round, id, len(rep.Tests), rep.Units)
			}
		}
	}
}
