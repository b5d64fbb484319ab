package lab

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/diagagent/diagagent/hiadsd"
)

// flood delivers pushes sent by from, and everything they cause to be
// passed on, each lost with probability loss; a push its node does not
// take goes to the sender's next alternate, as the daemon sends it. It
// returns the deepest hop reached and the messages sent.
func flood(t *testing.T, nw *Network, from int, pushes []hiadsd.Push, loss float64, rng *rand.Rand) (hops, msgs int) {
	t.Helper()
	type hop struct {
		from, depth int
		p           hiadsd.Push
	}
	var queue []hop
	for _, p := range pushes {
		queue = append(queue, hop{from, 1, p})
	}
	for len(queue) > 0 {
		h := queue[0]
		queue = queue[1:]
		msgs++
		if loss > 0 && rng.Float64() < loss {
			continue
		}
		rep, err := nw.Deliver(h.from, h.p)
		if errors.Is(err, ErrNoAnswer) {
			if alt := h.p.Alternates; len(alt) > 0 {
				h.p.To, h.p.Alternates = alt[0], alt[1:]
				queue = append(queue, h)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		hops = max(hops, h.depth)
		for _, p := range rep.Pushes {
			queue = append(queue, hop{h.p.To, h.depth + 1, p})
		}
	}
	return hops, msgs
}

// pushRound steps every testing node once in a random order, flooding each
// interval's pushes at once, and returns the deepest hop and the messages.
func pushRound(t *testing.T, nw *Network, loss float64, rng *rand.Rand) (hops, msgs int) {
	t.Helper()
	for _, id := range rng.Perm(nw.Config().N) {
		if !nw.Testing(id) {
			continue
		}
		rep, err := nw.Step(id)
		if err != nil {
			t.Fatal(err)
		}
		h, m := flood(t, nw, id, rep.Pushes, loss, rng)
		hops, msgs = max(hops, h), msgs+m
	}
	return hops, msgs
}

// TestPushReachesEveryNodeInOneRound: on vCube systems of 16 to 1,024 nodes,
// some already faulty, a crash (and then its repair) is held by every
// fault-free node at the end of the round in which a tester first sees
// it, since vCube tests every node every round and the push needs no
// round of its own; it travels at most ceil(log2 N / 2) hops. Without pushes the
// same round leaves some node unaware.
func TestPushReachesEveryNodeInOneRound(t *testing.T) {
	for _, n := range []int{16, 64, 100, 256, 1024} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(n), 3))
			for _, push := range []bool{true, false} {
				nw, err := NewNetwork(&hiadsd.Config{N: n, Algorithm: hiadsd.VCube, Push: push})
				if err != nil {
					t.Fatal(err)
				}
				nw.SetDigests(true)
				ref := make(reference, n)
				for id := range ref {
					ref[id] = hiadsd.FaultFree
				}
				for range n / 16 { // some nodes down for good, known everywhere
					id := rng.IntN(n)
					ref[id] = hiadsd.Faulty
					if err := nw.SetState(id, hiadsd.Faulty); err != nil {
						t.Fatal(err)
					}
				}
				for range 2 * hiadsd.Levels(n) {
					pushRound(t, nw, 0, rng)
				}
				if h, k := ref.wrongViews(nw); h >= 0 {
					t.Fatalf("before the crash node %d holds %v for node %d", h, nw.View(h).Get(k), k)
				}
				crash := rng.IntN(n)
				for ref[crash] != hiadsd.FaultFree {
					crash = rng.IntN(n)
				}
				for _, st := range []hiadsd.Status{hiadsd.Partial, hiadsd.FaultFree} {
					ref[crash] = st
					if err := nw.SetState(crash, st); err != nil {
						t.Fatal(err)
					}
					hops, msgs := pushRound(t, nw, 0, rng)
					h, k := ref.wrongViews(nw)
					switch {
					case push && h >= 0:
						t.Fatalf("node %d -> %v: after one round node %d holds %v for node %d", crash, st, h, nw.View(h).Get(k), k)
					case push && hops > hiadsd.PushDepth(n):
						t.Fatalf("node %d -> %v: a push took %d hops, more than log2 N / 2 = %d", crash, st, hops, hiadsd.PushDepth(n))
					case !push && h < 0 && st == hiadsd.Partial:
						t.Fatalf("node %d -> %v: known everywhere after one round without pushes; the test shows nothing", crash, st)
					case !push:
						continue
					}
					t.Logf("node %d -> %v known everywhere after one round: %d hops, %d messages", crash, st, hops, msgs)
					for range hiadsd.Levels(n) + 1 { // the restarted node catches up before the next event
						pushRound(t, nw, 0, rng)
					}
				}
			}
		})
	}
}

