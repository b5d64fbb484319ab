package hiadsd

import (
	"slices"
	"testing"
)

// TestAskTestsOnce: a node that asks to be tested (a restart, a link come
// back) is tested in the asked node's next interval even when the plan
// does not test it, with every algorithm; its verdict is recorded as a
// direct change and pushed. The ask is spent: the interval after tests by
// the plan alone. Asks for the node itself or out of range are ignored.
func TestAskTestsOnce(t *testing.T) {
	for _, a := range []Algorithm{HiADSD, VCube, VRing} {
		cfg := &Config{N: 8, Algorithm: a, Rotate: a == VCube}
		n := newTestNode(t, cfg, 0)
		n.View.Set(5, Entry{Status: Faulty, Counter: 3})
		plain := plan(n)
		if slices.Contains(plain, 5) {
			t.Fatalf("%v: node 0's plan %v tests node 5 already; pick another", a, plain)
		}
		n.Ask(5)
		n.Ask(0)  // itself
		n.Ask(99) // out of range
		r := step(t, n, &fakeTester{})
		if !slices.Contains(targets(r), 5) {
			t.Fatalf("%v: tests %v after node 5 asked, want 5 among them", a, targets(r))
		}
		if got := n.View.Get(5); got.Status != FaultFree || got.Counter != 4 {
			t.Errorf("%v: node 5 after its test: %+v, want fault-free at counter 4", a, got)
		}
		if !slices.ContainsFunc(r.Updates, func(u Update) bool { return u.ID == 5 && u.IsDirect() }) {
			t.Errorf("%v: updates %+v, want node 5's repair as a direct change", a, r.Updates)
		}
		if r2 := step(t, n, &fakeTester{}); slices.Contains(targets(r2), 5) && !slices.Contains(plan(n), 5) {
			t.Errorf("%v: the ask was not spent: tests %v", a, targets(r2))
		}
	}
}
