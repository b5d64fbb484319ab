//go:build linux

package lan

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/diagagent/diagagent/internal/netsnmptest"
	"github.com/diagagent/diagagent/mib"
)

// ErrTimeout is returned when a condition a caller waits for does not hold in time.
var ErrTimeout = errors.New("lan: timed out")

// snmp runs a net-snmp tool from the station's namespace and returns its output.
func (c *Cluster) snmp(tool, community, addr string, args ...string) (string, error) {
	return c.netSNMP(tool, []string{"-v2c", "-c", community, "-t", "0.5", "-r", "1", "-On", addr}, args...)
}

// OperatorSet runs snmpset from the station's host as an operator types it:
// net-snmp's own timeout and retries (1 s, 5 retries), the write community.
func (c *Cluster) OperatorSet(addr string, args ...string) (string, error) {
	return c.netSNMP("snmpset", []string{"-v2c", "-c", "private", "-On", addr}, args...)
}

// netSNMP runs net-snmp's tool from the station's host with options opts, then args.
func (c *Cluster) netSNMP(tool string, opts []string, args ...string) (string, error) {
	bin, err := netsnmptest.Find(tool)
	if err != nil {
		return "", err
	}
	all := append(append([]string{"netns", "exec", c.Net.Hosts[len(c.Net.Hosts)-1], "env", "MIBS=", bin}, opts...), args...)
	var out bytes.Buffer
	cmd := exec.Command("ip", all...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("lan: %s %s: %w: %s", tool, opts[len(opts)-1], err, strings.TrimSpace(out.String()))
	}
	return out.String(), nil
}

// Statuses walks agent k's nodeStatus column with snmpwalk: NodeID -> status.
func (c *Cluster) Statuses(k int) (map[int]int, error) {
	out, err := c.snmp("snmpbulkwalk", "public", c.AgentAddr(k), "-Oq", "-Cr64", ".1.3.6.1.4.1.200.1.1.1.3")
	if err != nil {
		return nil, err
	}
	return parseStatusWalk(out)
}

// parseStatusWalk reads "-Oqn" snmpwalk lines of the nodeStatus column.
func parseStatusWalk(out string) (map[int]int, error) {
	const col = ".1.3.6.1.4.1.200.1.1.1.3."
	got := map[int]int{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(l)
		if len(f) != 2 || !strings.HasPrefix(f[0], col) {
			return nil, fmt.Errorf("lan: unexpected snmpwalk line %q", l)
		}
		id, err1 := strconv.Atoi(strings.TrimPrefix(f[0], col))
		st, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("lan: unexpected snmpwalk line %q", l)
		}
		got[id] = st
	}
	return got, nil
}

// AllSee reports whether every agent in observers holds each NodeID of
// nodes at status want (a nodeStatus value), by walking each agent's
// table. While the agents' logs say otherwise (the latest change an agent
// logged about a node is to another status) it walks once a second at
// most: a walk is a process per agent, about 10 ms of CPU each, and a
// test polling every 100 ms kept more than a core busy per LAN.
func (c *Cluster) AllSee(observers, nodes []int, want int) bool {
	if c.logsDeny(observers, nodes, want) {
		c.walkMu.Lock()
		recent := time.Since(c.walked) < time.Second
		if !recent {
			c.walked = time.Now()
		}
		c.walkMu.Unlock()
		if recent {
			return false
		}
	}
	for _, k := range observers {
		st, err := c.Statuses(k)
		if err != nil {
			return false
		}
		for _, n := range nodes {
			if st[n] != want {
				return false
			}
		}
	}
	return true
}

// logsDeny reports whether some agent of observers last logged a change of
// some node of nodes to a status other than want. An agent that logged
// no change about a node holds its first verdict, which its log does not
// say: that denies nothing.
func (c *Cluster) logsDeny(observers, nodes []int, want int) bool {
	st, err := mib.StatusOf(want)
	if err != nil {
		return false
	}
	name := st.String()
	c.eventLog.mu.Lock()
	defer c.eventLog.mu.Unlock()
	for _, k := range observers {
		for _, n := range nodes {
			if got, ok := c.eventLog.now[[2]int{k + 1, n}]; ok && got != name {
				return true
			}
		}
	}
	return false
}