// TestPushesLostKeepTheBound runs random histories with pushes on and half
// of them lost (and digests on, as the daemon runs): every fault-free node
// still holds the truth within the pull's LatencyBound, for every
// algorithm; pushes only make it sooner.
func TestPushesLostKeepTheBound(t *testing.T) {
	for trial := 0; trial < 16; trial++ {
		for _, algo := range hiadsd.Algorithms() { // pushes are the daemon's
			rng := trialRand(trial, Algorithm(algo))
			n := 4 + rng.IntN(45)
			cfg := &hiadsd.Config{N: n, Algorithm: algo, Push: true, Recheck: trial%2 == 1}
			t.Run(fmt.Sprintf("%v/n=%d/trial=%d", algo, n, trial), func(t *testing.T) {
				nw, ref := newHistory(t, Algorithm(cfg.Algorithm), cfg)
				nw.SetDigests(true)
				bound := hiadsd.LatencyBound(algo, n)
				for ev := 0; ev < 8; ev++ {
					id, st := happen(t, ref, nw, rng)
					for rounds := 0; ; rounds++ {
						h, k := ref.wrongViews(nw)
						if h < 0 {
							break
						}
						if rounds == bound {
							t.Fatalf("event %d (node %d -> %v): after %d rounds node %d holds %v for node %d", ev, id, st, rounds, h, nw.View(h).Get(k), k)
						}
						pushRound(t, nw, 0.5, rng)
					}
				}
			})
		}
	}
}

