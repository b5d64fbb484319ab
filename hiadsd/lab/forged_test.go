package lab

import (
	"math/rand/v2"
	"testing"

	"github.com/diagagent/diagagent/hiadsd"
)

// TestForgedPushesSettle: a push forged in a sender's name, of a wrong
// verdict about any node, with any counter (at and past the bounds, at and
// past the wrap of 2^32), changes no view for longer than the round after
// it, on a vCube system run as the daemon runs it (pushes, Recheck). The
// node that took it reads the disagreement from its source at its next
// interval, tests the node and pushes the truth with a counter above the
// forgery; a counter out of bounds is refused outright.
func TestForgedPushesSettle(t *testing.T) {
	leads := []uint32{1, hiadsd.MaxLead, hiadsd.MaxLead + 1, hiadsd.MaxRebase, hiadsd.MaxRebase + 1, 1<<31 - 1, 1 << 31, 1<<32 - 1}
	bases := []uint32{0, 7, 1<<31 - 3, 1<<32 - 5}
	const n = 16
	refused, poisoned := 0, 0
	for trial := range 200 {
		rng := rand.New(rand.NewPCG(uint64(trial), 29))
		nw, err := New(VCube, &hiadsd.Config{N: n, Push: true, Recheck: true})
		if err != nil {
			t.Fatal(err)
		}
		ref := make(reference, n)
		for k := range ref {
			ref[k] = hiadsd.FaultFree
		}
		down := -1
		if trial%2 == 1 { // half the trials hold a faulty node, whose fault a forgery would hide
			down = rng.IntN(n)
			ref[down] = hiadsd.Faulty
			if err := nw.SetState(down, hiadsd.Faulty); err != nil {
				t.Fatal(err)
			}
		}
		pushRounds(t, nw, 4)
		about := rng.IntN(n)
		base := bases[rng.IntN(len(bases))]
		for k := range n { // every view's counter of the node forged about starts at base
			if v := nw.View(k); v != nil {
				v.Set(about, hiadsd.Entry{Status: v.Get(about).Status, Counter: base})
			}
		}
		to := rng.IntN(n)
		for to == down || to == about {
			to = rng.IntN(n)
		}
		from := (to + 1 + rng.IntN(n-1)) % n
		lie := hiadsd.Faulty
		if ref[about] != hiadsd.FaultFree {
			lie = hiadsd.FaultFree
		} else if rng.IntN(2) == 0 {
			lie = hiadsd.Partial
		}
		lead := leads[rng.IntN(len(leads))]
		p := hiadsd.Push{To: to, Cluster: 1 + rng.IntN(hiadsd.Levels(n)), Entries: []hiadsd.IDEntry{{ID: about, Entry: hiadsd.Entry{Status: lie, Counter: base + lead}}}}
		rep, err := nw.Deliver(from, p)
		if err != nil {
			t.Fatal(err)
		}
		refused += len(rep.Refused)
		if want := lead > hiadsd.MaxLead && lead < 1<<31; (len(rep.Refused) == 1) != want {
			t.Fatalf("trial %d: lead %d refused %d times, want refused %v", trial, lead, len(rep.Refused), want)
		}
		deliverAll(t, nw, to, rep.Pushes, nil)
		if h, _ := ref.wrongViews(nw); h >= 0 {
			poisoned++
		}
		pushRounds(t, nw, 1)
		if h, k := ref.wrongViews(nw); h >= 0 {
			t.Fatalf("trial %d: forged %v/%d about node %d (held at %d) to node %d: a round later node %d holds node %d %v, truth %v",
				trial, lie, base+lead, about, base, to, h, k, nw.View(h).Get(k), ref[k])
		}
	}
	if refused == 0 || poisoned == 0 {
		t.Fatalf("%d forged pushes refused, %d taken by some node: the trials miss a case", refused, poisoned)
	}
	t.Logf("200 forged pushes: %d refused, %d taken by some node and settled within the round after", refused, poisoned)
}

// pushRounds steps every testing node in id order, rounds times, and
// delivers every push each sends to the end, as the daemon's agents do.
func pushRounds(t *testing.T, nw *Network, rounds int) {
	t.Helper()
	for range rounds {
		stepEach(t, nw, nil, nil)
	}
}
