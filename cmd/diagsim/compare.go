package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/diagagent/diagagent/cmd/diagsim/sim"
	"github.com/diagagent/diagagent/hiadsd/lab"
)

// Sentinel errors of the compare subcommand.
var (
	// errNotDiagnosed means a comparison run ended before every node saw its fault.
	errNotDiagnosed = errors.New("event not diagnosed")
	// errNothingMeasured means a plot had no positive value to draw.
	errNothingMeasured = errors.New("nothing to plot")
)

// compareRequest is the parsed command line of diagsim compare.
type compareRequest struct {
	sizes   []int
	algos   []lab.Algorithm
	sweep   sweepOptions
	out     string // markdown file; "" writes to stdout
	plotDir string // directory for the PNG plots; "" draws none
}

// runCompare is the compare subcommand: it measures every algorithm on every
// size and writes the markdown report and plots.
func runCompare(args []string, stdout, stderr io.Writer) int {
	req, err := parseCompare(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "diagsim compare: %v\n", err)
		return exitUsage
	}
	began := time.Now()
	var rows []row
	for _, a := range req.algos {
		for _, n := range req.sizes {
			r, err := measure(a, n, req.sweep)
			if err != nil {
				fmt.Fprintf(stderr, "diagsim compare: %v\n", err)
				return exitRun
			}
			rows = append(rows, r)
		}
	}
	if err := writeCompare(req, rows, stdout); err != nil {
		fmt.Fprintf(stderr, "diagsim compare: %v\n", err)
		return exitRun
	}
	fmt.Fprintf(stderr, "diagsim compare: %d rows in %v\n", len(rows), time.Since(began).Round(time.Millisecond))
	return exitOK
}

// writeCompare writes the report to req.out (or w) and the plots to req.plotDir.
func writeCompare(req compareRequest, rows []row, w io.Writer) error {
	if req.plotDir != "" {
		if err := plotCompare(rows, req.plotDir); err != nil {
			return err
		}
	}
	md := report(req, rows)
	if req.out == "" {
		if _, err := io.WriteString(w, md); err != nil {
			return fmt.Errorf("write report: %w", err)
		}
		return nil
	}
	if err := os.WriteFile(req.out, []byte(md), 0o644); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// compareFlags holds the raw compare flags before validation.
type compareFlags struct {
	sizes, algos, start, out, plots string
	samples, rounds                 int
	seed                            uint64
}

// parseCompare reads and validates the compare flags.
func parseCompare(args []string, stderr io.Writer) (compareRequest, error) {
	fs := flag.NewFlagSet("diagsim compare", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var f compareFlags
	fs.StringVar(&f.sizes, "n", "8,16,32,64,128,256,512,1024", "comma list of system sizes")
	fs.StringVar(&f.algos, "algo", "all", "comma list of algorithms, or all")
	fs.IntVar(&f.samples, "samples", 16, "single-fault positions per size; every position when N is at most this")
	fs.StringVar(&f.start, "start", "random", "start: sync or random (each node at a random cluster and phase)")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the first run; run k of a size uses seed+k")
	fs.IntVar(&f.rounds, "rounds", 8, "fault-free rounds measured for the fault-free costs")
	fs.StringVar(&f.out, "out", "", "write the markdown report to this file instead of stdout")
	fs.StringVar(&f.plots, "plots", "", "write compare-latency.png, compare-tests.png and compare-units.png to this directory")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stderr)
			fmt.Fprintln(stderr, "usage: diagsim compare [flags]")
			fs.PrintDefaults()
		}
		return compareRequest{}, err
	}
	if fs.NArg() > 0 {
		return compareRequest{}, fmt.Errorf("unexpected argument %q: %w", fs.Arg(0), sim.ErrBadOptions)
	}
	return f.request()
}

// request validates the flags and turns them into a compareRequest.
func (f compareFlags) request() (compareRequest, error) {
	st, err := sim.ParseStart(f.start)
	if err != nil {
		return compareRequest{}, fmt.Errorf("-start: %w", err)
	}
	if f.samples < 1 || f.rounds < 1 {
		return compareRequest{}, fmt.Errorf("-samples %d and -rounds %d must be positive: %w", f.samples, f.rounds, sim.ErrBadOptions)
	}
	req := compareRequest{out: f.out, plotDir: f.plots,
		sweep: sweepOptions{Samples: f.samples, Start: st, Seed: f.seed, Rounds: f.rounds}}
	if req.sizes, err = parseSizes(f.sizes); err != nil {
		return compareRequest{}, err
	}
	if req.algos, err = parseAlgos(f.algos); err != nil {
		return compareRequest{}, err
	}
	if req.plotDir != "" {
		if fi, err := os.Stat(req.plotDir); err != nil || !fi.IsDir() {
			return compareRequest{}, fmt.Errorf("-plots %q is not a directory: %w", req.plotDir, sim.ErrBadOptions)
		}
	}
	return req, nil
}

// parseSizes reads "8,16,32" into sizes of at least 2 nodes.
func parseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("-n: %q is not a size: %w", f, err)
		}
		if n < 2 {
			return nil, fmt.Errorf("-n: %d nodes, need at least 2: %w", n, sim.ErrBadOptions)
		}
		out = append(out, n)
	}
	return out, nil
}

// parseAlgos reads a comma list of algorithm names, or "all".
func parseAlgos(s string) ([]lab.Algorithm, error) {
	if strings.TrimSpace(s) == "all" {
		return lab.Algorithms(), nil
	}
	var out []lab.Algorithm
	for _, f := range strings.Split(s, ",") {
		a, err := lab.ParseAlgorithm(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("-algo: %w", err)
		}
		out = append(out, a)
	}
	return out, nil
}

// plotPath names one plot inside dir.
func plotPath(dir, what string) string { return filepath.Join(dir, "compare-"+what+".png") }