// TestReceive checks the rules a push is merged by: a newer entry is taken
// and passed on below the cluster it came for, an equal one passed on only,
// an older one (late or replayed) neither; entries about the receiver, of
// status hiadsd.Unknown or outside the list are dropped; a push from another list
// or for a cluster that does not exist is refused.
func TestReceive(t *testing.T) {
	cfg := &hiadsd.Config{N: 16, Algorithm: hiadsd.VCube, Push: true}
	view := hiadsd.NewDense(16)
	for id := range view {
		view[id] = hiadsd.Entry{Status: hiadsd.FaultFree, Counter: 2}
	}
	n, err := hiadsd.NewNode(cfg, 0, view)
	if err != nil {
		t.Fatal(err)
	}
	n.List = hiadsd.ListVersion{Counter: 1, Hash: 7}
	push := hiadsd.Push{To: 0, Cluster: 4, Entries: []hiadsd.IDEntry{
		{ID: 5, Entry: hiadsd.Entry{Status: hiadsd.Faulty, Counter: 3}},    // newer: taken, passed on
		{ID: 6, Entry: hiadsd.Entry{Status: hiadsd.FaultFree, Counter: 2}}, // equal: passed on
		{ID: 7, Entry: hiadsd.Entry{Status: hiadsd.Faulty, Counter: 1}},    // older: dropped
		{ID: 0, Entry: hiadsd.Entry{Status: hiadsd.Faulty, Counter: 9}},    // about the receiver
		{ID: 9, Entry: hiadsd.Entry{Status: hiadsd.Unknown, Counter: 9}},   // unknown
		{ID: 16, Entry: hiadsd.Entry{Status: hiadsd.Faulty, Counter: 9}},   // outside
	}}
	rep, err := n.Receive(8, push, n.List)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Updates) != 1 || rep.Updates[0].ID != 5 || rep.Updates[0].From != 8 || n.View.Get(5) != (hiadsd.Entry{Status: hiadsd.Faulty, Counter: 3}) {
		t.Fatalf("updates %+v, entry 5 now %v; want node 5 faulty at 3, learned from 8", rep.Updates, n.View.Get(5))
	}
	if n.View.Get(0).Status != hiadsd.FaultFree || n.View.Get(7) != (hiadsd.Entry{Status: hiadsd.FaultFree, Counter: 2}) || n.View.Get(9).Status != hiadsd.FaultFree {
		t.Fatalf("a dropped entry changed the view: %v %v %v", n.View.Get(0), n.View.Get(7), n.View.Get(9))
	}
	// hiadsd.Node 0's clusters 1..3 are {1}, {2,3}, {4..7}, the last two sent to in
	// halves, {2}, {3}, {4,5}, {6,7}; node 5 is now faulty, 4 is first anyway.
	want := map[int]int{1: 1, 2: 1, 3: 1, 4: 2, 6: 2}
	if len(rep.Pushes) != len(want) {
		t.Fatalf("passed on %+v; want one push to each of %v", rep.Pushes, want)
	}
	for _, p := range rep.Pushes {
		if want[p.To] != p.Cluster || len(p.Entries) != 2 || p.Entries[0].ID != 5 || p.Entries[1].ID != 6 {
			t.Fatalf("passed on %+v; want entries 5 and 6 to nodes %v (node: cluster)", p, want)
		}
	}
	// A replay of the older news after a newer event changes nothing and goes nowhere.
	n.View.Set(5, hiadsd.Entry{Status: hiadsd.FaultFree, Counter: 4})
	if rep, err := n.Receive(8, hiadsd.Push{To: 0, Cluster: 4, Entries: []hiadsd.IDEntry{{ID: 5, Entry: hiadsd.Entry{Status: hiadsd.Faulty, Counter: 3}}}}, n.List); err != nil || len(rep.Updates) > 0 || len(rep.Pushes) > 0 || n.View.Get(5) != (hiadsd.Entry{Status: hiadsd.FaultFree, Counter: 4}) {
		t.Fatalf("replay: %+v, %v, entry %v; want nothing done", rep, err, n.View.Get(5))
	}
	// Cluster 1 is a leaf of the tree: taken, passed on nowhere.
	if rep, err := n.Receive(1, hiadsd.Push{To: 0, Cluster: 1, Entries: []hiadsd.IDEntry{{ID: 3, Entry: hiadsd.Entry{Status: hiadsd.Partial, Counter: 3}}}}, n.List); err != nil || len(rep.Updates) != 1 || len(rep.Pushes) > 0 {
		t.Fatalf("leaf: %+v, %v; want one update and nothing passed on", rep, err)
	}
	for name, c := range map[string]struct {
		from, cluster int
		v             hiadsd.ListVersion
		err           error
	}{
		"other list":   {8, 4, hiadsd.ListVersion{Counter: 2, Hash: 1}, hiadsd.ErrOtherList},
		"cluster 5":    {8, 5, n.List, hiadsd.ErrBadConfig},
		"cluster 0":    {8, 0, n.List, hiadsd.ErrBadConfig},
		"from itself":  {0, 1, n.List, hiadsd.ErrBadConfig},
		"from outside": {16, 1, n.List, hiadsd.ErrBadConfig},
	} {
		if _, err := n.Receive(c.from, hiadsd.Push{To: 0, Cluster: c.cluster, Entries: []hiadsd.IDEntry{{ID: 3, Entry: hiadsd.Entry{Status: hiadsd.Faulty, Counter: 9}}}}, c.v); !errors.Is(err, c.err) {
			t.Errorf("%s: error %v, want %v", name, err, c.err)
		}
	}
	if n.View.Get(3) != (hiadsd.Entry{Status: hiadsd.Partial, Counter: 3}) {
		t.Fatalf("a refused push changed entry 3 to %v", n.View.Get(3))
	}
}

