//go:build linux

package lan

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Step is one event of an experiment: agents frozen (their SNMP goes silent
// while the host answers ping, as with seed 002's fault injection) or thawed.
type Step struct {
	Name   string
	Freeze []int     // NodeIDs whose agent is frozen (SIGSTOP)
	Thaw   []int     // NodeIDs whose agent is thawed (SIGCONT)
	Paper  []float64 // seed 002's latency in seconds for each node, at a 40 s interval
}

// PaperInterval is the testing interval of seed 002's experiment.
const PaperInterval = 40 * time.Second

// PaperSchedule is section 5.3 of seed 002 on 37 nodes: a fault at node 16,
// then 35, then 20 and 21 together, then all four repaired. The paper's text
// gives node 16's latency as "575 seconds for node 6's fault"; 575 s is the
// only figure that makes its ten events average 427.1 s, so it is node 16's.
func PaperSchedule() []Step {
	return []Step{
		{Name: "fault", Freeze: []int{16}, Paper: []float64{575}},
		{Name: "fault", Freeze: []int{35}, Paper: []float64{346}},
		{Name: "fault", Freeze: []int{20, 21}, Paper: []float64{421, 416}},
		{Name: "repair", Thaw: []int{16, 35, 20, 21}, Paper: []float64{524, 241, 474, 514}},
	}
}

// Result is the latency of one node's event: from the fault or repair until
// every fault-free agent logged the new status.
type Result struct {
	Event   string // "fault at 16"
	Node    int
	Latency time.Duration
	Paper   float64 // seconds, 0 when the paper has no figure
}

// Rounds is the latency in testing intervals, the unit seed 002 counts in.
func (r Result) Rounds(interval time.Duration) float64 {
	return float64(r.Latency) / float64(interval)
}

// RunSchedule plays the steps on a running cluster and measures each node's
// event; each wait is bounded by the algorithm's bound.
func (c *Cluster) RunSchedule(steps []Step) ([]Result, error) {
	if err := c.checkSchedule(steps); err != nil {
		return nil, err
	}
	down := map[int]bool{}
	var out []Result
	for _, s := range steps {
		mark, t0 := c.Mark(), time.Now()
		if err := c.apply(s, down); err != nil {
			return out, err
		}
		nodes, want := append(append([]int(nil), s.Freeze...), s.Thaw...), "partial"
		if len(s.Thaw) > 0 {
			want = "fault-free"
		}
		rs, err := c.measure(mark, t0, nodes, want, c.observers(down, s.Thaw))
		for k := range rs {
			rs[k].Event, rs[k].Paper = fmt.Sprintf("%s at %d", s.Name, rs[k].Node), s.Paper[k]
		}
		out = append(out, rs...)
		if err != nil {
			return out, fmt.Errorf("%s at %v: %w", s.Name, nodes, err)
		}
	}
	return out, nil
}

// checkSchedule refuses steps that name a node this cluster has no agent
// for, or that lack a paper figure for a node.
func (c *Cluster) checkSchedule(steps []Step) error {
	for _, s := range steps {
		nodes := append(append([]int(nil), s.Freeze...), s.Thaw...)
		if len(s.Paper) != len(nodes) {
			return fmt.Errorf("lan: step %q on %v has %d paper figures: want one per node", s.Name, nodes, len(s.Paper))
		}
		for _, n := range nodes {
			if n < 1 || n > c.Agents {
				return fmt.Errorf("lan: step %q names node %d but the cluster has agents 1..%d", s.Name, n, c.Agents)
			}
		}
	}
	return nil
}

// apply freezes and thaws the step's agents and updates down.
func (c *Cluster) apply(s Step, down map[int]bool) error {
	for _, n := range s.Freeze {
		if err := c.agents[n-1].Freeze(); err != nil {
			return err
		}
		down[n] = true
	}
	for _, n := range s.Thaw {
		if err := c.agents[n-1].Thaw(); err != nil {
			return err
		}
		delete(down, n)
	}
	return nil
}

// observers are the agents (0-based) fault-free throughout the event: not
// down and not just repaired (a frozen agent's view is stale, not wrong).
func (c *Cluster) observers(down map[int]bool, repaired []int) []int {
	var obs []int
	for k := range c.Agents {
		if !down[k+1] && !slices.Contains(repaired, k+1) {
			obs = append(obs, k)
		}
	}
	return obs
}

// measure waits until every observer logged each node at want and returns
// per node the time from t0 until the last observer did.
func (c *Cluster) measure(mark int, t0 time.Time, nodes []int, want string, obs []int) ([]Result, error) {
	err := c.WaitEvents(c.Bound(), mark, func(evs []Event) bool {
		_, ok := Learned(evs, obs, nodes, want)
		return ok
	})
	evs := c.Events(mark)
	out := make([]Result, len(nodes))
	for k, n := range nodes {
		out[k].Node = n
		if last, ok := Learned(evs, obs, []int{n}, want); ok {
			out[k].Latency = last.Sub(t0)
		}
	}
	return out, err
}

// Table formats the results of several algorithms side by side with the
// paper's figures, as markdown.
func Table(interval time.Duration, algos []string, results [][]Result) string {
	var b strings.Builder
	b.WriteString("| event | paper (40 s interval) |")
	for _, a := range algos {
		fmt.Fprintf(&b, " %s (%v interval) |", a, interval)
	}
	b.WriteString("\n| --- | --- |" + strings.Repeat(" --- |", len(algos)) + "\n")
	for i, r := range results[0] {
		fmt.Fprintf(&b, "| %s | %.0f s = %.1f rounds |", r.Event, r.Paper, r.Paper/PaperInterval.Seconds())
		for _, rs := range results {
			fmt.Fprintf(&b, " %s |", cell(rs[i], interval))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "| **average** | %s |", averageCell(results[0], PaperInterval, true))
	for _, rs := range results {
		fmt.Fprintf(&b, " %s |", averageCell(rs, interval, false))
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "| **worst** | %s |", worstCell(results[0], PaperInterval, true))
	for _, rs := range results {
		fmt.Fprintf(&b, " %s |", worstCell(rs, interval, false))
	}
	b.WriteString("\n")
	return b.String()
}

// worstCell is the longest measured (or, with paper set, the paper's) latency.
func worstCell(rs []Result, interval time.Duration, paper bool) string {
	worst := 0.0
	for _, r := range rs {
		v := r.Latency.Seconds()
		if paper {
			v = r.Paper
		}
		worst = max(worst, v)
	}
	return fmt.Sprintf("%.1f s = %.1f rounds", worst, worst/interval.Seconds())
}

// cell is one measured latency in seconds and rounds.
func cell(r Result, interval time.Duration) string {
	return fmt.Sprintf("%.1f s = %.1f rounds", r.Latency.Seconds(), r.Rounds(interval))
}

// averageCell averages the measured (or, with paper set, the paper's) latencies.
func averageCell(rs []Result, interval time.Duration, paper bool) string {
	sum := 0.0
	for _, r := range rs {
		if paper {
			sum += r.Paper
		} else {
			sum += r.Latency.Seconds()
		}
	}
	avg := sum / float64(len(rs))
	return fmt.Sprintf("%.1f s = %.1f rounds", avg, avg/interval.Seconds())
}
