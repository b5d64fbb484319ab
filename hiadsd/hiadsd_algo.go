package hiadsd

import "slices"

// hiadsd tests one cluster c_{i,s}, going on to the next level in the same
// interval while no source is found; s advances by one per interval.
func (iv *interval) hiadsd() {
	n := iv.node
	iv.hierarchical(func(lvl int) bool {
		list := ClusterHiADSD(n.ID, lvl, n.Config.N)
		if !iv.searchList(list, []Range{clusterRange(n.ID, lvl, n.Config.N)}) {
			return false
		}
		if n.Config.Recheck {
			iv.recheck(list)
		}
		return true
	})
	iv.testAsked()
}

// settle tests, with Config.Recheck, every node a source held at another
// status without a newer counter (interval.dispute) that the interval has
// not tested yet, once its fetches are done: two views disagree and no
// counter says which is right, as when one of them holds a forged or stale
// verdict. A changed verdict takes a counter above the entry held, and is
// pushed as any event found by a test (docs/security.md).
func (iv *interval) settle() {
	iv.testAsked()
	if !iv.node.Config.Recheck {
		return
	}
	for _, j := range iv.dispute {
		if j != iv.node.ID && !iv.wasTested(j) {
			iv.test(j)
		}
	}
}

// testAsked tests the nodes that asked to be tested (Node.Ask) and that
// the interval has not tested yet, once its own tests and fetches are done.
func (iv *interval) testAsked() {
	for _, j := range iv.node.asked {
		if !iv.wasTested(j) && !slices.Contains(iv.node.Config.Removed, j) {
			iv.test(j)
		}
	}
}

// recheck tests again the nodes of list not tested in this interval that the
// view holds faulty or partial, or that the source held at another status
// without a newer counter (Config.Recheck): two direct verdicts disagree, and
// a test now settles it with a counter above both.
func (iv *interval) recheck(list []int) {
	for _, j := range list {
		if iv.wasTested(j) {
			continue
		}
		if st := iv.node.View.Get(j).Status; st == Faulty || st == Partial || slices.Contains(iv.dispute, j) {
			iv.test(j) // a changed verdict gets a counter above the entry held (observe)
		}
	}
}

// hierarchical runs search on the interval's level and, while it finds no
// source, on the following levels, whose fetches then also ask for the
// clusters passed; the next interval starts one level up.
func (iv *interval) hierarchical(search func(lvl int) bool) {
	n := iv.node
	l := Levels(n.Config.N)
	s := n.level()
	iv.report.Level = s
	for k := 0; k < l; k++ {
		lvl := (s-1+k)%l + 1
		if search(lvl) {
			break
		}
		if r := clusterRange(n.ID, lvl, n.Config.N); r.Len() > 0 {
			iv.passed = append(iv.passed, r)
		}
	}
	n.Next = s%l + 1
}
