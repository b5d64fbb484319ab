package hiadsd

import "testing"

// staleTester answers every test fault-free and every fetch from the view
// each source holds, fixed in advance.
type staleTester struct {
	views map[int]Dense
}

func (s staleTester) Test(int) Status { return FaultFree }

func (s staleTester) Fetch(j int, ranges []Range) ([]IDEntry, error) {
	var out []IDEntry
	for _, r := range ranges {
		for id := r.Lo; id < r.Hi; id++ {
			out = append(out, IDEntry{ID: id, Entry: s.views[j][id]})
		}
	}
	return out, nil
}

// TestRecheckRetractsAStaleVerdict replays what a host whose link was down
// leaves behind: node 0 learned "node 3 faulty, counter 1" from it, while node
// 3 answers and its own tester holds "fault-free, counter 0". In c_{0,2} = 2, 3
// node 0 tests 2, finds it a source and takes the rest from it, so without
// Recheck it never tests 3 and the stale verdict, having the larger counter,
// stays for good.
func TestRecheckRetractsAStaleVerdict(t *testing.T) {
	for _, recheck := range []bool{false, true} {
		cfg := &Config{N: 4, Algorithm: HiADSD, Recheck: recheck}
		view := NewDense(4)
		for k := range view {
			view[k] = Entry{Status: FaultFree}
		}
		view[3] = Entry{Status: Faulty, Counter: 1}
		n, err := NewNode(cfg, 0, view)
		if err != nil {
			t.Fatal(err)
		}
		truth := NewDense(4)
		for k := range truth {
			truth[k] = Entry{Status: FaultFree}
		}
		tester := staleTester{views: map[int]Dense{1: truth, 2: truth, 3: truth}}
		var direct []Update
		for range 2 * Levels(4) {
			rep, err := n.Step(tester)
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range rep.Updates {
				if u.ID == 3 {
					direct = append(direct, u)
				}
			}
		}
		got := n.View.Get(3)
		if !recheck {
			if got.Status != Faulty || len(direct) != 0 {
				t.Fatalf("without Recheck node 3 became %v (%d updates); the scenario no longer shows the gap", got, len(direct))
			}
			continue
		}
		want := Entry{Status: FaultFree, Counter: 2}
		if got != want || len(direct) != 1 || !direct[0].IsDirect() {
			t.Fatalf("with Recheck node 3 is %+v after %d updates %+v, want %+v seen directly", got, len(direct), direct, want)
		}
	}
}

// TestRecheckSettlesADispute replays the 37-node LAN run: node 0 once tested
// node 3 itself while the LAN came up and holds "fault-free, counter 3", more
// changes than node 3's real tester saw; that tester (node 2, the source of
// c_{0,2}) holds the newer truth "partial, counter 2". The counters say node 0
// is right, so only a test settles it.
func TestRecheckSettlesADispute(t *testing.T) {
	for _, recheck := range []bool{false, true} {
		cfg := &Config{N: 4, Algorithm: HiADSD, Recheck: recheck}
		view := NewDense(4)
		for k := range view {
			view[k] = Entry{Status: FaultFree}
		}
		view[3] = Entry{Status: FaultFree, Counter: 3}
		n, err := NewNode(cfg, 0, view)
		if err != nil {
			t.Fatal(err)
		}
		heard := NewDense(4)
		for k := range heard {
			heard[k] = Entry{Status: FaultFree}
		}
		heard[3] = Entry{Status: Partial, Counter: 2}
		tester := partialTester{staleTester: staleTester{views: map[int]Dense{1: heard, 2: heard}}, partial: 3}
		for range 2 * Levels(4) {
			if _, err := n.Step(tester); err != nil {
				t.Fatal(err)
			}
		}
		got := n.View.Get(3)
		want := Entry{Status: Partial, Counter: 4}
		if !recheck {
			want = Entry{Status: FaultFree, Counter: 3}
		}
		if got != want {
			t.Fatalf("recheck=%v: node 3 is %+v, want %+v", recheck, got, want)
		}
	}
}

// partialTester is a staleTester under which one node tests partial.
type partialTester struct {
	staleTester
	partial int
}

func (p partialTester) Test(j int) Status {
	if j == p.partial {
		return Partial
	}
	return FaultFree
}

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
