package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/diagagent/diagagent/cmd/diagsim/sim"
	"github.com/diagagent/diagagent/hiadsd/lab"
)

// pushMode is how vCube spreads and tests in one series of the sweep.
type pushMode struct {
	Name         string
	Push, Rotate bool
}

// pushModes are the series: the papers' pull, the daemon's push with the
// full plan, and the daemon's default, push with the rotating plan.
var pushModes = []pushMode{{"pull", false, false}, {"push", true, false}, {"push, rotating", true, true}}

// pushRow is what vCube measured on one size in one mode.
type pushRow struct {
	N, Positions int
	Mode         pushMode
	// Tests is the tests per node per interval.
	Tests float64
	// MeanRounds, WorstRounds: the testing round (from the fault) in which
	// the last fault-free node learned it. MeanTime, WorstTime: the same in
	// testing intervals of time. Hops: the most push hops it took.
	MeanRounds, MeanTime   float64
	WorstRounds, WorstHops int
	WorstTime              float64
}

// pushSizes are the sizes runPush sweeps: 16 to largest by powers of 4.
func pushSizes(largest int) []int {
	var out []int
	for n := 16; n <= largest; n *= 4 {
		out = append(out, n)
	}
	return out
}

// measurePush runs vCube on n nodes, one fault at a time at a random phase
// of the intervals (random start), at positions spread over the ids.
func measurePush(n, samples int, mode pushMode, hop float64, seed uint64) (pushRow, error) {
	r := pushRow{N: n, Mode: mode}
	pos := positions(n, samples)
	for k, id := range pos {
		opt := sim.Default()
		opt.Algorithm, opt.N, opt.Start, opt.Seed = lab.VCube, n, sim.Random, seed+uint64(k)
		opt.Push, opt.HopDelay, opt.Rotate = mode.Push, hop, mode.Rotate
		opt.Events = []sim.Event{{Kind: sim.Fault, Node: id, Time: 2 * opt.Interval}}
		res, err := sim.Run(opt)
		if err != nil {
			return r, fmt.Errorf("vcube on %d nodes, node %d faulty: %w", n, id, err)
		}
		ev := res.Events[0]
		if !ev.Complete {
			return r, fmt.Errorf("vcube on %d nodes: the fault of node %d was never known everywhere: %w", n, id, errNotDiagnosed)
		}
		t := ev.LatencyTime / opt.Interval
		r.Tests += res.TestsPerRound / float64(n) / float64(len(pos))
		r.MeanRounds += float64(ev.LatencyRounds) / float64(len(pos))
		r.MeanTime += t / float64(len(pos))
		r.WorstRounds, r.WorstTime, r.WorstHops = max(r.WorstRounds, ev.LatencyRounds), max(r.WorstTime, t), max(r.WorstHops, ev.Hops)
	}
	r.Positions = len(pos)
	return r, nil
}

// runPush is "diagsim push": vCube's latency against N, pulling as the
// papers do and pushing as the daemon does (with the full and the rotating
// plan), as a table and a plot.
func runPush(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diagsim push", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	maxN := fs.Int("max", 65536, "largest N; sizes are 16, 64, ... by powers of 4")
	samples := fs.Int("samples", 8, "fault positions per size (halved from 4,096 nodes on, 2 at 65,536)")
	hop := fs.Float64("hop-delay", 0.001, "time one push hop takes, in the time units of the 30-unit interval (0.001: 1 ms with a 30 s interval)")
	seed := fs.Uint64("seed", 1, "first random seed")
	plotTo := fs.String("plot", "", "draw latency against N to this PNG file")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stderr)
			fs.PrintDefaults()
			return exitOK
		}
		fmt.Fprintf(stderr, "diagsim push: %v\n", err)
		return exitUsage
	}
	var rows []pushRow
	for _, n := range pushSizes(*maxN) {
		s := *samples
		switch {
		case n >= 65536:
			s = min(s, 2)
		case n >= 4096:
			s = max(s/2, 1)
		}
		for _, mode := range pushModes {
			r, err := measurePush(n, s, mode, *hop, *seed)
			if err != nil {
				fmt.Fprintf(stderr, "diagsim push: %v\n", err)
				return exitRun
			}
			rows = append(rows, r)
		}
	}
	if _, err := io.WriteString(stdout, pushTable(rows)); err != nil {
		fmt.Fprintf(stderr, "diagsim push: %v\n", err)
		return exitRun
	}
	if *plotTo != "" {
		if err := plotPush(rows, *plotTo); err != nil {
			fmt.Fprintf(stderr, "diagsim push: %v\n", err)
			return exitRun
		}
	}
	return exitOK
}

// pushTable renders the rows as a Markdown table.
func pushTable(rows []pushRow) string {
	var b strings.Builder
	b.WriteString("| N | positions | mode | tests per node per interval | mean rounds | worst rounds | mean intervals | worst intervals | worst hops |\n")
	b.WriteString("| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %d | %d | %s | %.2f | %.2f | %d | %.2f | %.2f | %d |\n",
			r.N, r.Positions, r.Mode.Name, r.Tests, r.MeanRounds, r.WorstRounds, r.MeanTime, r.WorstTime, r.WorstHops)
	}
	return b.String()
}

// plotPush draws the mean and worst latency, in testing intervals, against
// N for each mode.
func plotPush(rows []pushRow, path string) error {
	p := plot.New()
	p.Title.Text = "vCube: time until every fault-free node knows of a fault"
	p.X.Label.Text = "nodes, N"
	p.Y.Label.Text = "testing intervals after the fault"
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	var lines []any
	for _, mode := range pushModes {
		for _, c := range []struct {
			name  string
			value func(pushRow) float64
		}{
			{"worst", func(r pushRow) float64 { return r.WorstTime }},
			{"mean", func(r pushRow) float64 { return r.MeanTime }},
		} {
			var pts plotter.XYs
			for _, r := range rows {
				if r.Mode == mode {
					pts = append(pts, plotter.XY{X: float64(r.N), Y: c.value(r)})
				}
			}
			lines = append(lines, mode.Name+", "+c.name, pts)
		}
	}
	if err := plotutil.AddLinePoints(p, lines...); err != nil {
		return fmt.Errorf("plot push latency: %w", err)
	}
	p.Legend.Top, p.Legend.Left = true, true
	if err := p.Save(8*vg.Inch, 5*vg.Inch, path); err != nil {
		return fmt.Errorf("save plot %s: %w", path, err)
	}
	return nil
}
