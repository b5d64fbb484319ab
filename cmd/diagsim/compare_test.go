package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/diagagent/diagagent/cmd/diagsim/sim"
	"github.com/diagagent/diagagent/hiadsd/lab"
)

// TestPositions checks the fault positions: every id up to the sample size,
// then distinct ids spread over the whole range.
func TestPositions(t *testing.T) {
	if got := positions(8, 16); !slices.Equal(got, []int{0, 1, 2, 3, 4, 5, 6, 7}) {
		t.Errorf("positions(8, 16) = %v, want every id", got)
	}
	got := positions(1024, 16)
	if len(got) != 16 || got[0] != 0 || got[15] < 1024-64 {
		t.Errorf("positions(1024, 16) = %v, want 16 ids from 0 into the last stride", got)
	}
	seen := map[int]bool{}
	for _, id := range got {
		if id < 0 || id >= 1024 || seen[id] {
			t.Errorf("positions(1024, 16) repeats or leaves the range: %v", got)
		}
		seen[id] = true
	}
}

// TestMeasureWithinBound runs the sweep of every algorithm on small systems
// and checks each measured worst latency against the algorithm's bound.
func TestMeasureWithinBound(t *testing.T) {
	so := sweepOptions{Samples: 4, Start: sim.Random, Seed: 3, Rounds: 2}
	for _, a := range lab.Algorithms() {
		for _, n := range []int{8, 32} {
			r, err := measure(a, n, so)
			if err != nil {
				t.Fatal(err)
			}
			if r.Worst < 1 || r.Worst > lab.LatencyBound(a, n) {
				t.Errorf("%v on %d nodes: worst latency %d, bound %d", a, n, r.Worst, lab.LatencyBound(a, n))
			}
			if r.Positions != 4 || r.Tests <= 0 {
				t.Errorf("%v on %d nodes: %d positions, %.1f tests per round", a, n, r.Positions, r.Tests)
			}
		}
	}
}

// TestCompareWritesReport runs the subcommand as make compare does, on small
// sizes, and checks the report and the plots.
func TestCompareWritesReport(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "compare.md")
	var stdout, stderr bytes.Buffer
	code := run([]string{"compare", "-n", "8,16", "-samples", "4", "-rounds", "2", "-out", out, "-plots", dir}, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	md, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	text := string(md)
	for _, a := range lab.Algorithms() {
		for _, n := range []string{"8", "16"} {
			if !strings.Contains(text, "| "+a.String()+" | "+n+" | ") {
				t.Errorf("report has no row for %v on %s nodes", a, n)
			}
		}
	}
	for _, want := range []string{"go run -C cmd/diagsim . compare -n 8,16", "(002 Table 2)", "## Where a measured figure differs", "![latency](compare-latency.png)"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(text, "No explanation is recorded") {
		t.Errorf("a difference has no explanation:\n%s", text)
	}
	for _, what := range []string{"latency", "tests", "units"} {
		png, err := os.ReadFile(plotPath(dir, what))
		if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
			t.Errorf("plot %s: %v, %d bytes", what, err, len(png))
		}
	}
}

// TestCompareBadFlags checks that mistakes exit with a usage error and a reason.
func TestCompareBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-n", "8,x"},
		{"-n", "1"},
		{"-algo", "paxos"},
		{"-samples", "0"},
		{"-start", "late"},
		{"-plots", "/nonexistent/dir"},
		{"extra"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(append([]string{"compare"}, args...), &stdout, &stderr); code != exitUsage || stderr.Len() == 0 {
			t.Errorf("compare %v: exit %d, stderr %q; want %d and a reason", args, code, stderr.String(), exitUsage)
		}
	}
}

// TestPaperFigures checks the figures copied from the seeds' tables.
func TestPaperFigures(t *testing.T) {
	for _, tc := range []struct {
		algo lab.Algorithm
		n    int
		m    metric
		want float64
	}{
		{lab.HiADSD, 8, latencyWorst, 9},
		{lab.HiADSD, 1024, latencyWorst, 100},
		{lab.HiADSD, 512, latencyMean, 40},
		{lab.HiADSDTimestamps, 512, latencyMean, 12},
		{lab.VCube, 1024, testsFree, 10240},
		{lab.BruteForce, 16, testsFree, 240},
	} {
		figs := paperFigures(tc.algo, tc.n, tc.m)
		if len(figs) == 0 || figs[0].value != tc.want {
			t.Errorf("%v, N=%d, metric %d: %+v, want %v first", tc.algo, tc.n, tc.m, figs, tc.want)
		}
	}
}
