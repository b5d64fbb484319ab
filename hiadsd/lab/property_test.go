package lab

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/diagagent/diagagent/hiadsd"
)

// reference is the naive model: the true status of every node, nothing else.
type reference []hiadsd.Status

// wrongViews returns the first fault-free testing node whose view differs from
// what its algorithm can diagnose of the truth about some other node, or -1
// when every one is right.
func (ref reference) wrongViews(nw *Network) (holder, about int) {
	algo := nw.Algorithm()
	for h := range ref {
		if !nw.Testing(h) {
			continue
		}
		for k, want := range ref {
			if k != h && nw.View(h).Get(k).Status != algo.Sees(want) {
				return h, k
			}
		}
	}
	return -1, -1
}

// round steps every testing node once, in a random order.
func round(t *testing.T, nw *Network, rng *rand.Rand) {
	t.Helper()
	for _, id := range rng.Perm(nw.Config().N) {
		if !nw.Testing(id) {
			continue
		}
		if _, err := nw.Step(id); err != nil {
			t.Fatal(err)
		}
	}
}

// randomEvent picks a node and a new status for it that keeps at least two
// testing nodes fault-free.
func randomEvent(ref reference, nw *Network, rng *rand.Rand) (int, hiadsd.Status) {
	up := 0
	for id := range ref {
		if nw.Testing(id) {
			up++
		}
	}
	for {
		id := rng.IntN(len(ref))
		switch {
		case ref[id] != hiadsd.FaultFree:
			return id, hiadsd.FaultFree
		case up > 2 || !nw.Testing(id):
			return id, []hiadsd.Status{hiadsd.Faulty, hiadsd.Partial}[rng.IntN(2)]
		}
	}
}

// TestConvergesWithinBound checks, for every algorithm, random systems and
// random sequences of faults, partial faults and repairs (each held until
// diagnosed), that every fault-free node ends holding the true state of every
// other node (as its algorithm can see it) within LatencyBound rounds of each
// event.
//
// Every trial draws from its own seed, (trial, algorithm), so a failing
// subtest reproduces alone: go test -run 'TestConvergesWithinBound/vcube/n=17/trial=5'.
func TestConvergesWithinBound(t *testing.T) {
	for trial := 0; trial < 40; trial++ {
		for _, algo := range Algorithms() {
			rng := trialRand(trial, algo)
			n := 4 + rng.IntN(37)
			var testedOnly []int
			for id := 0; id < n; id++ {
				if rng.IntN(12) == 0 {
					testedOnly = append(testedOnly, id)
				}
			}
			// Odd trials run with Recheck, as the daemon does (it only changes Hi-ADSD).
			cfg := &hiadsd.Config{N: n, TestedOnly: testedOnly, Recheck: trial%2 == 1 && !algo.Research()}
			t.Run(fmt.Sprintf("%v/n=%d/trial=%d/recheck=%v", algo, n, trial, cfg.Recheck), func(t *testing.T) {
				checkRandomHistory(t, algo, cfg, rng)
			})
		}
	}
}

// TestSmallSystemsConverge runs the same check on 3 to 5 nodes, where rings,
// clusters and hypercubes are mostly missing ids.
func TestSmallSystemsConverge(t *testing.T) {
	for n := 3; n <= 5; n++ {
		for _, algo := range Algorithms() {
			for trial := 0; trial < 5; trial++ {
				t.Run(fmt.Sprintf("%v/n=%d/trial=%d", algo, n, trial), func(t *testing.T) {
					checkRandomHistory(t, algo, &hiadsd.Config{N: n}, trialRand(1000*n+trial, algo))
				})
			}
		}
	}
}

