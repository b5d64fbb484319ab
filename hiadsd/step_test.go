package hiadsd

import (
	"errors"
	"slices"
	"testing"
)

// errNoAnswer is a fetch the fake world leaves unanswered.
var errNoAnswer = errors.New("no answer")

// fakeTester answers tests from truth and fetches from views.
type fakeTester struct {
	truth     map[int]Status // absent: fault-free
	views     map[int]View
	failFetch map[int]bool
}

func (f *fakeTester) status(j int) Status {
	if st, ok := f.truth[j]; ok {
		return st
	}
	return FaultFree
}

func (f *fakeTester) Test(j int) Status { return f.status(j) }

func (f *fakeTester) Fetch(j int, ranges []Range) ([]IDEntry, error) {
	if f.status(j) != FaultFree || f.failFetch[j] {
		return nil, errNoAnswer
	}
	var out []IDEntry
	for _, r := range ranges {
		for id := r.Lo; id < r.Hi; id++ {
			e := Entry{Status: FaultFree}
			if v, ok := f.views[j]; ok {
				e = v.Get(id)
			}
			out = append(out, IDEntry{ID: id, Entry: e})
		}
	}
	return out, nil
}

// converged returns a dense view holding every node fault-free, counter 0.
func converged(n int) Dense {
	d := NewDense(n)
	for id := range d {
		d[id] = Entry{Status: FaultFree}
	}
	return d
}

