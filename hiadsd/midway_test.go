package hiadsd

import (
	"errors"
	"slices"
	"testing"
)

// midwayNode returns node 0 of 8 under vCube with pushes, every node held
// fault-free at counter 2 but the ones in down, held faulty at counter 3.
func midwayNode(t *testing.T, rotate bool, down ...int) *Node {
	t.Helper()
	n := newTestNode(t, &Config{N: 8, Algorithm: VCube, Push: true, Rotate: rotate}, 0)
	for id := range 8 {
		n.View.Set(id, Entry{Status: FaultFree, Counter: 2})
	}
	for _, id := range down {
		n.View.Set(id, Entry{Status: Faulty, Counter: 3})
	}
	return n
}

// begin begins n's interval on a new machine.
func begin(t *testing.T, n *Node) *Interval {
	t.Helper()
	var m Interval
	if err := m.Begin(n); err != nil {
		t.Fatal(err)
	}
	return &m
}

// finish answers m's batches from ft until its interval ends.
func finish(t *testing.T, m *Interval, ft *fakeTester) {
	t.Helper()
	for !m.Done() {
		if err := m.Advance(answer(ft, m.Ready())); err != nil {
			t.Fatal(err)
		}
	}
}

// tested returns the targets of the tests among ops, in order.
func tested(ops []Op) []int {
	var out []int
	for _, op := range ops {
		if op.Kind == OpTest {
			out = append(out, op.Target)
		}
	}
	return out
}

// TestTakeMergesWhatNoTestContradicts: a push taken while the interval's
// tests are under way is passed on whole, merged at once about a node the
// interval does not test, and left for the interval's end about one it
// tests; the verdict of that test then comes first.
func TestTakeMergesWhatNoTestContradicts(t *testing.T) {
	n := midwayNode(t, false)
	m := begin(t, n)
	if got := tested(m.Ready()); !slices.Equal(got, []int{1, 2, 4}) {
		t.Fatalf("node 0 tests %v, want [1 2 4]", got)
	}
	push := Push{To: 0, Cluster: 3, Entries: []IDEntry{
		{ID: 6, Entry: Entry{Status: Faulty, Counter: 3}}, // not tested by node 0: merged now
		{ID: 2, Entry: Entry{Status: Faulty, Counter: 3}}, // under test: waits
	}}
	rep, later, err := m.Take(5, push, n.List)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Updates) != 1 || rep.Updates[0].ID != 6 || rep.Updates[0].From != 5 || n.View.Get(6) != (Entry{Status: Faulty, Counter: 3}) {
		t.Fatalf("updates %+v, node 6 held %v; want node 6 faulty at 3, learned from 5", rep.Updates, n.View.Get(6))
	}
	if n.View.Get(2) != (Entry{Status: FaultFree, Counter: 2}) || len(later.Entries) != 1 || later.Entries[0].ID != 2 || later.Cluster != 3 {
		t.Fatalf("node 2 held %v, left for later %+v; want it untouched and left", n.View.Get(2), later)
	}
	// Node 0's clusters 1 and 2 are {1} and {2, 3}, the second sent to in
	// halves: both entries go on to each node.
	if got := pushedTo(rep.Pushes); !slices.Equal(got, []int{2, 3, 1}) || len(rep.Pushes[0].Entries) != 2 || len(rep.Pushes[2].Entries) != 2 {
		t.Fatalf("passed on %+v; want both entries to nodes 2, 3 and 1", rep.Pushes)
	}
	// Node 2 answers partial: a test that began before the push.
	ft := &fakeTester{truth: map[int]Status{2: Partial}}
	finish(t, m, ft)
	if got := n.View.Get(2); got != (Entry{Status: Partial, Counter: 3}) {
		t.Fatalf("node 2 held %v after the interval, want its test's partial at 3", got)
	}
	if rep, err := n.Receive(5, later, n.List); err != nil || n.View.Get(2) != (Entry{Status: Faulty, Counter: 3}) || len(rep.Updates) != 1 {
		t.Fatalf("the rest merged at the end: %+v, %v, node 2 held %v; want the push's faulty at 3 (worse wins on equal counters)", rep, err, n.View.Get(2))
	}
	if _, _, err := m.Take(5, push, n.List); !errors.Is(err, ErrBadConfig) {
		t.Fatalf("Take after the interval: %v, want ErrBadConfig", err)
	}
}

