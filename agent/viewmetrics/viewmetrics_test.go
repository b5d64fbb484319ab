package viewmetrics

import (
	"maps"
	"net/netip"
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
	values := func(name, label string) map[string]float64 {
		out := map[string]float64{}
		for _, f := range metricstest.Families(c, name) {
			for _, m := range f.Metrics {
				out[m.Label(label)] = m.Value()
			}
		}
		return out
	}
	for _, w := range []struct {
		name, label string
		want        map[string]float64
	}{
		{"diagagent_node_status", "node", map[string]float64{"1": 0, "2": 4, "3": 1, "4": 1}},
		{"diagagent_cause_nodes", "cause", map[string]float64{"3-4": 2}},
		{"diagagent_node_grouped", "node", map[string]float64{"1": 0, "2": 0, "3": 1, "4": 1}},
		{"diagagent_nodes", "status", map[string]float64{"fault-free": 1, "faulty": 2, "partial": 0, "unknown": 0, "degraded": 1}},
	} {
		if got := values(w.name, w.label); !maps.Equal(got, w.want) {
			t.Errorf("%s by %s: %v, want %v", w.name, w.label, got, w.want)
		}
	}
}
