package sim

import (
	"fmt"
	"testing"

	"github.com/diagagent/diagagent/hiadsd/lab"
)

// BenchmarkVCubeRound times one simulated testing round of vCube with one
// faulty node: every node's interval (no jitter, so exactly one each), about
// N*log2 N tests and the event queue.
func BenchmarkVCubeRound(b *testing.B) {
	for _, n := range []int{1024, 4096, 16384} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			opt := Default()
			opt.Algorithm, opt.N, opt.Jitter = lab.VCube, n, 0
			opt.Events = []Event{{Kind: Fault, Node: 5, Time: 1}}
			e, err := newEngine(opt)
			if err != nil {
				b.Fatal(err)
			}
			tests := 0
			b.ResetTimer()
			for b.Loop() {
				before := e.doneRounds
				for e.doneRounds == before {
					it, _ := e.agenda.pop()
					e.now = it.at
					if it.event >= 0 {
						if err := e.apply(int(it.event)); err != nil {
							b.Fatal(err)
						}
					} else if err := e.interval(it); err != nil {
						b.Fatal(err)
					}
				}
				tests += e.doneTests
				e.doneTests = 0
			}
			b.ReportMetric(float64(tests)/float64(b.N), "tests/round")
		})
	}
}

// BenchmarkVCubeRun times a whole run with one fault and the papers' random
// start, construction of the network included, as `diagsim -algo vcube -n N
// -start random -event "fault 5@100"` does:
// building N nodes must stay linear (the README's scale table; issue 12
// found it quadratic), and the run's tests grow as N log N.
func BenchmarkVCubeRun(b *testing.B) {
	for _, n := range []int{4096, 16384, 65536} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			opt := Default()
			opt.Algorithm, opt.N, opt.Start = lab.VCube, n, Random
			opt.Events = []Event{{Kind: Fault, Node: 5, Time: 100}}
			var r Result
			for b.Loop() {
				var err error
				if r, err = Run(opt); err != nil {
					b.Fatal(err)
				}
			}
			if !r.Events[0].Complete {
				b.Fatalf("the fault was not diagnosed everywhere: %+v", r.Events[0])
			}
			b.ReportMetric(r.TestsPerRound, "tests/round")
			b.ReportMetric(float64(r.Events[0].LatencyRounds), "rounds")
		})
	}
}
