package viewmetrics

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/metrics/metricstest"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/hiadsd"
)

// TestCollect: nothing before a snapshot is published; then each node's
// status as the MIB has it (degraded 4), the counts by status, and one
// cause series for two nodes down together, its nodes marked grouped.
func TestCollect(t *testing.T) {
	var snap *board.Snapshot
	c := New(func() *board.Snapshot { return snap }, func() time.Time { return time.Unix(1000, 0) })
	if n := metricstest.CollectAndCount(c); n != 0 {
		t.Fatalf("%d series before a snapshot", n)
	}
	row := func(id uint32, st hiadsd.Status) board.Row {
		return board.Row{ID: id, Status: st, Member: nodelist.Member{Addr: netip.AddrFrom4([4]byte{192, 0, 2, byte(id)}), Port: 161}}
	}
	snap = &board.Snapshot{Up: true, Nodes: []board.Row{row(1, hiadsd.FaultFree), row(2, hiadsd.Degraded), row(3, hiadsd.Faulty), row(4, hiadsd.Faulty)},
		Causes: map[uint32]uint32{3: 7, 4: 7}}
	want := `
# HELP diagagent_node_status Diagnosed status of each node as in the MIB: 0 fault-free, 1 faulty, 2 partial, 3 unknown, 4 degraded.
# TYPE diagagent_node_status gauge
diagagent_node_status{address="192.0.2.1",name="",node="1"} 0
diagagent_node_status{address="192.0.2.2",name="",node="2"} 4
diagagent_node_status{address="192.0.2.3",name="",node="3"} 1
diagagent_node_status{address="192.0.2.4",name="",node="4"} 1
# HELP diagagent_cause_nodes Nodes down together, as this agent's view groups them (traps.group_window): one series per cause of two nodes or more, labelled with its nodes as NodeID ranges.
# TYPE diagagent_cause_nodes gauge
diagagent_cause_nodes{cause="3-4"} 2
# HELP diagagent_up hiADSDisUP: 1 if the diagnosis loop began or finished an interval recently.
# TYPE diagagent_up gauge
diagagent_up 1
`
	if err := metricstest.CollectAndCompare(c, strings.NewReader(want), "diagagent_node_status", "diagagent_cause_nodes", "diagagent_up"); err != nil {
		t.Error(err)
	}
	grouped := map[string]float64{}
	for _, f := range metricstest.Families(c, "diagagent_node_grouped") {
		for _, m := range f.Metrics {
			grouped[m.Label("node")] = m.Value()
		}
	}
	if grouped["1"] != 0 || grouped["2"] != 0 || grouped["3"] != 1 || grouped["4"] != 1 {
		t.Errorf("diagagent_node_grouped %v, want 3 and 4 grouped", grouped)
	}
}
