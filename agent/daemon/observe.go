package daemon

import (
	"time"

	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/hiadsd"
)

// IntervalInfo is what one testing interval did, handed to Options.Observe
// (metrics, the web page) on the loop goroutine after it is recorded.
type IntervalInfo struct {
	// Report is the core's account: tests, fetches, units, updates.
	Report hiadsd.Report
	// Probes are the practical tests of the interval by node id, with their
	// durations and errors.
	Probes map[int]probe.Result
	// Started and Took time the whole interval.
	Started time.Time
	Took    time.Duration
	// Unsaved counts the events recorded but waiting for a save to succeed
	// (not served, not notified): more than 0 means state_dir cannot be written.
	Unsaved int
}

// testingGraph computes who tests whom in this agent's view: for every
// node it holds a fault-free testing node, the tests that node's interval
// machine asks for first when every test is expected to find what the view
// holds (hiadsd.Expected). Hi-ADSD nodes are shown from cluster 1 on, since the
// cluster another node is at is not known here.
func (d *Daemon) testingGraph() [][]int {
	g := make([][]int, len(d.view))
	for i := range d.view {
		if i != d.id && (d.view[i].Status != hiadsd.FaultFree || d.node.Config.IsTestedOnly(i)) {
			continue
		}
		next := 1 // under the rotating plan every node tests the same cluster
		if i == d.id || d.rotating() {
			next = d.node.Next
		}
		g[i] = hiadsd.Expected(d.node.Config, i, d.view, next)
	}
	return g
}

// Graph returns the testing graph computed after the last interval: Graph()[i]
// lists the ids node i tests (nil for nodes that do not test).
func (d *Daemon) Graph() [][]int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.graph
}

// Started returns when the daemon started; nodeLastChange counts from it.
func (d *Daemon) Started() time.Time { return d.start }
