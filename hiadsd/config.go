package hiadsd

import (
	"fmt"
	"slices"
)

// Algorithm selects the testing strategy of a Node.
type Algorithm int

// The algorithms; every one runs behind Interval.Begin. The papers'
// research-only variants (ADSD with Intersections, Hi-ADSD with Detours
// and with Timestamps, Hi-Comp) live in the lab (hiadsd/lab), beside the
// simulator.
const (
	HiADSD     Algorithm = iota // one cluster per interval (seed 002)
	VCube                       // every assigned test each interval, timestamps (seed 001, Algorithm 3)
	VRing                       // Adaptive-DSD ring (seed 001, Algorithm 2)
	BruteForce                  // everyone tests everyone (seed 001, Algorithm 1)
)

// Algorithms lists every algorithm in a fixed order.
func Algorithms() []Algorithm {
	return []Algorithm{HiADSD, VCube, VRing, BruteForce}
}

// String returns the name used by flags and JSON.
func (a Algorithm) String() string {
	switch a {
	case HiADSD:
		return "hiadsd"
	case VCube:
		return "vcube"
	case VRing:
		return "vring"
	case BruteForce:
		return "bruteforce"
	}
	return fmt.Sprintf("algorithm(%d)", int(a))
}

// ParseAlgorithm maps a name (hiadsd, vcube, vring, bruteforce) to its Algorithm.
func ParseAlgorithm(name string) (Algorithm, error) {
	for _, a := range Algorithms() {
		if a.String() == name {
			return a, nil
		}
	}
	return 0, fmt.Errorf("%q (want hiadsd, vcube, vring or bruteforce): %w", name, ErrBadAlgorithm)
}

// Config is what every node of one system agrees on.
type Config struct {
	// N is the number of node ids, 0..N-1; at least 2.
	N int
	// Algorithm is the testing strategy.
	Algorithm Algorithm
	// TestedOnly lists, in increasing order, the ids that are tested but never
	// test and are never a source of information (printers, modems).
	TestedOnly []int
	// Removed lists, in increasing order, the ids taken out of the node list
	// (Node.SetList): never tested, never a tester or a source, their entries
	// kept as they were and never changed. An id is given to another node
	// only once every node has seen it removed (the list's collection), and
	// then as a reset id (Node.Renumber): what was known of it is dropped.
	Removed []int
	// Recheck makes Hi-ADSD test again, once its cluster's source has answered,
	// every node of that cluster it holds faulty or partial. The papers assume a
	// test never errs; on a LAN one can (lost datagrams, a host whose own link was
	// down, an agent not started yet), and such a verdict would then outlive its
	// cause, since only a tester that sees a change advances the counter that
	// retracts it and the nodes that test a node never hear about it themselves.
	// vCube and vRing, with it, test once their fetches are done every node a
	// source held at another status without a newer counter (settle): the
	// node whose view holds a forged or stale verdict is the one that sees the
	// disagreement. The daemon sets it; the simulator leaves it off to
	// reproduce the papers.
	Recheck bool
	// Push makes a node send what it found by its own tests down the vCube
	// spanning tree rooted at itself (push.go, Report.Pushes) and pass on
	// what it receives (Node.Receive). The daemon sets it; the simulator
	// leaves it off to reproduce the papers, which only pull.
	Push bool
	// Isolation is how many testing intervals in a row a node that reaches
	// none of the nodes it tests holds its verdicts back as its own fault
	// (isolation.go); 0 turns self-suspicion off. The daemon sets it; the
	// simulator leaves it off to reproduce the papers.
	Isolation int
	// Vantage is how many other agents are asked to test a node when a
	// test finds it faulty or partial where the view holds it otherwise
	// (vantage.go): the verdict is believed only when one of them confirms
	// it, or when there is no other agent to ask; 0 believes every test,
	// as the papers do, and keeps no health window (the node never doubts
	// its own tests). The daemon sets it; the simulator leaves it off to
	// reproduce the papers, and sets it for its lossy-tester faults.
	Vantage int
	// Rotate makes vCube test one cluster per interval, Next, instead of all
	// log2 N (vcubeRotating): each node is then tested about once per
	// interval. Only for VCube; the daemon sets it for test.plan rotate and
	// sets Next from the clock, so that every node tests the same cluster.
	Rotate bool
}

// Validate names the first field that is wrong, or returns nil.
func (c *Config) Validate() error {
	if c.N < 2 {
		return fmt.Errorf("N = %d, need at least 2 nodes: %w", c.N, ErrBadConfig)
	}
	if c.Algorithm < HiADSD || c.Algorithm > BruteForce {
		return fmt.Errorf("Algorithm = %d: %w", int(c.Algorithm), ErrBadConfig)
	}
	for k, id := range c.TestedOnly {
		if id < 0 || id >= c.N {
			return fmt.Errorf("TestedOnly[%d] = %d is outside 0..%d: %w", k, id, c.N-1, ErrBadConfig)
		}
		if k > 0 && id <= c.TestedOnly[k-1] {
			return fmt.Errorf("TestedOnly must be strictly increasing, %d follows %d: %w", id, c.TestedOnly[k-1], ErrBadConfig)
		}
	}
	for k, id := range c.Removed {
		if id < 0 || id >= c.N {
			return fmt.Errorf("Removed[%d] = %d is outside 0..%d: %w", k, id, c.N-1, ErrBadConfig)
		}
		if k > 0 && id <= c.Removed[k-1] {
			return fmt.Errorf("Removed must be strictly increasing, %d follows %d: %w", id, c.Removed[k-1], ErrBadConfig)
		}
	}
	if c.Rotate && c.Algorithm != VCube {
		return fmt.Errorf("Rotate is for VCube, not %v: %w", c.Algorithm, ErrBadConfig)
	}
	if c.Vantage < 0 {
		return fmt.Errorf("Vantage = %d, want >= 0: %w", c.Vantage, ErrBadConfig)
	}
	if c.Isolation < 0 {
		return fmt.Errorf("Isolation = %d, want >= 0: %w", c.Isolation, ErrBadConfig)
	}
	if len(c.TestedOnly) >= c.N {
		return fmt.Errorf("TestedOnly lists every node, none would test: %w", ErrBadConfig)
	}
	return nil
}

// IsTestedOnly reports whether id is a tested-only node.
func (c *Config) IsTestedOnly(id int) bool {
	_, found := slices.BinarySearch(c.TestedOnly, id)
	return found
}

// LatencyBound returns the worst-case diagnosis latency in testing rounds of
// algo on n nodes: ceil(log2 n)^2 for Hi-ADSD (Table 2 of seed 002),
// ceil(log2 n) for vCube (Table 2 of seed 001), n-1 for vRing and 1 for
// brute force.
func LatencyBound(algo Algorithm, n int) int {
	l := Levels(n)
	switch algo {
	case HiADSD:
		return l * l
	case VCube:
		return l
	case VRing:
		return n - 1
	default:
		return 1
	}
}

// PullBound is how many rounds pull alone takes to diagnose one event:
// LatencyBound, but 2·log2 N under vCube's rotating plan (rotate), which
// tests each cluster once every log2 N intervals
// (TestRotationSpreadsWithinTheBound). The daemon and the LAN harness
// derive their waits from it.
func PullBound(algo Algorithm, n int, rotate bool) int {
	if algo == VCube && rotate {
		return 2 * Levels(n)
	}
	return LatencyBound(algo, n)
}
