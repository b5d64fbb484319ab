package hiadsd

import "fmt"

// Node is the state one node carries from one testing interval to the next.
// The caller owns it; Step is the only method that changes it.
type Node struct {
	// ID is this node's id, 0..N-1.
	ID int
	// Config is shared by every node of the system.
	Config *Config
	// View is what this node knows about every node.
	View View
	// Next is the Hi-ADSD cluster level (1..L) the next interval starts with;
	// other algorithms ignore it.
	Next int
	// CatchUp counts the intervals left in which every fetch asks for all N
	// entries; NewNode sets it to Levels(N) for a view that holds some id
	// Unknown (a restart), so the node's counters reach the system's before it
	// reports a change with a lagging counter that would lose to older news.
	CatchUp int
}

// NewNode returns node id with the given view, holding itself fault-free and
// starting Hi-ADSD at cluster 1. A restarted node gets a fresh all-unknown view.
func NewNode(cfg *Config, id int, view View) (*Node, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if id < 0 || id >= cfg.N {
		return nil, fmt.Errorf("node id %d outside 0..%d: %w", id, cfg.N-1, ErrBadConfig)
	}
	if view.Len() != cfg.N {
		return nil, fmt.Errorf("view covers %d ids, config has N = %d: %w", view.Len(), cfg.N, ErrBadConfig)
	}
	self := view.Get(id)
	self.Status = FaultFree
	view.Set(id, self)
	n := &Node{ID: id, Config: cfg, View: view, Next: 1}
	for k := 0; k < cfg.N; k++ {
		if view.Get(k).Status == Unknown {
			n.CatchUp = max(Levels(cfg.N), 1)
			break
		}
	}
	return n, nil
}

// Step performs one testing interval of the node against t and reports what
// happened. Fetch failures are recorded in the report and treated as no
// information; the errors are ErrTestedOnly, and ErrNoExecutor for Hi-Comp
// with a Tester that is not an Executor.
func (n *Node) Step(t Tester) (Report, error) {
	if n.Config.IsTestedOnly(n.ID) {
		return Report{}, fmt.Errorf("node %d: %w", n.ID, ErrTestedOnly)
	}
	iv := newInterval(n, t)
	defer func() { n.CatchUp = max(n.CatchUp-1, 0) }()
	switch n.Config.Algorithm {
	case HiADSD:
		iv.hiadsd()
	case VCube:
		iv.vcube()
	case VRing:
		iv.vring()
	case ADSDwI:
		iv.adsdwi()
	case HiADSDDetours:
		iv.hiadsdDetours()
	case HiADSDTimestamps:
		iv.hiadsdTimestamps()
	case HiComp:
		if err := iv.hicomp(); err != nil {
			return iv.report, err
		}
	default:
		iv.bruteForce()
	}
	return iv.report, nil
}

// isTester reports whether this node counts id as a fault-free testing node,
// a possible tester and source of information. A node always counts itself.
func (n *Node) isTester(id int) bool {
	if id == n.ID {
		return true
	}
	return !n.Config.IsTestedOnly(id) && n.View.Get(id).Status == FaultFree
}

// Plan returns the nodes this node expects to test in its next interval if its
// view is right: its out-edges in the testing graph, for display.
func (n *Node) Plan() []int {
	if n.Config.IsTestedOnly(n.ID) {
		return nil
	}
	switch n.Config.Algorithm {
	case VCube:
		return n.vcubeTargets()
	case BruteForce:
		return n.others()
	case VRing:
		return n.prefixUntilTester(n.ring())
	case HiComp:
		return Row(n.ID, 1, n.Config.N)
	case ADSDwI:
		return n.adsdwiPlan()
	}
	l := Levels(n.Config.N)
	var plan []int
	for k := 0; k < l; k++ {
		lvl := (n.level()-1+k)%l + 1
		list := ClusterHiADSD(n.ID, lvl, n.Config.N)
		pre := n.prefixUntilTester(list)
		plan = append(plan, pre...)
		if len(pre) > 0 && n.isTester(pre[len(pre)-1]) {
			if n.Config.Recheck && n.Config.Algorithm == HiADSD {
				plan = append(plan, n.suspects(list[len(pre):])...)
			}
			break
		}
	}
	return plan
}

// suspects returns the ids of list this node holds faulty or partial: the
// nodes Recheck tests again after the cluster's source.
func (n *Node) suspects(list []int) []int {
	var out []int
	for _, j := range list {
		if st := n.View.Get(j).Status; st == Faulty || st == Partial {
			out = append(out, j)
		}
	}
	return out
}

// level returns the Hi-ADSD level of the next interval, repairing a bad Next.
func (n *Node) level() int {
	if n.Next < 1 || n.Next > Levels(n.Config.N) {
		return 1
	}
	return n.Next
}

// prefixUntilTester returns list up to and including the first node held a tester.
func (n *Node) prefixUntilTester(list []int) []int {
	for k, j := range list {
		if n.isTester(j) {
			return list[:k+1]
		}
	}
	return list
}

// ring returns the vRing order (i+1, i+2, ...) mod N.
func (n *Node) ring() []int {
	out := make([]int, 0, n.Config.N-1)
	for k := 1; k < n.Config.N; k++ {
		out = append(out, (n.ID+k)%n.Config.N)
	}
	return out
}

// others returns every id but this node's, in order.
func (n *Node) others() []int {
	out := make([]int, 0, n.Config.N-1)
	for j := 0; j < n.Config.N; j++ {
		if j != n.ID {
			out = append(out, j)
		}
	}
	return out
}
