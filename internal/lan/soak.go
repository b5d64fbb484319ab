//go:build linux

package lan

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SoakResult counts what random loss did to a cluster with no real fault.
type SoakResult struct {
	Loss          int           // percent, on every agent's host
	Duration      time.Duration // how long the loss lasted
	Gets          uint64        // GET requests the agents served (tests, retries included)
	Dropped       int           // packets the loss rules dropped
	Suspicions    int           // status changes to faulty or partial, at any agent
	Detections    int           // of those, found by a direct test (each sends a notification)
	Notifications int           // notifications snmptrapd received
	Settled       time.Duration // after the loss, until every agent holds every node fault-free; -1 if not within the bound
}

// Soak puts pct percent loss on every agent's host for d, then lifts it and
// counts the false suspicions the cluster logged meanwhile (every node is
// fault-free all along) and the notifications they caused.
func (c *Cluster) Soak(pct int, d time.Duration) (SoakResult, error) {
	r := SoakResult{Loss: pct, Duration: d}
	before, err := c.sumGets()
	if err != nil {
		return r, err
	}
	mark, trapMark := c.Mark(), c.Station.Mark()
	for k := range c.Agents {
		if err := c.Net.SetLoss(k, pct); err != nil {
			return r, err
		}
	}
	// The loss lasts d whatever happens; nothing waits on the cluster here.
	<-time.After(d)
	for k := range c.Agents {
		n, err := c.Net.LossDrops(k)
		if err != nil {
			return r, err
		}
		r.Dropped += n
		if err := c.Net.SetLoss(k, 0); err != nil {
			return r, err
		}
	}
	after, err := c.sumGets()
	if err != nil {
		return r, err
	}
	r.Gets = after - before
	for _, e := range c.Events(mark) {
		if e.New == "faulty" || e.New == "partial" {
			r.Suspicions++
			if e.How == "direct" {
				r.Detections++
			}
		}
	}
	r.Notifications = len(c.Station.Notifications(trapMark))
	r.Settled = c.settle()
	return r, nil
}

// settle waits up to the bound for every agent to hold every node fault-free
// and returns how long that took, or -1.
func (c *Cluster) settle() time.Duration {
	all, nodes := make([]int, c.Agents), make([]int, c.Nodes())
	for k := range all {
		all[k] = k
	}
	for k := range nodes {
		nodes[k] = k + 1
	}
	took, err := c.Poll(c.Bound(), func() bool { return c.AllSee(all, nodes, 0) })
	if err != nil {
		return -1
	}
	return took
}

// sumGets adds up snmpInGetRequests.0 of every agent.
func (c *Cluster) sumGets() (uint64, error) {
	var sum uint64
	for k := range c.Agents {
		out, err := c.snmp("snmpget", "public", c.AgentAddr(k), "-Oqv", ".1.3.6.1.2.1.11.15.0")
		if err != nil {
			return 0, err
		}
		v, err := strconv.ParseUint(strings.TrimSpace(out), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("lan: snmpInGetRequests of agent %d: %q: %w", k+1, out, err)
		}
		sum += v
	}
	return sum, nil
}

// SoakTable formats soak results as markdown; retries names each row's setting.
func SoakTable(settings []string, rs []SoakResult) string {
	var b strings.Builder
	b.WriteString("| loss | setting | duration | GETs served | packets dropped | false suspicions | of which direct (notified) | notifications received | all fault-free again after |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for k, r := range rs {
		settled := "not within the bound"
		if r.Settled >= 0 {
			settled = r.Settled.Round(100 * time.Millisecond).String()
		}
		fmt.Fprintf(&b, "| %d%% | %s | %v | %d | %d | %d | %d | %d | %s |\n", r.Loss, settings[k], r.Duration,
			r.Gets, r.Dropped, r.Suspicions, r.Detections, r.Notifications, settled)
	}
	return b.String()
}
