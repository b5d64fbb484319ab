package main

import (
	"fmt"

	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/hiadsd/lab"
)

// metric names a column that papers give figures for.
type metric int

const (
	latencyWorst metric = iota
	latencyMean
	testsFree
	unitsFree
)

// figure is one number a paper gives, with where it comes from.
type figure struct {
	value float64
	src   string // seed and place, e.g. "002 Table 2"
}

// table2of002 returns the Hi-ADSD row of Table 2 of seed 002 for n nodes
// (worst-case latency in testing rounds), if the table has one; Adaptive-DSD's
// column is N in every row.
func table2of002(n int) (float64, bool) {
	v, ok := map[int]float64{4: 4, 8: 9, 16: 16, 32: 25, 64: 36, 128: 49, 256: 64, 512: 81, 1024: 100}[n]
	return v, ok
}

// paperFigures returns what the seeds say about algo on n nodes for m; nil
// when they say nothing. Formulas are evaluated at n and marked as such.
func paperFigures(algo lab.Algorithm, n int, m metric) []figure {
	p, ok := papers()[algo]
	if !ok {
		return nil
	}
	l, fn := float64(hiadsd.Levels(n)), float64(n)
	var f func(n int, fn, l float64) []figure
	switch m {
	case latencyWorst:
		f = p.worst
	case latencyMean:
		if n != 512 { // the one mean latency the seeds report: 512 nodes, seed 004
			return nil
		}
		return p.mean512
	case testsFree:
		f = p.tests
	case unitsFree:
		f = p.units
	}
	if f == nil {
		return nil
	}
	return f(n, fn, l)
}

// paper is what the seeds say about one algorithm: its figures (as
// functions of n, with fn = n and l = log2 n) and why ours differ.
type paper struct {
	worst, tests, units                   func(n int, fn, l float64) []figure
	mean512                               []figure
	worstWhy, meanWhy, testsWhy, unitsWhy string
}

// one wraps a single figure as a column function.
func one(src string, v func(n int, fn, l float64) float64) func(int, float64, float64) []figure {
	return func(n int, fn, l float64) []figure { return []figure{{v(n, fn, l), src}} }
}

// papers is the table of what the seeds say, by algorithm.
func papers() map[lab.Algorithm]paper {
	hiadsdBound := one("004 §2.1, formula", func(_ int, _, l float64) float64 { return l * l })
	return map[lab.Algorithm]paper{
		lab.HiADSD: {
			worst: func(n int, _, _ float64) []figure {
				if v, ok := table2of002(n); ok {
					return []figure{{v, "002 Table 2"}}
				}
				return nil
			},
			tests:    one("002 §4, formula", func(_ int, fn, _ float64) float64 { return fn }),
			units:    one("002 §4, formula", func(_ int, fn, l float64) float64 { return fn * (fn - 1) / l }),
			mean512:  []figure{{40, "004 §2.1.4"}},
			worstWhy: hiadsdBoundWhy, unitsWhy: clusterUnitsWhy,
		},
		lab.VRing: {
			worst: func(n int, _, _ float64) []figure {
				var out []figure
				if _, ok := table2of002(n); ok {
					out = append(out, figure{float64(n), "002 Table 2, Adaptive-DSD"})
				}
				return append(out, figure{float64(n - 1), "001 Table 2"})
			},
			tests:    one("001 Table 2", func(_ int, fn, _ float64) float64 { return fn }),
			units:    one("001 Table 2, n-2 per test", func(_ int, fn, _ float64) float64 { return fn * (fn - 2) }),
			worstWhy: vringWorstWhy, unitsWhy: vringUnitsWhy,
		},
		lab.VCube: {
			worst:    one("001 Table 2", func(_ int, _, l float64) float64 { return l }),
			tests:    one("001 Table 2", func(_ int, fn, l float64) float64 { return fn * l }),
			units:    one("001 Table 2, n-2 per test, worst case", func(_ int, fn, l float64) float64 { return fn * l * (fn - 2) }),
			worstWhy: vcubeWorstWhy, unitsWhy: vcubeUnitsWhy,
		},
		lab.BruteForce: {
			worst:    one("001 Table 2", func(int, float64, float64) float64 { return 1 }),
			tests:    one("001 Table 2", func(_ int, fn, _ float64) float64 { return fn*fn - fn }),
			units:    one("001 Table 2", func(int, float64, float64) float64 { return 0 }),
			worstWhy: bruteWorstWhy,
		},
		lab.HiADSDDetours: {worst: hiadsdBound, worstWhy: hiadsdBoundWhy + detoursWhy},
		lab.HiADSDTimestamps: {
			worst:    hiadsdBound,
			units:    one("004 §2.1.4, N/2 per test", func(_ int, fn, _ float64) float64 { return fn * fn / 2 }),
			mean512:  []figure{{12, "004 §2.1.4"}},
			worstWhy: hiadsdBoundWhy + timestampsWhy, meanWhy: timestampsMeanWhy, unitsWhy: clusterUnitsWhy,
		},
		lab.HiComp: {
			worst:    one("004 Theorem 1, formula", func(_ int, _, l float64) float64 { return l }),
			tests:    one("004 §3.3, formula", func(_ int, fn, l float64) float64 { return fn * l / 2 }),
			units:    one("004 §3.2.2, N/2 per fault-free child", func(_ int, fn, l float64) float64 { return fn * l * fn / 2 }),
			worstWhy: hicompWorstWhy, testsWhy: hicompTestsWhy, unitsWhy: clusterUnitsWhy,
		},
		lab.ADSDwI: {
			worst: func(n int, fn, _ float64) []figure {
				return []figure{{fn / float64(lab.NewIntersections(n).P), "003 §3.1, N/p, formula"}}
			},
			worstWhy: adsdwiWorstWhy,
		},
	}
}

// cell formats the figures for a table cell: "100 (002 Table 2)".
func cell(figs []figure) string {
	s := ""
	for k, f := range figs {
		if k > 0 {
			s += "; "
		}
		s += fmt.Sprintf("%s (%s)", num(f.value), f.src)
	}
	return s
}

// num prints a figure without trailing zeros and with one decimal at most.
func num(v float64) string {
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.1f", v)
}
