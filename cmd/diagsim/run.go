package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/diagagent/diagagent/cmd/diagsim/sim"
	"github.com/diagagent/diagagent/hiadsd/lab"
)

// Exit codes.
const (
	exitOK    = 0
	exitRun   = 1 // the simulation or plot failed
	exitUsage = 2 // a flag is wrong
)

// request is the parsed command line: one or more runs plus output choices.
type request struct {
	runs     []sim.Options
	json     bool
	plotPath string
}

// run is main without the process: it parses args, simulates and writes
// output; a first argument "compare" runs the comparison instead.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "compare" {
		return runCompare(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "push" {
		return runPush(args[1:], stdout, stderr)
	}
	req, err := parseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "diagsim: %v\n", err)
		return exitUsage
	}
	results := make([]sim.Result, 0, len(req.runs))
	for _, opt := range req.runs {
		res, err := sim.Run(opt)
		if err != nil {
			fmt.Fprintf(stderr, "diagsim: %v\n", err)
			return exitRun
		}
		results = append(results, res)
	}
	if err := write(stdout, results, req.json); err != nil {
		fmt.Fprintf(stderr, "diagsim: %v\n", err)
		return exitRun
	}
	if req.plotPath != "" {
		if err := sim.Plot(results, plotTitle(results), req.plotPath); err != nil {
			fmt.Fprintf(stderr, "diagsim: %v\n", err)
			return exitRun
		}
	}
	return exitOK
}

// eventList is the repeatable -event flag.
type eventList []sim.Event

func (l *eventList) String() string {
	parts := make([]string, len(*l))
	for i, e := range *l {
		parts[i] = e.String()
	}
	return strings.Join(parts, ", ")
}

func (l *eventList) Set(s string) error {
	e, err := sim.ParseEvent(s)
	if err != nil {
		return err
	}
	*l = append(*l, e)
	return nil
}

// parseArgs turns the command line into a request, validating every run.
func parseArgs(args []string, stderr io.Writer) (request, error) {
	fs := flag.NewFlagSet("diagsim", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported in one line by run
	def := sim.Default()
	algos := fs.String("algo", "hiadsd", "algorithm(s): hiadsd, vcube, vring, bruteforce, adsdwi, hiadsd-detours, hiadsd-timestamps, hicomp; a comma list runs each")
	n := fs.Int("n", def.N, "number of nodes")
	starts := fs.String("start", "sync", "start: sync (all begin with cluster 1 at time 0) or random; a comma list runs each")
	seed := fs.Uint64("seed", def.Seed, "random seed")
	interval := fs.Float64("interval", def.Interval, "mean testing interval (time units)")
	jitter := fs.Float64("jitter", def.Jitter, "each interval is interval +/- up to this, uniformly")
	rounds := fs.Int("rounds", def.Rounds, "rounds to run after the last event; negative: until all events are diagnosed, plus one round")
	testedOnly := fs.String("tested-only", "", "comma list of tested-only node ids")
	push := fs.Bool("push", false, "nodes push what their own tests find down the vCube tree (the daemon's way); pull alone, as in the papers, without")
	hop := fs.Float64("hop-delay", 0, "with -push, the time one push takes to reach the next node (time units)")
	rotate := fs.Bool("rotate", false, "vcube tests one cluster per interval, the one of the round the clock is in (the daemon's test.plan rotate); all log2 N, as in the papers, without")
	asJSON := fs.Bool("json", false, "print one JSON object per run")
	plotPath := fs.String("plot", "", "draw nodes diagnosed against tests to this PNG (or SVG, PDF) file")
	var events eventList
	fs.Var(&events, "event", `"fault|repair|partial|station|join|leave NODE@TIME", repeatable; node ids are 0-based; station sets the management station at NODE, join adds a node (the next id) through NODE, leave removes NODE`)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stderr)
			fmt.Fprintln(stderr, "usage: diagsim [flags]")
			fs.PrintDefaults()
		}
		return request{}, err
	}
	if fs.NArg() > 0 {
		return request{}, fmt.Errorf("unexpected argument %q (events go in -event)", fs.Arg(0))
	}
	tos, err := parseIDs(*testedOnly)
	if err != nil {
		return request{}, err
	}
	base := sim.Options{N: *n, TestedOnly: tos, Seed: *seed, Interval: *interval, Jitter: *jitter, Events: events, Rounds: *rounds, Push: *push, HopDelay: *hop, Rotate: *rotate}
	req := request{json: *asJSON, plotPath: *plotPath}
	req.runs, err = expand(base, *algos, *starts)
	return req, err
}

// expand makes one Options per algorithm and start named, validating each.
func expand(base sim.Options, algos, starts string) ([]sim.Options, error) {
	var out []sim.Options
	for _, an := range strings.Split(algos, ",") {
		a, err := lab.ParseAlgorithm(strings.TrimSpace(an))
		if err != nil {
			return nil, fmt.Errorf("-algo: %w", err)
		}
		for _, sn := range strings.Split(starts, ",") {
			st, err := sim.ParseStart(strings.TrimSpace(sn))
			if err != nil {
				return nil, fmt.Errorf("-start: %w", err)
			}
			o := base
			o.Algorithm, o.Start = a, st
			if err := o.Validate(); err != nil {
				return nil, err
			}
			out = append(out, o)
		}
	}
	return out, nil
}

// parseIDs reads "3,7,12" into ids; the empty string is no ids.
func parseIDs(s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var ids []int
	for _, f := range strings.Split(s, ",") {
		id, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("-tested-only: %q is not a node id: %w", f, err)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// write prints the results as JSON objects, one per line, or as text tables.
func write(w io.Writer, results []sim.Result, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		for _, r := range results {
			if err := enc.Encode(r); err != nil {
				return fmt.Errorf("write JSON: %w", err)
			}
		}
		return nil
	}
	for _, r := range results {
		if err := writeText(w, r); err != nil {
			return err
		}
	}
	return nil
}

// writeText prints one run as a readable table per event.
func writeText(w io.Writer, r sim.Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %d nodes, %s start, seed %d: %d rounds, %.1f tests and %.1f units per round\n",
		r.Algo, r.N, r.Start, r.Seed, r.Rounds, r.TestsPerRound, r.UnitsPerRound)
	for _, ev := range r.Events {
		fmt.Fprintf(&b, "  %s %d@%g: latency %d rounds (%.4g time units), up to %d tests, complete %v\n",
			ev.Kind, ev.Node, ev.Time, ev.LatencyRounds, ev.LatencyTime, ev.MaxTests, ev.Complete)
		if ev.ByPush > 0 {
			fmt.Fprintf(&b, "    %d nodes learned it from a push, in up to %d hops\n", ev.ByPush, ev.Hops)
		}
		if ev.BoundRounds > 0 {
			fmt.Fprintf(&b, "    node %d %s the list; bound %d rounds (hiadsd.MembershipBound)\n", *ev.Subject, map[string]string{"join": "joined", "leave": "left"}[ev.Kind], ev.BoundRounds)
		}
		fmt.Fprintf(&b, "    %4s %6s\n", "k", "nodes")
		for _, kv := range ev.DiagnosedAfter {
			fmt.Fprintf(&b, "    %4d %6d\n", kv[0], kv[1])
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

// plotTitle names the figure after the runs it shows.
func plotTitle(results []sim.Result) string {
	algos := []string{}
	seen := map[string]bool{}
	for _, r := range results {
		if !seen[r.Algo] {
			seen[r.Algo] = true
			algos = append(algos, r.Algo)
		}
	}
	return fmt.Sprintf("%s on %d nodes", strings.Join(algos, ", "), results[0].N)
}
