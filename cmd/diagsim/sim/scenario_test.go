package sim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/hiadsd/lab"
)

// TestScenarios replays the papers' runs written as testdata/*.txt, one
// command per run:
//
//	run algo=hiadsd n=64 start=sync [seed=1] [jitter=3] [rounds=R]
//	fault 5@100
//	----
//	fault 5@100: complete, latency 9 rounds
//	  tests  1  2  3 ...
//	  nodes  1  3  7 ...
//
// The input lists the events (sim.ParseEvent), the output says, for each, how
// many fault-free nodes held it after k of their own tests. go test
// -C cmd/diagsim ./sim -run TestScenarios -rewrite regenerates the output.
func TestScenarios(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd != "run" {
				d.Fatalf(t, "unknown command %q", d.Cmd)
			}
			return runScenario(t, d)
		})
	})
}

// runScenario runs one "run" command.
func runScenario(t *testing.T, d *datadriven.TestData) string {
	opt := Default()
	var algo, start string
	d.ScanArgs(t, "algo", &algo)
	d.ScanArgs(t, "n", &opt.N)
	d.MaybeScanArgs(t, "start", &start)
	d.MaybeScanArgs(t, "seed", &opt.Seed)
	d.MaybeScanArgs(t, "jitter", &opt.Jitter)
	d.MaybeScanArgs(t, "rounds", &opt.Rounds)
	var err error
	if opt.Algorithm, err = lab.ParseAlgorithm(algo); err != nil {
		d.Fatalf(t, "%v", err)
	}
	if start != "" {
		if opt.Start, err = ParseStart(start); err != nil {
			d.Fatalf(t, "%v", err)
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
		ev, err := ParseEvent(line)
		if err != nil {
			d.Fatalf(t, "%v", err)
		}
		opt.Events = append(opt.Events, ev)
	}
	r, err := Run(opt)
	if err != nil {
		return fmt.Sprintf("error: %v\n", err)
	}
	var b strings.Builder
	for k, ev := range r.Events {
		state := "incomplete"
		if ev.Complete {
			state = fmt.Sprintf("complete, latency %d rounds", ev.LatencyRounds)
		}
		fmt.Fprintf(&b, "%v: %s\n", opt.Events[k], state)
		tests, nodes := "  tests", "  nodes"
		for _, row := range ev.DiagnosedAfter {
			w := len(fmt.Sprint(row[1]))
			tests += fmt.Sprintf(" %*d", w, row[0])
			nodes += fmt.Sprintf(" %*d", w, row[1])
		}
		b.WriteString(tests + "\n" + nodes + "\n")
	}
	return b.String()
}

// TestPushKnownWithinOneInterval: with pushes, a fault is known at every
// fault-free node within one testing interval (plus jitter) of its
// happening, through at most ceil(log2 N / 2) hops; pulling alone takes longer.
func TestPushKnownWithinOneInterval(t *testing.T) {
	for _, n := range []int{16, 256, 1024} {
		opt := Default()
		opt.Algorithm, opt.N, opt.Start, opt.Seed = lab.VCube, n, Random, 3
		opt.Events = []Event{{Kind: Fault, Node: n / 3, Time: 75}}
		pull, err := Run(opt)
		if err != nil {
			t.Fatal(err)
		}
		opt.Push, opt.HopDelay = true, 0.001
		push, err := Run(opt)
		if err != nil {
			t.Fatal(err)
		}
		p, q := push.Events[0], pull.Events[0]
		limit := opt.Interval + opt.Jitter + float64(p.Hops)*opt.HopDelay
		if !p.Complete || p.LatencyTime > limit || p.Hops > hiadsd.PushDepth(n) || p.ByPush == 0 {
			t.Errorf("N=%d push: %+v; want known everywhere within %.3f time units, in at most %d hops", n, p, limit, hiadsd.PushDepth(n))
		}
		if !q.Complete || q.ByPush != 0 || q.LatencyTime <= p.LatencyTime {
			t.Errorf("N=%d pull: %+v; want complete, no push, and slower than push (%.3f)", n, q, p.LatencyTime)
		}
		// The rotating plan tests the node once per round; the nodes' random
		// phases (the daemon aligns them to the round) can put its next
		// test up to two intervals after the fault.
		opt.Rotate = true
		rot, err := Run(opt)
		if err != nil {
			t.Fatal(err)
		}
		r := rot.Events[0]
		if limit := 2*(opt.Interval+opt.Jitter) + float64(r.Hops)*opt.HopDelay; !r.Complete || r.LatencyTime > limit || r.Hops > hiadsd.PushDepth(n) || r.ByPush == 0 {
			t.Errorf("N=%d push, rotating: %+v; want known everywhere within %.3f time units, in at most %d hops", n, r, limit, hiadsd.PushDepth(n))
		}
		if rot.TestsPerRound > 1.5*float64(n) || push.TestsPerRound < float64(n*hiadsd.Levels(n))*0.9 {
			t.Errorf("N=%d: %.0f tests a round rotating, %.0f with the full plan; want about N and N log2 N", n, rot.TestsPerRound, push.TestsPerRound)
		}
	}
}