func newTestNode(t *testing.T, cfg *Config, id int) *Node {
	t.Helper()
	n, err := NewNode(cfg, id, converged(cfg.N))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func targets(r Report) []int {
	var out []int
	for _, tr := range r.Tests {
		out = append(out, tr.Target)
	}
	return out
}

// step runs one whole interval of n, answering each batch from ft.
func step(t *testing.T, n *Node, ft *fakeTester) Report {
	t.Helper()
	var m Interval
	if err := m.Begin(n); err != nil {
		t.Fatal(err)
	}
	for !m.Done() {
		if err := m.Advance(answer(ft, m.Ready())); err != nil {
			t.Fatal(err)
		}
	}
	return m.Report()
}

func TestHiADSDCopiesTheCluster(t *testing.T) {
	cfg := &Config{N: 8, Algorithm: HiADSD}
	n := newTestNode(t, cfg, 0)
	n.Next = 3
	src := converged(8)
	src[6] = Entry{Status: Faulty, Counter: 1}
	src[2] = Entry{Status: Faulty, Counter: 1} // outside c_{0,3}: must not be copied
	if got := plan(n); !slices.Equal(got, []int{4}) {
		t.Fatalf("Plan = %v, want [4]", got)
	}
	r := step(t, n, &fakeTester{views: map[int]View{4: src}})
	if !slices.Equal(targets(r), []int{4}) || r.Level != 3 || n.Next != 1 {
		t.Fatalf("tests %v level %d next %d, want [4] 3 1", targets(r), r.Level, n.Next)
	}
	if r.Units != 3 || len(r.Fetches) != 1 || r.Fetches[0].Ranges[0] != (Range{4, 8}) {
		t.Fatalf("units %d fetches %+v, want 3 units from range 4..7", r.Units, r.Fetches)
	}
	if n.View.Get(6) != src[6] || n.View.Get(2).Status != FaultFree {
		t.Fatalf("view: 6 = %v, 2 = %v; want 6 learned faulty and 2 untouched", n.View.Get(6), n.View.Get(2))
	}
	want := []Update{{ID: 6, Old: Entry{Status: FaultFree}, New: src[6], From: 4}}
	if !slices.Equal(r.Updates, want) {
		t.Fatalf("updates %+v, want %+v", r.Updates, want)
	}
}

// TestHiADSDSkipsNonSources: a faulty node is recorded, a tested-only node is
// recorded and passed over, and the search stops at the first testing node.
func TestHiADSDSkipsNonSources(t *testing.T) {
	cfg := &Config{N: 8, Algorithm: HiADSD, TestedOnly: []int{5}}
	n := newTestNode(t, cfg, 0)
	n.Next = 3
	r := step(t, n, &fakeTester{truth: map[int]Status{4: Faulty}})
	if !slices.Equal(targets(r), []int{4, 5, 6}) {
		t.Fatalf("tests %v, want [4 5 6]", targets(r))
	}
	if len(r.Fetches) != 1 || r.Fetches[0].From != 6 {
		t.Fatalf("fetches %+v, want one from 6", r.Fetches)
	}
	if got := n.View.Get(4); got != (Entry{Status: Faulty, Counter: 1}) {
		t.Fatalf("entry of 4 = %v, want faulty counter 1", got)
	}
	if len(r.Updates) != 1 || !r.Updates[0].IsDirect() {
		t.Fatalf("updates %+v, want the direct fault of 4", r.Updates)
	}
}

// TestHiADSDFaultyClusterGoesOn: with all of c_{0,1} faulty the node tests c_{0,2}
// in the same interval, and the next interval still starts at level 2.
func TestHiADSDFaultyClusterGoesOn(t *testing.T) {
	n := newTestNode(t, &Config{N: 8, Algorithm: HiADSD}, 0)
	r := step(t, n, &fakeTester{truth: map[int]Status{1: Faulty}})
	if !slices.Equal(targets(r), []int{1, 2}) || n.Next != 2 {
		t.Fatalf("tests %v next %d, want [1 2] and 2", targets(r), n.Next)
	}
}

// TestVRingPartialAndLostFetch: a partial node is never a source and a fetch
// that fails counts as no information, so the search goes on.
func TestVRingPartialAndLostFetch(t *testing.T) {
	n := newTestNode(t, &Config{N: 6, Algorithm: VRing}, 0)
	ft := &fakeTester{truth: map[int]Status{1: Partial}, failFetch: map[int]bool{2: true}}
	r := step(t, n, ft)
	if !slices.Equal(targets(r), []int{1, 2, 3}) {
		t.Fatalf("tests %v, want [1 2 3]", targets(r))
	}
	if len(r.Fetches) != 2 || !errors.Is(r.Fetches[0].Err, errNoAnswer) || r.Fetches[1].From != 3 {
		t.Fatalf("fetches %+v, want a failed one from 2 then one from 3", r.Fetches)
	}
	if n.View.Get(1).Status != Partial || r.Units != 2 {
		t.Fatalf("1 = %v, units %d; want partial and 2 units (4 and 5)", n.View.Get(1), r.Units)
	}
}

// TestDirectVerdictCatchesUp: a tester with a stale counter for the node it
// tests takes a counter above the one a source holds, so its verdict spreads.
func TestDirectVerdictCatchesUp(t *testing.T) {
	n := newTestNode(t, &Config{N: 8, Algorithm: VRing}, 4)
	src := converged(8)
	src[5] = Entry{Status: FaultFree, Counter: 4}
	step(t, n, &fakeTester{truth: map[int]Status{5: Faulty}, views: map[int]View{6: src}})
	if got := n.View.Get(5); got != (Entry{Status: Faulty, Counter: 5}) {
		t.Fatalf("entry of 5 = %v, want faulty with counter 5", got)
	}
}

func TestVCubeAllCorrectIsAHypercube(t *testing.T) {
	cfg := &Config{N: 16, Algorithm: VCube}
	for i := 0; i < 16; i++ {
		n := newTestNode(t, cfg, i)
		want := []int{i ^ 1, i ^ 2, i ^ 4, i ^ 8}
		slices.Sort(want)
		if got := plan(n); !slices.Equal(got, want) {
			t.Fatalf("node %d plans %v, want %v", i, got, want)
		}
		r := step(t, n, &fakeTester{})
		if !slices.Equal(targets(r), want) || len(r.Fetches) != 4 || r.Units != 0 {
			t.Fatalf("node %d: tests %v fetches %d units %d", i, targets(r), len(r.Fetches), r.Units)
		}
	}
}

// TestVCubeFig8b: with process 4 crashed, process 5 also tests 0 and 6 (seed 001, Fig. 8b).
func TestVCubeFig8b(t *testing.T) {
	n := newTestNode(t, &Config{N: 8, Algorithm: VCube}, 5)
	n.View.Set(4, Entry{Status: Faulty, Counter: 1})
	if got := plan(n); !slices.Equal(got, []int{0, 1, 4, 6, 7}) {
		t.Fatalf("node 5 plans %v, want [0 1 4 6 7]", got)
	}
}

// TestVCubeTestedOnly: a tested-only node is tested but never tests, and its
// clusters fall to the next testing node.
func TestVCubeTestedOnly(t *testing.T) {
	cfg := &Config{N: 8, Algorithm: VCube, TestedOnly: []int{1}}
	if got := plan(newTestNode(t, cfg, 1)); got != nil {
		t.Fatalf("tested-only node plans %v", got)
	}
	if err := new(Interval).Begin(newTestNode(t, cfg, 1)); !errors.Is(err, ErrTestedOnly) {
		t.Fatalf("Begin of a tested-only node: %v, want ErrTestedOnly", err)
	}
	// c(3,2) = (1, 0) and c(5,3) = (1, 0, 3, 2) start with the tested-only 1,
	// so 0 tests 3 and 5 as well as its hypercube neighbours 1, 2 and 4.
	if got := plan(newTestNode(t, cfg, 0)); !slices.Equal(got, []int{1, 2, 3, 4, 5}) {
		t.Fatalf("node 0 plans %v, want [1 2 3 4 5]", got)
	}
}

func TestBruteForceTestsEveryone(t *testing.T) {
	n := newTestNode(t, &Config{N: 5, Algorithm: BruteForce}, 2)
	r := step(t, n, &fakeTester{truth: map[int]Status{0: Faulty}})
	if !slices.Equal(targets(r), []int{0, 1, 3, 4}) || len(r.Fetches) != 0 || r.Units != 0 {
		t.Fatalf("tests %v fetches %d units %d", targets(r), len(r.Fetches), r.Units)
	}
}

func TestNewNodeRejectsMismatch(t *testing.T) {
	cfg := &Config{N: 8}
	if _, err := NewNode(cfg, 8, NewDense(8)); !errors.Is(err, ErrBadConfig) {
		t.Errorf("id 8 of 8: %v", err)
	}
	if _, err := NewNode(cfg, 0, NewDense(7)); !errors.Is(err, ErrBadConfig) {
		t.Errorf("view of 7 for N = 8: %v", err)
	}
}

// plan returns the tests n expects to make next, as the page shows them.
func plan(n *Node) []int { return Expected(n.Config, n.ID, n.View, n.Next) }