// Digest reads agent k's diagViewDigest: what a peer's test of it compares
// before reading its view.
func (c *Cluster) Digest(k int) (string, error) {
	out, err := c.snmp("snmpget", "public", c.AgentAddr(k), "-Oqv", ".1.3.6.1.4.1.200.1.12.0")
	return strings.TrimSpace(out), err
}

// AllAgree reports whether every agent in observers serves the same
// non-empty diagViewDigest, so that no test between them reads a view: the
// system is quiet.
func (c *Cluster) AllAgree(observers []int) bool {
	first := ""
	for _, k := range observers {
		d, err := c.Digest(k)
		if err != nil || d == "" || d == `""` || first != "" && d != first {
			return false
		}
		first = d
	}
	return true
}

// Poll checks cond every 100 ms until it holds or timeout passes, and
// returns how long it took.
func (c *Cluster) Poll(timeout time.Duration, cond func() bool) (time.Duration, error) {
	start := time.Now()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(timeout)
	for !cond() {
		select {
		case <-tick.C:
		case <-deadline:
			return time.Since(start), fmt.Errorf("%w after %v", ErrTimeout, timeout)
		}
	}
	return time.Since(start), nil
}

// Learned reports whether every observer (0-based agent id) logged each of
// nodes at status want among evs and still holds it, and the latest of the
// moments at which they first did: when the last of them had diagnosed it.
func Learned(evs []Event, observers, nodes []int, want string) (last time.Time, ok bool) {
	for _, o := range observers {
		for _, n := range nodes {
			at, holds := learnedBy(evs, o, n, want)
			if !holds {
				return time.Time{}, false
			}
			if at.After(last) {
				last = at
			}
		}
	}
	return last, true
}

// learnedBy finds when observer o (0-based agent id) first logged node n as
// want, and whether its latest event about n still says want.
func learnedBy(evs []Event, o, n int, want string) (at time.Time, holds bool) {
	for _, e := range evs {
		if e.Self != o+1 || e.Node != n {
			continue
		}
		if e.New == want && at.IsZero() {
			at = e.At
		}
		holds = e.New == want
	}
	return at, holds && !at.IsZero()
}

// Stale describes which agents hold which nodes at a status other than
// fault-free, such as "agent 5: 8=1; agent 6: 1=1 3=1", or "none".
func (c *Cluster) Stale() string {
	var parts []string
	for k := range c.Agents {
		st, err := c.Statuses(k)
		if err != nil {
			parts = append(parts, fmt.Sprintf("agent %d: %v", k+1, err))
			continue
		}
		var bad []string
		for n := 1; n <= c.Nodes(); n++ {
			if st[n] != 0 {
				bad = append(bad, fmt.Sprintf("%d=%d", n, st[n]))
			}
		}
		if len(bad) > 0 {
			parts = append(parts, fmt.Sprintf("agent %d: %s", k+1, strings.Join(bad, " ")))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}

// EveryLogged reports whether every agent's log holds sub.
func (c *Cluster) EveryLogged(sub string) bool {
	files, _ := filepath.Glob(filepath.Join(c.Dir, "agent*.log"))
	for _, f := range files {
		if b, err := os.ReadFile(f); err != nil || !strings.Contains(string(b), sub) {
			return false
		}
	}
	return len(files) > 0
}

// LogLines counts the lines holding sub in every agent's log so far.
func (c *Cluster) LogLines(sub string) int {
	files, _ := filepath.Glob(filepath.Join(c.Dir, "agent*.log"))
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err == nil {
			n += strings.Count(string(b), sub)
		}
	}
	return n
}
