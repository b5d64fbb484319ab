package hiadsd

import (
	"fmt"
	"slices"
)

// Algorithm selects the testing strategy of a Node.
type Algorithm int

// The algorithms; every one runs behind Node.Step.
const (
	HiADSD     Algorithm = iota // one cluster per interval (seed 002)
	VCube                       // every assigned test each interval, timestamps (seed 001, Algorithm 3)
	VRing                       // Adaptive-DSD ring (seed 001, Algorithm 2)
	BruteForce                  // everyone tests everyone (seed 001, Algorithm 1)
)

// Algorithms lists every algorithm in a fixed order.
func Algorithms() []Algorithm { return []Algorithm{HiADSD, VCube, VRing, BruteForce} }

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
// ceil(log2 n) for vCube, n-1 for vRing and 1 for brute force (Table 2 of seed 001).
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
