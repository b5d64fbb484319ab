package main

import (
	"fmt"

	"github.com/diagagent/diagagent/hiadsd"
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
func paperFigures(algo hiadsd.Algorithm, n int, m metric) []figure {
	l := float64(hiadsd.Levels(n))
	fn := float64(n)
	switch m {
	case latencyWorst:
		return worstLatency(algo, n, l)
	case latencyMean:
		return meanLatency(algo, n)
	case testsFree:
		switch algo {
		case hiadsd.BruteForce:
			return []figure{{fn*fn - fn, "001 Table 2"}}
		case hiadsd.VRing:
			return []figure{{fn, "001 Table 2"}}
		case hiadsd.VCube:
			return []figure{{fn * l, "001 Table 2"}}
		case hiadsd.HiADSD:
			return []figure{{fn, "002 §4, formula"}}
		case hiadsd.HiComp:
			return []figure{{fn * l / 2, "004 §3.3, formula"}}
		}
	case unitsFree:
		switch algo {
		case hiadsd.BruteForce:
			return []figure{{0, "001 Table 2"}}
		case hiadsd.VRing:
			return []figure{{fn * (fn - 2), "001 Table 2, n-2 per test"}}
		case hiadsd.VCube:
			return []figure{{fn * l * (fn - 2), "001 Table 2, n-2 per test, worst case"}}
		case hiadsd.HiADSD:
			return []figure{{fn * (fn - 1) / l, "002 §4, formula"}}
		case hiadsd.HiADSDTimestamps:
			return []figure{{fn * fn / 2, "004 §2.1.4, N/2 per test"}}
		case hiadsd.HiComp:
			return []figure{{fn * l * fn / 2, "004 §3.2.2, N/2 per fault-free child"}}
		}
	}
	return nil
}

// worstLatency is the worst-case latency column of the papers.
func worstLatency(algo hiadsd.Algorithm, n int, l float64) []figure {
	var out []figure
	switch algo {
	case hiadsd.HiADSD:
		if v, ok := table2of002(n); ok {
			out = append(out, figure{v, "002 Table 2"})
		}
	case hiadsd.VRing:
		if _, ok := table2of002(n); ok {
			out = append(out, figure{float64(n), "002 Table 2, Adaptive-DSD"})
		}
		out = append(out, figure{float64(n - 1), "001 Table 2"})
	case hiadsd.VCube:
		out = append(out, figure{l, "001 Table 2"})
	case hiadsd.BruteForce:
		out = append(out, figure{1, "001 Table 2"})
	case hiadsd.HiADSDDetours, hiadsd.HiADSDTimestamps:
		out = append(out, figure{l * l, "004 §2.1, formula"})
	case hiadsd.HiComp:
		out = append(out, figure{l, "004 Theorem 1, formula"})
	case hiadsd.ADSDwI:
		g := hiadsd.NewIntersections(n)
		out = append(out, figure{float64(n) / float64(g.P), "003 §3.1, N/p, formula"})
	}
	return out
}

// meanLatency is the one mean latency the seeds report: 512 nodes, seed 004.
func meanLatency(algo hiadsd.Algorithm, n int) []figure {
	if n != 512 {
		return nil
	}
	switch algo {
	case hiadsd.HiADSD:
		return []figure{{40, "004 §2.1.4"}}
	case hiadsd.HiADSDTimestamps:
		return []figure{{12, "004 §2.1.4"}}
	}
	return nil
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
