package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/diagagent/diagagent/agent/config"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// groupWindow is the configuration's traps.group_window, the default (a
// negative value) made one interval and one test's budget, as the agent
// runs it.
func groupWindow(cfg config.Config) time.Duration {
	if w := cfg.Traps.GroupWindow; w >= 0 {
		return w
	}
	p := proberConfig(cfg, 0, nil)
	return cfg.Interval + p.TestBudget()
}

// causesOf groups the nodes that are not up (neither fault-free nor
// degraded, and not in a maintenance window) as the agents' notifications do: nodes whose last
// change came within window of the one before (up to four windows from
// the first) went together. Groups come in the order they began.
func causesOf(rows []member, window time.Duration) [][]member {
	var down []member
	var at []time.Duration
	for _, r := range rows {
		if r.Status != hiadsd.FaultFree.String() && r.Status != hiadsd.Degraded.String() && r.Maintenance == nil {
			down = append(down, r)
			at = append(at, time.Duration(r.Since.UnixNano()))
		}
	}
	var out [][]member
	for _, g := range hiadsd.Together(at, window) {
		c := make([]member, len(g))
		for k, i := range g {
			c[k] = down[i]
		}
		out = append(out, c)
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
