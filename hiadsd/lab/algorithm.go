package lab

import (
	"fmt"

	"github.com/diagagent/diagagent/hiadsd"
)

// Algorithm is one diagnosis algorithm of the papers: the core's four,
// which the daemon runs, and the research-only variants, which run in the
// lab alone.
type Algorithm int

// The algorithms, the core's first with the core's values.
const (
	HiADSD           = Algorithm(hiadsd.HiADSD)     // one cluster per interval (seed 002)
	VCube            = Algorithm(hiadsd.VCube)      // every assigned test each interval, timestamps (seed 001, Algorithm 3)
	VRing            = Algorithm(hiadsd.VRing)      // Adaptive-DSD ring (seed 001, Algorithm 2)
	BruteForce       = Algorithm(hiadsd.BruteForce) // everyone tests everyone (seed 001, Algorithm 1)
	ADSDwI           = BruteForce + 1               // Adaptive-DSD with Intersections, sqrt(N) rings (seed 003, section 3.1)
	HiADSDDetours    = BruteForce + 2               // Hi-ADSD that reaches a faulty cluster head's subclusters by detours (seed 004, 2.1.3)
	HiADSDTimestamps = BruteForce + 3               // Hi-ADSD taking N/2 entries from every source (seed 004, 2.1.4)
	HiComp           = BruteForce + 4               // comparison-based hierarchical diagnosis (seed 004, chapter 3)
)

// Algorithms lists every algorithm in a fixed order, the core's first.
func Algorithms() []Algorithm {
	return []Algorithm{HiADSD, VCube, VRing, BruteForce, ADSDwI, HiADSDDetours, HiADSDTimestamps, HiComp}
}

// Core returns the core's algorithm a runs as, false for a research one.
func (a Algorithm) Core() (hiadsd.Algorithm, bool) {
	if a >= HiADSD && a <= BruteForce {
		return hiadsd.Algorithm(a), true
	}
	return 0, false
}

// Research reports whether a runs in the lab only.
func (a Algorithm) Research() bool { return a >= ADSDwI && a <= HiComp }

// String returns the name used by flags and JSON.
func (a Algorithm) String() string {
	if c, ok := a.Core(); ok {
		return c.String()
	}
	switch a {
	case ADSDwI:
		return "adsdwi"
	case HiADSDDetours:
		return "hiadsd-detours"
	case HiADSDTimestamps:
		return "hiadsd-timestamps"
	case HiComp:
		return "hicomp"
	}
	return fmt.Sprintf("algorithm(%d)", int(a))
}

// ParseAlgorithm maps a name (hiadsd, vcube, vring, bruteforce, adsdwi,
// hiadsd-detours, hiadsd-timestamps, hicomp) to its Algorithm.
func ParseAlgorithm(name string) (Algorithm, error) {
	for _, a := range Algorithms() {
		if a.String() == name {
			return a, nil
		}
	}
	return 0, fmt.Errorf("%q (want hiadsd, vcube, vring, bruteforce, adsdwi, hiadsd-detours, hiadsd-timestamps or hicomp): %w", name, hiadsd.ErrBadAlgorithm)
}

// Sees returns the status a node running a is able to diagnose for a node
// whose true status is st: Hi-Comp's comparisons tell only right from wrong
// output, so a partial node is faulty to it.
func (a Algorithm) Sees(st hiadsd.Status) hiadsd.Status {
	if a == HiComp && st == hiadsd.Partial {
		return hiadsd.Faulty
	}
	return st
}

// LatencyBound returns the worst-case diagnosis latency in testing rounds of
// a on n nodes: the core's for its four; ceil(log2 n)^2 for Hi-ADSD with
// Detours and with Timestamps (seed 004 keeps Hi-ADSD's), ceil(log2 n) for
// Hi-Comp (Theorem 1 of seed 004), and for ADSD with Intersections two
// passes round the longest ring plus the intersection's hop (ADSDwIBound).
func LatencyBound(a Algorithm, n int) int {
	if c, ok := a.Core(); ok {
		return hiadsd.LatencyBound(c, n)
	}
	l := hiadsd.Levels(n)
	switch a {
	case HiADSDDetours, HiADSDTimestamps:
		return l * l
	case HiComp:
		return l
	default:
		return ADSDwIBound(n)
	}
}

// Validate names what is wrong in cfg for a, or returns nil: the core
// validates its own algorithms' (cfg.Algorithm is taken as a), and a research
// algorithm takes N and TestedOnly alone, none of the daemon's options.
func (a Algorithm) Validate(cfg hiadsd.Config) error {
	if c, ok := a.Core(); ok {
		cfg.Algorithm = c
		return cfg.Validate()
	}
	if !a.Research() {
		return fmt.Errorf("%v: %w", a, hiadsd.ErrBadAlgorithm)
	}
	if cfg.Push || cfg.Rotate || cfg.Recheck || cfg.Isolation > 0 {
		return fmt.Errorf("%v with Push, Rotate, Recheck or Isolation: %w", a, ErrResearch)
	}
	plain := hiadsd.Config{N: cfg.N, TestedOnly: cfg.TestedOnly} // checked alike for every algorithm
	return plain.Validate()
}