// TestNewsTakenIsNoDispute: a source read after a push was taken, still
// holding the older entry, has not heard the news yet: the interval tests
// nothing to settle it (Config.Recheck), while a source that disagrees
// with an entry the interval began with still gets its re-test.
func TestNewsTakenIsNoDispute(t *testing.T) {
	n := midwayNode(t, false)
	n.Config.Recheck = true
	m := begin(t, n)
	push := Push{To: 0, Cluster: 3, Entries: []IDEntry{{ID: 6, Entry: Entry{Status: Faulty, Counter: 3}}}}
	if rep, _, err := m.Take(5, push, n.List); err != nil || len(rep.Updates) != 1 {
		t.Fatalf("take: %+v, %v; want node 6 faulty", rep, err)
	}
	// Every source holds nodes 6 and 7 faulty at counter 1, older than
	// node 0's entries: node 6's it took midway, node 7's it began with.
	view := NewDense(8)
	for id := range view {
		view[id] = Entry{Status: FaultFree, Counter: 2}
	}
	view[6], view[7] = Entry{Status: FaultFree, Counter: 1}, Entry{Status: Faulty, Counter: 1}
	ft := &fakeTester{views: map[int]View{1: view, 2: view, 4: view}}
	finish(t, m, ft)
	if got := targets(m.Report()); !slices.Equal(got, []int{1, 2, 4, 7}) {
		t.Fatalf("node 0 tested %v; want its plan [1 2 4] and node 7, not node 6", got)
	}
}

// TestRepairsShownBeforeTheFetches: a test that found a node held faulty
// fault-free again is committed and pushed while the interval waits on its
// fetches, with the counter the interval would have given it, and the
// interval's report does not repeat it.
func TestRepairsShownBeforeTheFetches(t *testing.T) {
	n := midwayNode(t, false, 4)
	m := begin(t, n)
	if rep, err := m.Repairs(); err != nil || len(rep.Updates) != 0 {
		t.Fatalf("repairs before any answer: %+v, %v; want none", rep, err)
	}
	ft := &fakeTester{}
	if err := m.Advance(answer(ft, m.Ready())); err != nil {
		t.Fatal(err)
	}
	if m.Done() || len(tested(m.Ready())) != 0 {
		t.Fatalf("after the tests the interval asks for %+v; want its fetches", m.Ready())
	}
	rep, err := m.Repairs()
	if err != nil {
		t.Fatal(err)
	}
	want := Entry{Status: FaultFree, Counter: 4}
	if len(rep.Updates) != 1 || rep.Updates[0].ID != 4 || rep.Updates[0].From != Direct || rep.Updates[0].New != want || n.View.Get(4) != want {
		t.Fatalf("repairs %+v, node 4 held %v; want node 4 fault-free at 4, direct", rep.Updates, n.View.Get(4))
	}
	if got := pushedTo(rep.Pushes); !slices.Equal(got, []int{4, 6, 2, 3, 1}) {
		t.Fatalf("pushes %+v; want one to each half of node 0's clusters 3 and 2, then one to its cluster 1", rep.Pushes)
	}
	if again, _ := m.Repairs(); len(again.Updates) != 0 {
		t.Fatalf("a second call repaired %+v again", again.Updates)
	}
	finish(t, m, ft)
	if r := m.Report(); len(r.Updates) != 0 || len(r.Pushes) != 0 || n.View.Get(4) != want {
		t.Fatalf("the interval reported %+v and pushed %+v, node 4 held %v; want nothing more", r.Updates, r.Pushes, n.View.Get(4))
	}
}

// TestRepairsWaitForAnIsolatedNode: a node that holds verdicts made while
// cut off commits no repair before its interval decides.
func TestRepairsWaitForAnIsolatedNode(t *testing.T) {
	n := midwayNode(t, false, 4)
	n.isolated = 1
	m := begin(t, n)
	if err := m.Advance(answer(&fakeTester{}, m.Ready())); err != nil {
		t.Fatal(err)
	}
	if rep, err := m.Repairs(); err != nil || len(rep.Updates) != 0 || n.View.Get(4).Status != Faulty {
		t.Fatalf("repairs %+v, %v; want none while isolated", rep, err)
	}
}

