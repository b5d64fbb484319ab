package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/diagagent/diagagent/cmd/diagsim/sim"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// diagsim runs the command in-process and returns its stdout.
func diagsim(t *testing.T, args ...string) []byte {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run(args, &out, &errOut); code != exitOK {
		t.Fatalf("diagsim %v: exit %d: %s", args, code, errOut.String())
	}
	return out.Bytes()
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s:\n got %s\nwant %s", path, got, want)
	}
}

// paperTable runs diagsim and checks diagnosed_after against a table of seed 002.
func paperTable(t *testing.T, goldenName string, n string, table []int) {
	out := diagsim(t, "-algo", "hiadsd", "-n", n, "-start", "sync", "-event", "fault 5@100", "-json")
	golden(t, goldenName, out)
	var r sim.Result
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	var got []int
	for k, row := range r.Events[0].DiagnosedAfter {
		if row[0] != k+1 {
			t.Fatalf("row %d is for k = %d", k, row[0])
		}
		got = append(got, row[1])
	}
	if !slices.Equal(got, table) {
		t.Errorf("nodes diagnosed after k tests = %v\npaper's table            = %v", got, table)
	}
}

// TestTable3: 64 nodes, synchronized start, node 5 fails at time 100 (seed 002, Table 3).
// The first interval ends near time 30, so the first cluster tested after the
// fault is c_{i,4}; with that reading the table comes out row for row.
func TestTable3(t *testing.T) {
	paperTable(t, "table3.json", "64", []int{1, 3, 7, 8, 10, 14, 21, 35, 63})
}

// TestTable4: the same on 512 nodes (seed 002, Table 4). Jitter accumulates
// (+/-3 per interval), so another seed can make a node test a cluster before
// its source learned the event and move a few nodes past k = 15; seed 1 does not.
func TestTable4(t *testing.T) {
	paperTable(t, "table4.json", "512", []int{1, 3, 7, 15, 31, 63, 64, 66, 70, 77, 91, 119, 175, 287, 511})
}

// TestPaperExperiment64 keeps the whole first experiment of seed 002, section 4
// (64 nodes: two faults, then both repairs at 100, 1000, 2100 and 3000; the
// paper does not name the second node, we use 9), synchronized and random, as
// golden output: the runs behind docs/hiadsd-64.png.
func TestPaperExperiment64(t *testing.T) {
	out := diagsim(t, "-algo", "hiadsd", "-n", "64", "-start", "sync,random", "-event", "fault 5@100",
		"-event", "fault 9@1000", "-event", "repair 5@2100", "-event", "repair 9@3000", "-json")
	golden(t, "experiment64.json", out)
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r sim.Result
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		for _, ev := range r.Events {
			if !ev.Complete || ev.LatencyRounds > 36 {
				t.Errorf("%s %s %d@%g: complete %v, latency %d rounds (bound 36)", r.Start, ev.Kind, ev.Node, ev.Time, ev.Complete, ev.LatencyRounds)
			}
		}
	}
}

// TestTable4AcrossSeeds: the first 14 rows of Table 4 hold for every seed; in
// the last row a node may miss by one cycle when accumulated jitter lets it
// test its cluster just before its source learned (seeds 5 and 10 here: 510
// nodes at k = 15, the last one 9 intervals later).
func TestTable4AcrossSeeds(t *testing.T) {
	table := []int{1, 3, 7, 15, 31, 63, 64, 66, 70, 77, 91, 119, 175, 287}
	for seed := uint64(1); seed <= 10; seed++ {
		opt := sim.Default()
		opt.N, opt.Seed, opt.Events = 512, seed, []sim.Event{{Kind: sim.Fault, Node: 5, Time: 100}}
		r, err := sim.Run(opt)
		if err != nil {
			t.Fatal(err)
		}
		rows := r.Events[0].DiagnosedAfter
		for k, want := range table {
			if rows[k][1] != want {
				t.Fatalf("seed %d: %d nodes after %d tests, table says %d", seed, rows[k][1], k+1, want)
			}
		}
		if rows[14][1] < 510 || !r.Events[0].Complete {
			t.Errorf("seed %d: %d nodes after 15 tests, want at least 510", seed, rows[14][1])
		}
	}
}

// TestSeveralRunsArePrintedOnePerLine: comma lists of -algo and -start run each pair.
func TestSeveralRunsArePrintedOnePerLine(t *testing.T) {
	out := diagsim(t, "-algo", "vcube,vring", "-start", "sync,random", "-n", "16", "-event", "fault 3@50", "-json")
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 4:\n%s", len(lines), out)
	}
	for _, l := range lines {
		var r sim.Result
		if err := json.Unmarshal([]byte(l), &r); err != nil || len(r.Events) != 1 || !r.Events[0].Complete {
			t.Fatalf("line %q: %v", l, err)
		}
	}
}

func TestTextAndPlot(t *testing.T) {
	png := filepath.Join(t.TempDir(), "p.png")
	out := diagsim(t, "-n", "8", "-event", "fault 1@40", "-event", "repair 1@400", "-plot", png)
	if !strings.Contains(string(out), "fault 1@40: latency") || !strings.Contains(string(out), "repair 1@400") {
		t.Errorf("text output lacks the events:\n%s", out)
	}
	if st, err := os.Stat(png); err != nil || st.Size() == 0 {
		t.Errorf("plot file: %v", err)
	}
}

// TestBadInput: every mistake exits 2 with a one-line message naming it.
func TestBadInput(t *testing.T) {
	cases := map[string][]string{
		"-algo":        {"-algo", "adsd"},
		"-start":       {"-start", "later"},
		"invalid":      {"-event", "crash 5@100"},
		"outside":      {"-n", "8", "-event", "fault 9@100"},
		"already":      {"-event", "repair 5@100"},
		"jitter":       {"-jitter", "40"},
		"-tested-only": {"-tested-only", "x"},
		"unexpected":   {"fault 5@100"},
	}
	for want, args := range cases {
		var out, errOut bytes.Buffer
		code := run(args, &out, &errOut)
		msg := errOut.String()
		if code != exitUsage || !strings.Contains(msg, want) || strings.Count(msg, "\n") != 1 || out.Len() != 0 {
			t.Errorf("diagsim %v: exit %d, stderr %q; want exit 2 naming %q", args, code, msg, want)
		}
	}
}

// TestPushCommand runs "diagsim push" on small sizes: a row per size and
// mode, and the plot written.
func TestPushCommand(t *testing.T) {
	png := filepath.Join(t.TempDir(), "push.png")
	var out, errOut bytes.Buffer
	if code := run([]string{"push", "-max", "256", "-samples", "3", "-plot", png}, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2+3*3 || !strings.Contains(lines[2], "| 16 | 3 | pull |") || !strings.Contains(lines[9], "| 256 | 3 | push |") ||
		!strings.Contains(lines[10], "| 256 | 3 | push, rotating | 1.") {
		t.Fatalf("table:\n%s", out.String())
	}
	if st, err := os.Stat(png); err != nil || st.Size() == 0 {
		t.Fatalf("plot: %v", err)
	}
}
