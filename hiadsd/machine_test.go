package hiadsd

import (
	"errors"
	"net/netip"
	"slices"
	"strconv"
	"testing"
)

// answer answers ops from the fake world, as a caller of the machine does.
func answer(f *fakeTester, ops []Op) []Result {
	res := make([]Result, len(ops))
	for k, op := range ops {
		switch op.Kind {
		case OpTest:
			res[k].Status = f.Test(op.Target)
		case OpFetch:
			res[k].Entries, res[k].Err = f.Fetch(op.Target, op.Ranges)
		}
	}
	return res
}

// opsOf renders a batch as "test 1", "fetch 1 [0,8)" for comparison.
func opsOf(ops []Op) []string {
	var out []string
	for _, op := range ops {
		s := op.Kind.String() + " " + itoa(op.Target)
		for _, r := range op.Ranges {
			s += " [" + itoa(r.Lo) + "," + itoa(r.Hi) + ")"
		}
		out = append(out, s)
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestVCubeIsTwoBatches checks that a vCube interval hands back all its
// tests in one batch, then the fetches from the sources found, and ends when
// they are answered.
func TestVCubeIsTwoBatches(t *testing.T) {
	n := newTestNode(t, &Config{N: 8, Algorithm: VCube}, 0)
	var m Interval
	if err := m.Begin(n); err != nil {
		t.Fatal(err)
	}
	ft := &fakeTester{truth: map[int]Status{2: Faulty}}
	var batches [][]string
	for !m.Done() {
		batches = append(batches, opsOf(m.Ready()))
		if err := m.Advance(answer(ft, m.Ready())); err != nil {
			t.Fatal(err)
		}
	}
	want := [][]string{{"test 1", "test 2", "test 4"}, {"fetch 1 [0,8)", "fetch 4 [0,8)"}}
	if !slices.EqualFunc(batches, want, slices.Equal) {
		t.Fatalf("batches %v, want %v", batches, want)
	}
	if m.Ready() != nil {
		t.Fatalf("ops after the end: %v", opsOf(m.Ready()))
	}
	if r := m.Report(); len(r.Tests) != 3 || len(r.Fetches) != 2 || r.Wasted != 0 {
		t.Fatalf("report %+v, want 3 tests, 2 fetches, nothing wasted", r)
	}
}

// TestHiADSDOverturnedExpectation checks Hi-ADSD's walk: the cluster head,
// held fault-free, is tested; when it is found faulty the next batch tests
// the next node, and only a node found fault-free is read. A node held
// faulty before the head is tested in the same batch as the head.
func TestHiADSDOverturnedExpectation(t *testing.T) {
	n := newTestNode(t, &Config{N: 8, Algorithm: HiADSD}, 0)
	n.Next = 3
	ft := &fakeTester{truth: map[int]Status{4: Faulty}}
	var m Interval
	if err := m.Begin(n); err != nil {
		t.Fatal(err)
	}
	var batches [][]string
	for !m.Done() {
		batches = append(batches, opsOf(m.Ready()))
		if err := m.Advance(answer(ft, m.Ready())); err != nil {
			t.Fatal(err)
		}
	}
	want := [][]string{{"test 4"}, {"test 5"}, {"fetch 5 [4,8)"}}
	if !slices.EqualFunc(batches, want, slices.Equal) {
		t.Fatalf("batches %v, want %v", batches, want)
	}
	r := m.Report()
	if got := targets(r); !slices.Equal(got, []int{4, 5}) {
		t.Fatalf("tests %v, want [4 5]", got)
	}
	if len(r.Fetches) != 1 || r.Fetches[0].From != 5 || r.Wasted != 0 {
		t.Fatalf("fetches %+v, wasted %d; want one fetch from 5 and no wasted answer", r.Fetches, r.Wasted)
	}
	if n.View.Get(4).Status != Faulty || n.Next != 1 {
		t.Fatalf("view holds 4 as %v, next level %d", n.View.Get(4), n.Next)
	}
	// Now held faulty, node 4 and node 5 (held fault-free) go out together.
	n.Next = 3
	if err := m.Begin(n); err != nil {
		t.Fatal(err)
	}
	if got := opsOf(m.Ready()); !slices.Equal(got, []string{"test 4", "test 5"}) {
		t.Fatalf("batch with node 4 held faulty: %v, want [test 4 test 5]", got)
	}
	// Node 4 is repaired: it is the source, and node 5's answer goes unused.
	ft.truth = nil
	for !m.Done() {
		if err := m.Advance(answer(ft, m.Ready())); err != nil {
			t.Fatal(err)
		}
	}
	if r := m.Report(); r.Wasted != 1 || len(r.Fetches) != 1 || r.Fetches[0].From != 4 {
		t.Fatalf("fetches %+v, wasted %d; want one fetch from 4 and node 5's answer unused", r.Fetches, r.Wasted)
	}
}

// TestSpeculationIsUndone checks that a pass on expected answers leaves the
// view, the level and the station as they were until the real answers come.
func TestSpeculationIsUndone(t *testing.T) {
	n := newTestNode(t, &Config{N: 8, Algorithm: HiADSD}, 0)
	n.View.Set(5, Entry{Status: Faulty, Counter: 2})
	n.Station = Station{Addr: netip.MustParseAddr("192.0.2.1"), Counter: 1}
	before := slices.Clone(n.View.(Dense))
	var m Interval
	if err := m.Begin(n); err != nil {
		t.Fatal(err)
	}
	if m.Done() || !slices.Equal(before, n.View.(Dense)) || n.Next != 1 {
		t.Fatalf("a pass with open ops changed the node: view %v, next %d", n.View, n.Next)
	}
	if err := m.Advance(nil); err == nil {
		t.Fatal("Advance with too few results was accepted")
	}
	if err := m.Advance(answer(&fakeTester{}, m.Ready())); err != nil {
		t.Fatal(err)
	}
	for !m.Done() {
		if err := m.Advance(answer(&fakeTester{}, m.Ready())); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Advance(nil); err == nil {
		t.Fatal("Advance after the end was accepted")
	}
}

// TestStationRidesTheFetch checks that a newer station in a fetch answer is
// adopted and reported, and an older one ignored.
func TestStationRidesTheFetch(t *testing.T) {
	n := newTestNode(t, &Config{N: 4, Algorithm: VCube}, 0)
	n.Station = Station{Addr: netip.MustParseAddr("192.0.2.5"), Counter: 2}
	newer := Station{Addr: netip.MustParseAddr("192.0.2.1"), Counter: 3}
	var m Interval
	if err := m.Begin(n); err != nil {
		t.Fatal(err)
	}
	for !m.Done() {
		res := answer(&fakeTester{}, m.Ready())
		for k, op := range m.Ready() {
			if op.Kind == OpFetch && op.Target == 2 {
				res[k].Station = newer
			} else if op.Kind == OpFetch {
				res[k].Station = Station{Addr: netip.MustParseAddr("192.0.2.9"), Counter: 2}
			}
		}
		if err := m.Advance(res); err != nil {
			t.Fatal(err)
		}
	}
	r := m.Report()
	if n.Station != newer || len(r.Station) != 2 || r.Station[1].New != newer || r.Station[1].From != 2 {
		t.Fatalf("station %v, changes %+v; want %v learned from 2 last", n.Station, r.Station, newer)
	}
}

// TestStationNewer checks the merge rule: counter first, then address.
func TestStationNewer(t *testing.T) {
	a, b := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	cases := []struct {
		s, old Station
		want   bool
	}{
		{Station{a, 2}, Station{b, 1}, true},
		{Station{b, 1}, Station{a, 2}, false},
		{Station{b, 1}, Station{a, 1}, true},
		{Station{a, 1}, Station{b, 1}, false},
		{Station{a, 1}, Station{a, 1}, false},
		{Station{}, Station{}, false},
		{Station{Counter: 9}, Station{a, 1}, false},
	}
	for _, c := range cases {
		if got := c.s.Newer(c.old); got != c.want {
			t.Errorf("%v.Newer(%v) = %v, want %v", c.s, c.old, got, c.want)
		}
	}
}

// TestBeginTestedOnly checks that a tested-only node has no interval.
func TestBeginTestedOnly(t *testing.T) {
	n := &Node{ID: 1, Config: &Config{N: 4, Algorithm: VCube, TestedOnly: []int{1}}, View: converged(4)}
	if err := new(Interval).Begin(n); !errors.Is(err, ErrTestedOnly) {
		t.Fatalf("Begin of a tested-only node: %v", err)
	}
}
