package main

import (
	"fmt"

	"github.com/diagagent/diagagent/cmd/diagsim/sim"
	"github.com/diagagent/diagagent/hiadsd/lab"
)

// sweepOptions are the settings shared by every run of a comparison.
type sweepOptions struct {
	Samples int       // fault positions per system size; all positions when N is at most this
	Start   sim.Start // how the nodes' intervals line up
	Seed    uint64    // the first run's seed; run k uses Seed+k
	Rounds  int       // fault-free rounds measured for the fault-free costs
}

// row is what one algorithm measured on one system size.
type row struct {
	Algo      lab.Algorithm
	N         int
	Positions int     // single-fault positions simulated
	Worst     int     // the slowest position's latency, in testing rounds
	Mean      float64 // mean latency over the positions
	Tests     float64 // tests per round, every node fault-free
	Units     float64 // diagnostic units per round, every node fault-free
	FaultyT   float64 // tests per round while one node is faulty (mean over positions)
	FaultyU   float64 // units per round while one node is faulty (mean over positions)
}

// positions returns the faulty nodes to try on n nodes: every id when n is at
// most samples, else samples ids spread evenly, the k-th being
// k*n/samples + k mod (n/samples), so the offsets inside a stride vary too.
func positions(n, samples int) []int {
	if n <= samples {
		out := make([]int, n)
		for k := range out {
			out[k] = k
		}
		return out
	}
	stride := n / samples
	out := make([]int, samples)
	for k := range out {
		out[k] = k*n/samples + k%stride
	}
	return out
}

// measure runs algo on n nodes: once fault-free for the costs, then once per
// position with that node failing at time 0, before any interval ends.
func measure(algo lab.Algorithm, n int, so sweepOptions) (row, error) {
	base := sim.Default()
	base.Algorithm, base.N, base.Start, base.Seed = algo, n, so.Start, so.Seed
	free := base
	free.Rounds, free.Jitter = so.Rounds, 0 // one interval per node per round exactly
	res, err := sim.Run(free)
	if err != nil {
		return row{}, fmt.Errorf("%v on %d nodes, fault-free: %w", algo, n, err)
	}
	r := row{Algo: algo, N: n, Tests: res.TestsPerRound, Units: res.UnitsPerRound}
	pos := positions(n, so.Samples)
	total := 0
	for k, id := range pos {
		opt := base
		opt.Seed = so.Seed + uint64(k)
		opt.Events = []sim.Event{{Kind: sim.Fault, Node: id, Time: 0}}
		res, err := sim.Run(opt)
		if err != nil {
			return row{}, fmt.Errorf("%v on %d nodes, node %d faulty: %w", algo, n, id, err)
		}
		ev := res.Events[0]
		if !ev.Complete {
			return row{}, fmt.Errorf("%v on %d nodes: the fault of node %d was never diagnosed by every node: %w", algo, n, id, errNotDiagnosed)
		}
		r.Worst = max(r.Worst, ev.LatencyRounds)
		total += ev.LatencyRounds
		r.FaultyT += res.TestsPerRound / float64(len(pos))
		r.FaultyU += res.UnitsPerRound / float64(len(pos))
	}
	r.Positions = len(pos)
	r.Mean = float64(total) / float64(len(pos))
	return r, nil
}
