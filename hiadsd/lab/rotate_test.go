package lab

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/diagagent/diagagent/hiadsd"
)

// rotationRound steps every testing node once in a random order, all at the
// same cluster (as the daemon's clock gives them), and returns how many
// tests each node ran and how many times each was tested.
func rotationRound(t *testing.T, nw *Network, s int, rng *rand.Rand) (ran, tested []int) {
	t.Helper()
	return rotationRoundLosing(t, nw, s, 0, rng)
}

// rotationRoundLosing is rotationRound with each push lost with
// probability loss.
func rotationRoundLosing(t *testing.T, nw *Network, s int, loss float64, rng *rand.Rand) (ran, tested []int) {
	t.Helper()
	n := nw.Config().N
	ran, tested = make([]int, n), make([]int, n)
	for _, id := range rng.Perm(n) {
		if !nw.Testing(id) {
			continue
		}
		nw.Node(id).Next = s
		rep, err := nw.Step(id)
		if err != nil {
			t.Fatal(err)
		}
		ran[id] = len(rep.Tests)
		for _, tr := range rep.Tests {
			tested[tr.Target]++
		}
		flood(t, nw, id, rep.Pushes, loss, rng)
	}
	return ran, tested
}

// TestRotationTestsEveryNodeEachInterval: with Rotate, while every node is
// fault-free and N is a power of two, the tests of an interval pair the
// nodes along one dimension: each runs one test and is tested once, where
// full vCube runs log2 N. With N not a power of two, or with nodes down for
// good, every node (the faulty ones included) is still tested every
// interval, by one node or a few more.
func TestRotationTestsEveryNodeEachInterval(t *testing.T) {
	for _, c := range []struct {
		n, down int
	}{{16, 0}, {64, 0}, {1024, 0}, {100, 0}, {64, 5}, {100, 9}} {
		t.Run(fmt.Sprintf("n=%d/down=%d", c.n, c.down), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(c.n), uint64(c.down)))
			nw, err := NewNetwork(&hiadsd.Config{N: c.n, Algorithm: hiadsd.VCube, Rotate: true, Push: true})
			if err != nil {
				t.Fatal(err)
			}
			nw.SetDigests(true)
			for range c.down {
				if err := nw.SetState(rng.IntN(c.n), hiadsd.Faulty); err != nil {
					t.Fatal(err)
				}
			}
			l := hiadsd.Levels(c.n)
			for r := range 3 * l { // the first rounds learn the faults
				rotationRound(t, nw, r%l+1, rng)
			}
			tests, most := 0, 0
			for r := range l {
				ran, tested := rotationRound(t, nw, r%l+1, rng)
				for id := range c.n {
					tests += ran[id]
					most = max(most, tested[id])
					if tested[id] == 0 {
						t.Fatalf("cluster %d: node %d tested by no node", r%l+1, id)
					}
					if c.down == 0 && c.n&(c.n-1) == 0 && (ran[id] != 1 || tested[id] != 1) {
						t.Fatalf("cluster %d: node %d ran %d tests and was tested %d times; want 1 and 1", r%l+1, id, ran[id], tested[id])
					}
				}
			}
			perNode := float64(tests) / float64(l*c.n)
			t.Logf("%.2f tests per node per interval (full vCube: about %d), a node tested at most %d times in one", perNode, l, most)
			if perNode > 1.5 {
				t.Fatalf("%.2f tests per node per interval, want about 1", perNode)
			}
		})
	}
}

// TestRotationSpreadsWithinTheBound: pulling only, an event found at one
// node reaches every fault-free node within 2·log2 N intervals after the
// one it was found in: one turn of the clusters when N is a power of two
// and no node is down (the pairings walk every dimension of the hypercube),
// up to a second where a missing or faulty partner sends the news round.
// With pushes it is known at the end of the interval that found it, and
// with half the pushes lost pulling still keeps the 2·log2 N bound.
func TestRotationSpreadsWithinTheBound(t *testing.T) {
	for trial := range 12 {
		rng := rand.New(rand.NewPCG(uint64(trial), 11))
		n := 4 + rng.IntN(300)
		for _, c := range []struct {
			name string
			push bool
			loss float64
		}{{"pull", false, 0}, {"push", true, 0}, {"half the pushes lost", true, 0.5}} {
			t.Run(fmt.Sprintf("n=%d/%s", n, c.name), func(t *testing.T) {
				nw, ref := newHistory(t, VCube, &hiadsd.Config{N: n, Algorithm: hiadsd.VCube, Rotate: true, Push: c.push})
				nw.SetDigests(true)
				l := hiadsd.Levels(n)
				bound := 1 // the interval that finds it
				if !c.push || c.loss > 0 {
					bound += 2 * l
				}
				r, worst := 0, 0
				for ev := 0; ev < 8; ev++ {
					id, st := happen(t, ref, nw, rng)
					rounds := 0
					for h, k := ref.wrongViews(nw); h >= 0; h, k = ref.wrongViews(nw) {
						if rounds == bound+1 { // +1: the interval under way may have tested the node already
							t.Fatalf("event %d (node %d -> %v): after %d intervals node %d holds %v for node %d", ev, id, st, rounds, h, nw.View(h).Get(k), k)
						}
						rotationRoundLosing(t, nw, r%l+1, c.loss, rng)
						r, rounds = r+1, rounds+1
					}
					worst = max(worst, rounds)
				}
				t.Logf("worst: known everywhere after %d intervals (bound %d + 1)", worst, bound)
			})
		}
	}
}