// newHistory returns a fault-free network of algo for cfg and its reference model.
func newHistory(t *testing.T, algo Algorithm, cfg *hiadsd.Config) (*Network, reference) {
	t.Helper()
	nw, err := New(algo, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ref := make(reference, cfg.N)
	for id := range ref {
		ref[id] = hiadsd.FaultFree
	}
	return nw, ref
}

// happen applies a random fault, partial fault or repair to the network and
// the model, and returns it.
func happen(t *testing.T, ref reference, nw *Network, rng *rand.Rand) (int, hiadsd.Status) {
	t.Helper()
	id, st := randomEvent(ref, nw, rng)
	ref[id] = st
	if err := nw.SetState(id, st); err != nil {
		t.Fatal(err)
	}
	return id, st
}

func checkRandomHistory(t *testing.T, algo Algorithm, cfg *hiadsd.Config, rng *rand.Rand) {
	nw, ref := newHistory(t, algo, cfg)
	bound := LatencyBound(algo, cfg.N)
	for ev := 0; ev < 8; ev++ {
		id, st := happen(t, ref, nw, rng)
		rounds := 0
		for h, k := ref.wrongViews(nw); h >= 0; h, k = ref.wrongViews(nw) {
			if rounds == bound {
				t.Fatalf("event %d (node %d -> %v): after %d rounds node %d holds %v for node %d, truth %v",
					ev, id, st, rounds, h, nw.View(h).Get(k), k, ref[k])
			}
			round(t, nw, rng)
			rounds++
		}
	}
}

// trialRand is the random source of one trial of one algorithm.
func trialRand(trial int, algo Algorithm) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(trial), uint64(algo)+1))
}

// TestStationReachesEveryNode checks, for every algorithm that fetches, that
// a station set at one fault-free node is held by every fault-free testing
// node within the algorithm's latency bound, while faults and repairs go on:
// the station rides the fetches of the diagnosis and the newer one wins.
// Brute force fetches nothing, so nothing it learns travels, the station
// included; it is left out.
func TestStationReachesEveryNode(t *testing.T) {
	for trial := 0; trial < 20; trial++ {
		for _, algo := range hiadsd.Algorithms() { // the station is the daemon's
			if algo == hiadsd.BruteForce {
				continue
			}
			rng := trialRand(trial, Algorithm(algo))
			n := 4 + rng.IntN(37)
			cfg := &hiadsd.Config{N: n, Algorithm: algo, Recheck: trial%2 == 1}
			t.Run(fmt.Sprintf("%v/n=%d/trial=%d", algo, n, trial), func(t *testing.T) {
				checkStationHistory(t, cfg, rng)
			})
		}
	}
}

func checkStationHistory(t *testing.T, cfg *hiadsd.Config, rng *rand.Rand) {
	nw, ref := newHistory(t, Algorithm(cfg.Algorithm), cfg)
	bound := hiadsd.LatencyBound(cfg.Algorithm, cfg.N)
	for ev := 0; ev < 6; ev++ {
		// A fault or repair first, diagnosed everywhere, then a station change.
		happen(t, ref, nw, rng)
		for rounds := 0; ; rounds++ {
			if h, _ := ref.wrongViews(nw); h < 0 {
				break
			}
			if rounds > 4*bound {
				t.Fatalf("event %d not diagnosed in %d rounds", ev, rounds)
			}
			round(t, nw, rng)
		}
		at := rng.IntN(cfg.N)
		for !nw.Testing(at) {
			at = rng.IntN(cfg.N)
		}
		ch, err := nw.SetStation(at, netip.AddrFrom4([4]byte{192, 0, 2, byte(rng.IntN(256))}))
		if err != nil {
			t.Fatal(err)
		}
		for rounds := 0; ; rounds++ {
			holder := -1
			for h := range ref {
				if nw.Testing(h) && nw.Node(h).Station != ch.New {
					holder = h
					break
				}
			}
			if holder < 0 {
				break
			}
			if rounds == bound {
				t.Fatalf("station change %d (%v set at node %d): after %d rounds node %d holds %v",
					ev, ch.New, at, rounds, holder, nw.Node(holder).Station)
			}
			round(t, nw, rng)
		}
	}
}