// TestSameNewsPassedOnOnce: every tester that finds a repair at once roots
// a tree of its own. A node passes the repair on down the first tree that
// brings it; the same entry from a second tree is neither taken again nor
// passed on. An entry the node learned by pull is still passed on the
// first time a push brings it.
func TestSameNewsPassedOnOnce(t *testing.T) {
	cfg := &hiadsd.Config{N: 16, Algorithm: hiadsd.VCube, Push: true}
	view := hiadsd.NewDense(16)
	for id := range view {
		view[id] = hiadsd.Entry{Status: hiadsd.FaultFree, Counter: 2}
	}
	view[5] = hiadsd.Entry{Status: hiadsd.Faulty, Counter: 1}
	n, err := hiadsd.NewNode(cfg, 0, view)
	if err != nil {
		t.Fatal(err)
	}
	repair := []hiadsd.IDEntry{{ID: 5, Entry: hiadsd.Entry{Status: hiadsd.FaultFree, Counter: 2}}}
	first, err := n.Receive(8, hiadsd.Push{To: 0, Cluster: 4, Entries: repair}, n.List)
	if err != nil || len(first.Updates) != 1 || len(first.Pushes) == 0 {
		t.Fatalf("first tree: %+v, %v; want node 5 repaired and passed on", first, err)
	}
	again, err := n.Receive(12, hiadsd.Push{To: 0, Cluster: 4, Entries: repair}, n.List)
	if err != nil || len(again.Updates) != 0 || len(again.Pushes) != 0 {
		t.Fatalf("second tree: %+v, %v; want nothing taken or passed on", again, err)
	}
	// Learned by pull (a fetch sets the view): the first push still goes on.
	n.View.Set(7, hiadsd.Entry{Status: hiadsd.Partial, Counter: 3})
	pulled := []hiadsd.IDEntry{{ID: 7, Entry: hiadsd.Entry{Status: hiadsd.Partial, Counter: 3}}}
	if rep, err := n.Receive(8, hiadsd.Push{To: 0, Cluster: 4, Entries: pulled}, n.List); err != nil || len(rep.Updates) != 0 || len(rep.Pushes) == 0 {
		t.Fatalf("news learned by pull: %+v, %v; want no change and the push passed on", rep, err)
	}
}

// TestPushGoesRoundAFailedChild: nodes 1 and 12 of 16 fail at once. hiadsd.Node 0
// finds node 1 faulty and pushes; it sends the half {12..15} of its cluster
// c(0,4) to node 12, which it still holds fault-free. hiadsd.Node 12 does not
// take it, so node 0 tries its alternate, node 13, which roots the rest of
// that half: every fault-free node knows of node 1 without waiting for an
// interval of its own.
func TestPushGoesRoundAFailedChild(t *testing.T) {
	nw, err := NewNetwork(&hiadsd.Config{N: 16, Algorithm: hiadsd.VCube, Push: true})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	for range 2 {
		pushRound(t, nw, 0, rng)
	}
	for _, id := range []int{1, 12} {
		if err := nw.SetState(id, hiadsd.Faulty); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := nw.Step(0)
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(rep.Pushes, func(p hiadsd.Push) bool { return p.To == 12 }); i < 0 || rep.Pushes[i].Cluster != 3 || !slices.Equal(rep.Pushes[i].Alternates, []int{13, 14}) {
		t.Fatalf("node 0's pushes %+v; want one to node 12 for its clusters 1 and 2, then 13 and 14", rep.Pushes)
	}
	flood(t, nw, 0, rep.Pushes, 0, rng)
	for id := range 16 {
		if nw.Testing(id) && id != 0 && nw.View(id).Get(1).Status != hiadsd.Faulty {
			t.Errorf("node %d holds node 1 %v after node 0's push", id, nw.View(id).Get(1).Status)
		}
	}
}