// TestPlanKeptWhenNewsComesMidway: under the rotating plan, node 0 tests 2
// and 3 in cluster 2 while it holds node 1 faulty. A push that node 1 is
// back comes while the tests run; the next pass would plan node 2 only,
// but the verdict on node 3, already answered, still counts.
func TestPlanKeptWhenNewsComesMidway(t *testing.T) {
	n := midwayNode(t, true, 1)
	n.Next = 2
	m := begin(t, n)
	if got := tested(m.Ready()); !slices.Equal(got, []int{2, 3}) {
		t.Fatalf("node 0 tests %v in cluster 2, want [2 3]", got)
	}
	back := Push{To: 0, Cluster: 3, Entries: []IDEntry{{ID: 1, Entry: Entry{Status: FaultFree, Counter: 4}}}}
	if rep, _, err := m.Take(5, back, n.List); err != nil || len(rep.Updates) != 1 {
		t.Fatalf("take: %+v, %v; want node 1 back", rep, err)
	}
	ft := &fakeTester{truth: map[int]Status{3: Faulty}}
	finish(t, m, ft)
	if r := m.Report(); r.Wasted != 0 || n.View.Get(3) != (Entry{Status: Faulty, Counter: 3}) {
		t.Fatalf("wasted %d answers, node 3 held %v; want node 3's test counted: faulty at 3", r.Wasted, n.View.Get(3))
	}
}

// pushedTo returns the receivers of pushes, in order.
func pushedTo(pushes []Push) []int {
	var out []int
	for _, p := range pushes {
		out = append(out, p.To)
	}
	return out
}

// TestDegradedNewsTakenDuringItsTest: news that a node under test is
// degraded is merged at once, not at the interval's end (a lossy member
// is slow to test, and its tester would be the last to know), and the
// verdict of that test, begun before the news, does not override it: a
// clean measurement leaves it degraded until the next interval's test. A
// degraded node's return, and other news about it, still wait.
func TestDegradedNewsTakenDuringItsTest(t *testing.T) {
	n := midwayNode(t, false, 4)
	n.Config.Vantage = 3
	m := begin(t, n)
	ops := m.Ready()
	if got := tested(ops); !slices.Equal(got, []int{1, 2, 4}) {
		t.Fatalf("node 0 tests %v, want [1 2 4]", got)
	}
	push := Push{To: 0, Cluster: 3, Entries: []IDEntry{
		{ID: 2, Entry: Entry{Status: Degraded, Counter: 3}}, // held up: merged now
		{ID: 4, Entry: Entry{Status: Degraded, Counter: 4}}, // held faulty, a return: waits
	}}
	rep, later, err := m.Take(5, push, n.List)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Updates) != 1 || rep.Updates[0].ID != 2 || n.View.Get(2) != (Entry{Status: Degraded, Counter: 3}) {
		t.Fatalf("updates %+v, node 2 held %v; want node 2 degraded at 3 at once", rep.Updates, n.View.Get(2))
	}
	if len(later.Entries) != 1 || later.Entries[0].ID != 4 {
		t.Fatalf("left for later %+v; want node 4's return alone", later)
	}
	// Node 2's test measured a clean link: 48 requests, none lost.
	res := make([]Result, len(ops))
	for k, op := range ops {
		res[k] = Result{Status: FaultFree, Sent: ConfirmRequests}
		if op.Target == 4 {
			res[k] = Result{Status: Faulty}
		}
	}
	if err := m.Advance(res); err != nil {
		t.Fatal(err)
	}
	finish(t, m, &fakeTester{truth: map[int]Status{4: Faulty}})
	if got := n.View.Get(2); got != (Entry{Status: Degraded, Counter: 3}) {
		t.Fatalf("node 2 held %v after the interval, want the news, degraded at 3", got)
	}
	// The next interval's test, begun after the news, decides.
	rep = runInterval(t, n, func(op Op) Result {
		switch {
		case op.Kind == OpFetch:
			return answer(&fakeTester{truth: map[int]Status{4: Faulty}}, []Op{op})[0]
		case op.Target == 4:
			return Result{Status: Faulty}
		}
		return Result{Status: FaultFree, Sent: ConfirmRequests}
	})
	if !slices.Contains(targets(rep), 2) {
		t.Fatalf("the next interval tested %v; want node 2 among them", targets(rep))
	}
	if got := n.View.Get(2); got.Status != FaultFree {
		t.Fatalf("node 2 held %v after a clean test begun after the news, want fault-free", got)
	}
}
