package lab

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/diagagent/diagagent/hiadsd"
)

// membershipAlgos are the algorithms of the daemon that fetch, so a list
// travels with their diagnosis; brute force fetches nothing, and its lists
// are changed on every node by hand.
var membershipAlgos = []Algorithm{VCube, HiADSD, VRing}

// stepRound steps every testing node once, in a random order, through the
// Network, so each switches list as the daemon does after an interval; it
// fails the test on any faulty or partial verdict, which no list change
// may cause in a system where nothing fails.
func stepRound(t *testing.T, nw *Network, rng *rand.Rand) {
	t.Helper()
	for _, id := range rng.Perm(len(nw.hosts)) {
		if !nw.Testing(id) {
			continue
		}
		rep, err := nw.Step(id)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range rep.Updates {
			if u.New.Status == hiadsd.Faulty || u.New.Status == hiadsd.Partial {
				t.Fatalf("node %d holds node %d %v (from %d) though nothing failed", id, u.ID, u.New.Status, u.From)
			}
		}
	}
}

// settled reports whether every testing node runs the newest list and holds
// every member of it fault-free.
func settled(nw *Network) bool {
	for h := range nw.hosts {
		if !nw.Testing(h) {
			continue
		}
		n := nw.Node(h)
		if n.List != nw.Version() {
			return false
		}
		for k := 0; k < n.Config.N; k++ {
			if k != h && !n.Config.IsRemoved(k) && !n.Config.IsTestedOnly(k) && n.View.Get(k).Status != hiadsd.FaultFree {
				return false
			}
		}
	}
	return true
}

// TestListChangesConverge joins and removes nodes at random, through random
// nodes, in random systems, and checks that every testing node runs the
// newest list and holds every member fault-free within hiadsd.MembershipBound rounds
// of each change, and that no change ever makes a node hold another faulty
// or partial.
//
// A failing subtest reproduces alone: go test -run 'TestListChangesConverge/vcube/trial=5'.
func TestListChangesConverge(t *testing.T) {
	worst := map[Algorithm]int{}
	defer func() { t.Logf("worst rounds to settle: %v", worst) }()
	for trial := range 30 {
		for _, algo := range membershipAlgos {
			t.Run(fmt.Sprintf("%v/trial=%d", algo, trial), func(t *testing.T) {
				rng := trialRand(trial, algo)
				nw, err := New(algo, &hiadsd.Config{N: 4 + rng.IntN(29), Recheck: algo == HiADSD})
				if err != nil {
					t.Fatal(err)
				}
				for change := range 6 {
					what := changeAtRandom(t, nw, rng)
					bound := hiadsd.MembershipBound(nw.Config().Algorithm, nw.Config().N)
					r := 1
					for ; r <= bound; r++ {
						stepRound(t, nw, rng)
						if settled(nw) {
							break
						}
					}
					worst[algo] = max(worst[algo], r)
					if r > bound {
						t.Fatalf("change %d (%s): not settled after %d rounds (bound %d)", change, what, bound, bound)
					}
				}
			})
		}
	}
}

// changeAtRandom joins a node or removes one, through a random testing
// node, keeping at least three members; it says what it did.
func changeAtRandom(t *testing.T, nw *Network, rng *rand.Rand) string {
	t.Helper()
	var members []int
	for id := range nw.hosts {
		if nw.Testing(id) {
			members = append(members, id)
		}
	}
	via := members[rng.IntN(len(members))]
	if len(members) <= 3 || rng.IntN(2) == 0 {
		id, err := nw.Join(via)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%d joined through %d", id, via)
	}
	id := via
	for id == via {
		id = members[rng.IntN(len(members))]
	}
	if err := nw.Leave(id, via); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d left through %d", id, via)
}
