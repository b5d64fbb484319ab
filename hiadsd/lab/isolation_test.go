package lab

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/diagagent/diagagent/hiadsd"
)

// stepInOrder steps every testing node once in order, delivering the pushes of
// each interval at once and calling after (if set) after each; it returns
// the reports by node.
func stepInOrder(t *testing.T, nw *Network, order []int, rng *rand.Rand, after func()) map[int]Report {
	t.Helper()
	reps := map[int]Report{}
	for _, id := range order {
		if !nw.Testing(id) {
			continue
		}
		rep, err := nw.Step(id)
		if err != nil {
			t.Fatal(err)
		}
		reps[id] = rep
		flood(t, nw, id, rep.Pushes, 0, rng)
		if after != nil {
			after()
		}
	}
	return reps
}

// falseFaults counts the entries, held by nodes other than cut, that hold
// a node other than cut not fault-free: everything but cut is up.
func falseFaults(nw *Network, cut int) int {
	n := 0
	for id := range nw.Config().N {
		if id == cut {
			continue
		}
		for k := range nw.Config().N {
			if k != cut && k != id && nw.View(id).Get(k).Status != hiadsd.FaultFree {
				n++
			}
		}
	}
	return n
}

func TestHealedPartitionSpreadsNothing(t *testing.T) {
	const n, cut = 16, 5
	for _, c := range []struct {
		name      string
		isolation int
		rounds    int // rounds node cut spends cut off
		spreads   bool
	}{
		{"no self-suspicion", 0, 4, true},
		{"verdicts held", 3, 2, false},
		{"verdicts released then rolled back", 2, 6, false},
	} {
		for _, rotate := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/rotate=%v", c.name, rotate), func(t *testing.T) {
				healedPartition(t, n, cut, &hiadsd.Config{N: n, Algorithm: hiadsd.VCube, Push: true, Isolation: c.isolation, Rotate: rotate}, c.rounds, c.spreads)
			})
		}
	}
}

// healedPartition cuts node cut off for rounds rounds, then heals it, and
// checks whether false faults spread (spreads) and that all settles.
func healedPartition(t *testing.T, n, cut int, cfg *hiadsd.Config, rounds int, spreads bool) {
	t.Helper()
	nw, err := NewNetwork(cfg)
	if err != nil {
		t.Fatal(err)
	}
	nw.SetDigests(true)
	rng := rand.New(rand.NewPCG(7, 1))
	order := make([]int, 0, n) // the cut node steps last: others read it before it tests again
	for id := range n {
		if id != cut {
			order = append(order, id)
		}
	}
	order = append(order, cut)
	for range 3 {
		stepInOrder(t, nw, order, rng, nil)
	}
	if err := nw.Cut(cut, true); err != nil {
		t.Fatal(err)
	}
	var held, released int
	for r := range rounds {
		rep := stepInOrder(t, nw, order, rng, nil)[cut]
		if cfg.Isolation > 0 && (rep.Isolated != r+1 || len(rep.Pushes) != 0) {
			t.Fatalf("round %d cut off: Isolated %d, %d pushes; want %d and none", r, rep.Isolated, len(rep.Pushes), r+1)
		}
		held += len(rep.Held)
		released += len(rep.Updates)
		if ff := falseFaults(nw, cut); ff > 0 {
			t.Fatalf("round %d cut off: %d false faults already", r, ff)
		}
	}
	if cfg.Isolation > 0 && (held == 0 || nw.Node(cut).Withholds() != (rounds > cfg.Isolation)) {
		t.Fatalf("cut off: %d verdicts held, withholds %v", held, nw.Node(cut).Withholds())
	}
	if rounds > cfg.Isolation && released == 0 {
		t.Fatalf("cut off past the hold: no verdict released")
	}
	if err := nw.Cut(cut, false); err != nil {
		t.Fatal(err)
	}
	spread := 0 // the most false faults held at once, after any interval
	for range 2 * hiadsd.Levels(n) {
		stepInOrder(t, nw, order, rng, func() { spread = max(spread, falseFaults(nw, cut)) })
	}
	t.Logf("after the heal: up to %d false faults held by the others at once", spread)
	if (spread > 0) != spreads {
		t.Fatalf("after the heal, up to %d false faults held by the others; want spread %v", spread, spreads)
	}
	for id := range n {
		for k := range n {
			if st := nw.View(id).Get(k).Status; st != hiadsd.FaultFree {
				t.Fatalf("settled: node %d holds %d %v", id, k, st)
			}
		}
	}
	if nw.Node(cut).Isolated() != 0 || nw.Node(cut).Withholds() {
		t.Fatalf("settled: node %d still isolated (%d) or withholding", cut, nw.Node(cut).Isolated())
	}
}
