package lab

import (
	"math/rand/v2"
	"testing"

	"github.com/diagagent/diagagent/hiadsd"
)

// heldDown counts the entries, held by any node but skip, that hold a node
// other than skip anything but fault-free: every node is up.
func heldDown(nw *Network, skip int) int {
	n := 0
	for id := range nw.Config().N {
		if id == skip {
			continue
		}
		v := nw.View(id)
		for k := range nw.Config().N {
			if k != skip && k != id && v.Get(k).Status != hiadsd.FaultFree {
				n++
			}
		}
	}
	return n
}

// TestFlakyTesterAtScale: 1,024 nodes on vCube's rotating plan with pushes
// and self-suspicion, as the daemon runs them. One node's link loses 50%
// of its datagrams each way for 40 rounds; then, with it repaired, four
// nodes cannot reach node 700 (a host firewall) for 40 rounds. With a
// second vantage point (Config.Vantage = 3) no node ever holds a healthy
// node down, and the lossy node doubts itself; without it (Vantage 0),
// the lossy node's failed tests spread.
func TestFlakyTesterAtScale(t *testing.T) {
	const n, lossy, target, rounds = 1024, 5, 700, 40
	for _, vantage := range []int{0, 3} {
		cfg := &hiadsd.Config{N: n, Algorithm: hiadsd.VCube, Rotate: true, Push: true, Isolation: 2, Recheck: true, Vantage: vantage}
		nw, err := NewNetwork(cfg)
		if err != nil {
			t.Fatal(err)
		}
		nw.SetDigests(true)
		rng := rand.New(rand.NewPCG(11, 5))
		order := make([]int, n)
		for k := range order {
			order[k] = k
		}
		nw.Lossy(lossy, 50, 1)
		worst, doubted := 0, 0
		for range rounds {
			stepInOrder(t, nw, order, rng, nil)
			worst = max(worst, heldDown(nw, lossy))
			if nw.hosts[lossy].node.Doubting() {
				doubted++
			}
		}
		t.Logf("vantage %d, node %d losing 50%% each way for %d rounds: at worst %d entries hold a healthy node down; it doubted itself %d rounds",
			vantage, lossy, rounds, worst, doubted)
		switch {
		case vantage == 0 && worst == 0:
			t.Errorf("without a second vantage point the lossy tester's failures never spread: the fault is not exercised")
		case vantage > 0 && worst > 0:
			t.Errorf("vantage %d: %d entries held a healthy node down", vantage, worst)
		case vantage > 0 && doubted == 0:
			t.Errorf("the lossy node never doubted itself")
		}
		if vantage == 0 {
			continue
		}
		nw.Lossy(lossy, 0, 1)
		for range 10 {
			stepInOrder(t, nw, order, rng, nil)
		}
		if h := heldDown(nw, -1); h != 0 {
			t.Fatalf("after the repair %d entries hold a node down", h)
		}
		blocked := []int{target ^ 1, target ^ 2, target ^ 4, target ^ 8} // its testers in its first clusters
		for _, a := range blocked {
			nw.Block(a, target, true)
		}
		for range rounds {
			stepInOrder(t, nw, order, rng, nil)
			if h := heldDown(nw, -1); h > 0 {
				t.Fatalf("node %d, unreachable from %v only: %d entries hold a node down", target, blocked, h)
			}
		}
		t.Logf("node %d unreachable from %v for %d rounds: no entry held it or any node down", target, blocked, rounds)
	}
}

// heldAs counts the nodes other than id that hold id at st.
func heldAs(nw *Network, id int, st hiadsd.Status) int {
	n := 0
	for k := range nw.Config().N {
		if k != id && nw.View(k).Get(id).Status == st {
			n++
		}
	}
	return n
}

// TestLossyMemberNamedAtScale: 1,024 nodes as in TestFlakyTesterAtScale.
// One node's link loses 80%, then 50%, of its datagrams each way: its
// testers measure the loss (hiadsd.ConfirmRequests), and every other node
// holds it degraded within five rounds, with no entry holding it or any
// other node down meanwhile; once repaired, every node holds it
// fault-free again. At 10% nothing changes.
func TestLossyMemberNamedAtScale(t *testing.T) {
	const n, lossy, rounds = 1024, 5, 20
	for _, pct := range []int{80, 50, 10} {
		cfg := &hiadsd.Config{N: n, Algorithm: hiadsd.VCube, Rotate: true, Push: true, Isolation: 2, Recheck: true, Vantage: 3}
		nw, err := NewNetwork(cfg)
		if err != nil {
			t.Fatal(err)
		}
		nw.SetDigests(true)
		rng := rand.New(rand.NewPCG(uint64(pct), 7))
		order := make([]int, n)
		for k := range order {
			order[k] = k
		}
		nw.Lossy(lossy, pct, 1)
		named, down := -1, 0
		for r := range rounds {
			stepInOrder(t, nw, order, rng, nil)
			down += heldDown(nw, lossy) + heldAs(nw, lossy, hiadsd.Faulty) + heldAs(nw, lossy, hiadsd.Partial)
			if named < 0 && heldAs(nw, lossy, hiadsd.Degraded) == n-1 {
				named = r + 1
			}
		}
		t.Logf("node %d losing %d%% each way for %d rounds: held degraded by every node after %d rounds; %d entries held a node down",
			lossy, pct, rounds, named, down)
		switch {
		case down > 0:
			t.Errorf("%d%%: %d entries held a node down", pct, down)
		case pct == 10 && heldAs(nw, lossy, hiadsd.FaultFree) != n-1:
			t.Errorf("10%%: the node is not held fault-free everywhere: %d degraded", heldAs(nw, lossy, hiadsd.Degraded))
		case pct > 10 && (named < 0 || named > 5):
			t.Errorf("%d%%: held degraded everywhere after %d rounds, want 1 to 5", pct, named)
		}
		if pct == 10 {
			continue
		}
		nw.Lossy(lossy, 0, 1)
		for range 5 {
			stepInOrder(t, nw, order, rng, nil)
		}
		if ff := heldAs(nw, lossy, hiadsd.FaultFree); ff != n-1 {
			t.Errorf("%d%%, repaired for 5 rounds: %d nodes hold it fault-free, want %d", pct, ff, n-1)
		}
	}
}
