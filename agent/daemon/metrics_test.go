package daemon

import (
	"context"
	"strings"
	"testing"

	"github.com/diagagent/diagagent/agent/metrics/metricstest"
	"github.com/diagagent/diagagent/agent/notify"
	"github.com/diagagent/diagagent/agent/state"

	"github.com/diagagent/diagagent/hiadsd"
)

// TestMetrics: the daemon's collector carries each node's status as the
// MIB numbers it, with its name, the counts by status, hiADSDisUP, the
// newest event and what the intervals read.
func TestMetrics(t *testing.T) {
	cfg := testConfig(t, 4, hiadsd.BruteForce, notify.Detected)
	cfg.Nodes[0].Name = "alpha"
	lan, s := newFakeLAN(), &sink{}
	lan.status[addr(2)] = hiadsd.Partial
	d := newTestDaemon(t, cfg, lan, s, state.State{}, nil)
	d.interval(context.Background())
	want := `
# HELP diagagent_node_status Diagnosed status of each node as in the MIB: 0 fault-free, 1 faulty, 2 partial, 3 unknown, 4 degraded.
# TYPE diagagent_node_status gauge
diagagent_node_status{address="127.0.0.1",name="alpha",node="1"} 0
diagagent_node_status{address="127.0.0.2",name="",node="2"} 0
diagagent_node_status{address="127.0.0.3",name="",node="3"} 2
diagagent_node_status{address="127.0.0.4",name="",node="4"} 0
# HELP diagagent_nodes Nodes this agent holds in each status.
# TYPE diagagent_nodes gauge
diagagent_nodes{status="degraded"} 0
diagagent_nodes{status="fault-free"} 3
diagagent_nodes{status="faulty"} 0
diagagent_nodes{status="partial"} 1
diagagent_nodes{status="unknown"} 0
# HELP diagagent_up hiADSDisUP: 1 if the diagnosis loop began or finished an interval recently.
# TYPE diagagent_up gauge
diagagent_up 1
# HELP diagagent_intervals_total Testing intervals (this agent's share of a testing round) completed.
# TYPE diagagent_intervals_total counter
diagagent_intervals_total 1
`
	if err := metricstest.CollectAndCompare(d, strings.NewReader(want), "diagagent_node_status", "diagagent_nodes",
		"diagagent_up", "diagagent_intervals_total"); err != nil {
		t.Error(err)
	}
	if got := metricstest.ToFloat64(d.met.Unsaved); got != 0 {
		t.Errorf("diagagent_events_unsaved = %v, want 0", got)
	}
	if seq := d.Snapshot().LastSeq(); seq == 0 {
		t.Error("no event recorded")
	}
}

// TestMetricsUnusedAnswers: a Hi-ADSD agent that holds node 2 faulty tests it
// and node 3 at once; once node 2 is repaired its answer makes it the source,
// and node 3's answer, made ahead, is counted unused.
func TestMetricsUnusedAnswers(t *testing.T) {
	lan, s := newFakeLAN(), &sink{}
	lan.status[addr(2)] = hiadsd.Faulty
	d := newTestDaemon(t, testConfig(t, 4, hiadsd.HiADSD, notify.Detected), lan, s, state.State{}, nil)
	for range 2 { // both levels: node 2 is found faulty
		d.interval(context.Background())
	}
	if got := d.node.View.Get(2).Status; got != hiadsd.Faulty {
		t.Fatalf("node 2 held %v, want faulty", got)
	}
	if got := metricstest.ToFloat64(d.met.Unused); got != 0 {
		t.Fatalf("diagagent_answers_unused_total = %v before the repair, want 0", got)
	}
	delete(lan.status, addr(2))
	for range 2 {
		d.interval(context.Background())
	}
	if got := metricstest.ToFloat64(d.met.Unused); got != 1 {
		t.Errorf("diagagent_answers_unused_total = %v after the repair, want 1 (node 3's test)", got)
	}
}
