package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/diagagent/diagagent/hiadsd"
)

// TestCausesOf: nodes the agent notified lost together (one
// nodeCauseGroup) are one cause, whenever each changed; a node out alone is
// itself; nodes in maintenance, fault-free, degraded or unknown are no
// cause, and the last two are told on lines of their own.
func TestCausesOf(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	until := at(3600)
	row := func(id uint32, st hiadsd.Status, s int, group uint32) member {
		return member{ID: id, Status: st.String(), status: st, Since: at(s), CauseGroup: group}
	}
	rows := []member{
		row(1, hiadsd.FaultFree, 0, 0),
		row(5, hiadsd.Faulty, 40, 0),
		row(17, hiadsd.Faulty, 10, 3),
		row(18, hiadsd.Faulty, 11, 3),
		row(19, hiadsd.Faulty, 12, 3),
		row(20, hiadsd.Partial, 30, 3), // far from the others, in their group all the same
		row(21, hiadsd.Faulty, 13, 0),  // near them in time, notified alone
		row(7, hiadsd.Degraded, 5, 0),
		row(8, hiadsd.Unknown, 0, 0),
	}
	m := row(6, hiadsd.Faulty, 41, 0)
	m.Maintenance = &until
	rows = append(rows, m)
	got := causesOf(rows)
	if len(got) != 3 || len(got[0]) != 4 || got[1][0].ID != 21 || got[2][0].ID != 5 {
		t.Fatalf("causes %+v; want 17-20 together, then 21, then 5", got)
	}
	if s := describeCause(got[0]); !strings.HasPrefix(s, "nodes 17-20 faulty/partial together (4) since ") {
		t.Errorf("describeCause = %q", s)
	}
	lines := describeCauses(rows)
	want := []string{lines[0], "node 21 () faulty", "node 5 () faulty", "node 7 () degraded", "node 8 () unknown"}
	if !slices.Equal(lines, want) {
		t.Errorf("describeCauses = %q, want %q", lines, want)
	}
}
