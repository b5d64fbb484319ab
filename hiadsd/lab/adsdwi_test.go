package lab

import (
	"slices"
	"testing"

	"github.com/diagagent/diagagent/hiadsd"
)

// TestIntersectionsLayout checks the layout of seed 003, section 3: ten nodes
// make an intersection and three rings of three (Fig. 2's three clusters of
// three), PRIORITY lists the intersection, then its testers, then theirs, and
// 1,024 nodes get sqrt(N) = 32 rings, the minimum of p + N/p (section 3.2).
func TestIntersectionsLayout(t *testing.T) {
	g := NewIntersections(10)
	if g.P != 3 || g.Size != 3 {
		t.Fatalf("N=10: %d rings of %d, want 3 of 3", g.P, g.Size)
	}
	for c, want := range []hiadsd.Range{{Lo: 1, Hi: 4}, {Lo: 4, Hi: 7}, {Lo: 7, Hi: 10}} {
		if got := g.Block(c); got != want {
			t.Errorf("ring %d = %v, want %v", c, got, want)
		}
	}
	if got, want := g.Priority(), []int{0, 3, 6, 9, 2, 5, 8, 1, 4, 7}; !slices.Equal(got, want) {
		t.Errorf("PRIORITY = %v, want %v", got, want)
	}
	if g := NewIntersections(1024); g.P != 32 || g.Size != 32 {
		t.Errorf("N=1024: %d rings of %d, want 32 of 32", g.P, g.Size)
	}
}

// stepAll runs one interval of every testing node of nw in id order and
// returns each node's report.
func stepAll(t *testing.T, nw *Network) map[int]Report {
	t.Helper()
	out := map[int]Report{}
	stepEach(t, nw, func(id int, rep Report) { out[id] = rep }, nil)
	return out
}

// stepEach runs one interval of every testing node of nw in id order,
// hands each report to stepped (if not nil), and delivers the pushes each
// node sends, and those they are passed on in, before the next node steps,
// calling pushed (if not nil) for every status change a receiver makes.
func stepEach(t *testing.T, nw *Network, stepped func(id int, rep Report), pushed func(to int, u hiadsd.Update)) {
	t.Helper()
	for id := 0; id < nw.Config().N; id++ {
		if !nw.Testing(id) {
			continue
		}
		rep, err := nw.Step(id)
		if err != nil {
			t.Fatal(err)
		}
		if stepped != nil {
			stepped(id, rep)
		}
		deliverAll(t, nw, id, rep.Pushes, pushed)
	}
}

// TestADSDwITests checks section 3.1's testing pattern on ten fault-free
// nodes: every ring member tests its successor, the last one the
// intersection, and the intersection tests one node in each ring and takes
// only that ring's entries.
func TestADSDwITests(t *testing.T) {
	nw, err := New(ADSDwI, &hiadsd.Config{N: 10})
	if err != nil {
		t.Fatal(err)
	}
	reps := stepAll(t, nw)
	want := map[int][]int{0: {1, 4, 7}, 1: {2}, 2: {3}, 3: {0}, 4: {5}, 5: {6}, 6: {0}, 7: {8}, 8: {9}, 9: {0}}
	for id, tw := range want {
		if got := targets(reps[id]); !slices.Equal(got, tw) {
			t.Errorf("node %d tested %v, want %v", id, got, tw)
		}
	}
	for k, f := range reps[0].Fetches {
		if b := NewIntersections(10).Block(k); len(f.Ranges) != 1 || f.Ranges[0] != b {
			t.Errorf("intersection fetch %d asked for %v, want ring %v only", k, f.Ranges, b)
		}
	}
}

// TestADSDwITakeOver fails the intersection: node 3, PRIORITY[1] and the
// last member of ring 0, finds it faulty, serves as the intersection (one
// test in each other ring, then its own ring's successor), and the last
// members of the other rings find node 3 after node 0.
func TestADSDwITakeOver(t *testing.T) {
	nw, err := New(ADSDwI, &hiadsd.Config{N: 10})
	if err != nil {
		t.Fatal(err)
	}
	if err := nw.SetState(0, hiadsd.Faulty); err != nil {
		t.Fatal(err)
	}
	reps := stepAll(t, nw)
	want := map[int][]int{3: {0, 4, 7, 1}, 6: {0, 3}, 9: {0, 3}}
	for id, tw := range want {
		if got := targets(reps[id]); !slices.Equal(got, tw) {
			t.Errorf("node %d tested %v, want %v", id, got, tw)
		}
	}
	if got := nw.View(6).Get(0).Status; got != hiadsd.Faulty {
		t.Errorf("node 6 holds the old intersection %v, want faulty", got)
	}
}
