package hiadsd

import "testing"

// The recheck cases found on the LAN are replayed in
// hiadsd/lab/testdata/recheck.txt.

// TestPlanIncludesRechecks checks that the plan the daemon probes ahead holds
// the nodes Recheck will test, so they are probed in parallel too.
func TestPlanIncludesRechecks(t *testing.T) {
	cfg := &Config{N: 8, Algorithm: HiADSD, Recheck: true}
	view := NewDense(8)
	for k := range view {
		view[k] = Entry{Status: FaultFree}
	}
	view[7] = Entry{Status: Partial, Counter: 1}
	n, err := NewNode(cfg, 0, view)
	if err != nil {
		t.Fatal(err)
	}
	n.Next = 3 // c_{0,3} = 4, 5, 6, 7: 4 is the source, 7 is rechecked
	got := plan(n)
	if len(got) != 2 || got[0] != 4 || got[1] != 7 {
		t.Fatalf("plan %v, want [4 7]", got)
	}
	cfg.Recheck = false
	if got := plan(n); len(got) != 1 {
		t.Fatalf("plan without Recheck %v, want [4]", got)
	}
}
