package main

import (
	"strings"
	"testing"
	"time"
)

// TestCausesOf: nodes down within a window of each other are one cause,
// however long the chain up to four windows; a node alone is itself;
// maintenance and fault-free nodes are no cause.
func TestCausesOf(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	until := at(3600)
	rows := []member{
		{ID: 1, Status: "fault-free", Since: at(0)},
		{ID: 17, Status: "faulty", Since: at(10)},
		{ID: 19, Status: "faulty", Since: at(12)},
		{ID: 18, Status: "faulty", Since: at(11)},
		{ID: 20, Status: "partial", Since: at(14)},
		{ID: 5, Status: "faulty", Since: at(40)},
		{ID: 6, Status: "faulty", Since: at(41), Maintenance: &until},
	}
	got := causesOf(rows, 3*time.Second)
	if len(got) != 2 || len(got[0]) != 4 || len(got[1]) != 1 || got[1][0].ID != 5 {
		t.Fatalf("causes %+v; want 17-20 together, then node 5", got)
	}
	if s := describeCause(got[0]); !strings.HasPrefix(s, "nodes 17-20 faulty/partial together (4) since ") {
		t.Errorf("describeCause = %q", s)
	}
	if s := describeCause(got[1]); s != "node 5 () faulty" {
		t.Errorf("describeCause = %q", s)
	}
	// A chain that keeps growing stops four windows after its first.
	var chain []member
	for k := range 10 {
		chain = append(chain, member{ID: uint32(k + 1), Status: "faulty", Since: at(2 * k)})
	}
	if got := causesOf(chain, 3*time.Second); len(got) != 2 || len(got[0]) != 7 {
		t.Fatalf("a chain: %d causes, the first of %d; want 2, the first of 7", len(got), len(got[0]))
	}
}
