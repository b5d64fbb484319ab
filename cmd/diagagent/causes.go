package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// causesOf groups the nodes out (faulty or partial, not in a maintenance
// window) as the agent notified them (board.Causes over nodeCauseGroup),
// in the order they changed.
func causesOf(rows []member) [][]member {
	var out []member
	for _, r := range rows {
		if board.Out(r.status, r.Maintenance != nil) {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b member) int { return a.Since.Compare(b.Since) })
	return board.Causes(out, func(r member) uint32 { return r.CauseGroup })
}

// describeCauses says each cause in a line, then each node degraded (up,
// with a lossy link) or unknown (not tested yet) outside a maintenance
// window: neither is a cause of faults.
func describeCauses(rows []member) []string {
	var out []string
	for _, g := range causesOf(rows) {
		out = append(out, describeCause(g))
	}
	for _, r := range rows {
		if (r.status == hiadsd.Degraded || r.status == hiadsd.Unknown) && r.Maintenance == nil {
			out = append(out, label(r)+" "+r.Status)
		}
	}
	return out
}

// describeCause says one cause in a line: a node alone as itself, a group
// as its ids, its status and when it began.
func describeCause(g []member) string {
	if len(g) == 1 {
		return fmt.Sprintf("%s %s", label(g[0]), g[0].Status)
	}
	ids := make([]uint32, len(g))
	statuses := map[string]bool{}
	for k, r := range g {
		ids[k] = r.ID
		statuses[r.Status] = true
	}
	st := make([]string, 0, len(statuses))
	for s := range statuses {
		st = append(st, s)
	}
	slices.Sort(st)
	s := fmt.Sprintf("nodes %s %s together (%d)", mib.NodeRanges(ids, 255), strings.Join(st, "/"), len(g))
	if !g[0].Since.IsZero() {
		s += " since " + g[0].Since.Local().Format(time.TimeOnly)
	}
	return s
}
