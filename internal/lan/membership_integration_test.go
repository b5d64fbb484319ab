//go:build integration && linux

package lan

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/diagagent/diagagent/hiadsd"
)

// TestMembershipLAN: eight vCube agents run on a namespace LAN; a ninth
// host starts its agent from a file that lists it and is added by an SNMP
// SET (createAndGo) on agent 3; host 7 is then removed from the file of
// agent 2, which is sent SIGHUP once it runs the list with node 9 (changes
// are made one at a time, on an agent that runs the newest list). Each change reaches every agent within
// hiadsd.MembershipBound rounds, the station gets one diagNodeListChange
// per change, and no agent notifies or logs any suspicion.
func TestMembershipLAN(t *testing.T) {
	t.Parallel()
	s := ciSpec(t, "mb", "vcube", 9, false)
	c := buildCluster(t, s)
	eight := ids(8)
	must(t, c.WriteConfig(c.conf, eight, 0))
	for _, k := range eight {
		must(t, c.StartAgent(k))
	}
	for _, k := range eight {
		must(t, c.AwaitAnswer(k, 10*time.Second))
	}
	if _, err := c.Poll(2*c.Bound(), func() bool { return c.AllSee(eight, nodeIDs(8), 0) }); err != nil {
		t.Fatalf("eight agents hold each other fault-free: %v", err)
	}
	events, mark := c.Mark(), c.Station.Mark()
	bound := time.Duration(hiadsd.MembershipBound(hiadsd.VCube, 9)+1) * c.RoundTime()

	joinConf := filepath.Join(s.Dir, "join.yaml")
	must(t, c.WriteConfig(joinConf, ids(9), 30*time.Second))
	must(t, c.StartAgentWith(8, joinConf))
	must(t, c.AwaitAnswer(8, 10*time.Second))
	a := c.Net.Addrs[8].As4()
	out, err := c.snmp("snmpset", "private", c.AgentAddr(2), ".1.3.6.1.4.1.200.1.1.1.8.9", "i", "1",
		".1.3.6.1.4.1.200.1.1.1.9.9", "x", fmt.Sprintf("%02x%02x%02x%02x", a[0], a[1], a[2], a[3]),
		".1.3.6.1.4.1.200.1.1.1.10.9", "u", fmt.Sprint(s.port()), ".1.3.6.1.4.1.200.1.1.1.11.9", "i", "4")
	if err != nil {
		t.Fatalf("snmpset createAndGo of row 9 on agent 3: %v\n%s", err, out)
	}
	took, err := c.Poll(bound, func() bool { return c.allList(ids(9), nodeIDs(9)) })
	if err != nil {
		t.Fatalf("node 9 joined: every agent holds all 9 nodes fault-free: %v", err)
	}
	t.Logf("node 9 joined: every agent holds it after %v = %.1f rounds (bound %v)", took.Round(time.Millisecond),
		float64(took)/float64(c.RoundTime()), bound)
	if _, err := c.Station.Wait(bound, mark, listChange(9, 4)); err != nil {
		t.Fatalf("no diagNodeListChange for node 9 added: %v", err)
	}

	must(t, c.WriteConfig(c.conf, without(ids(9), 6), 0))
	must(t, c.Agent(1).signal(syscall.SIGHUP))
	stay := without(ids(9), 6)
	took, err = c.Poll(bound, func() bool { return c.noneList(stay, 7) && c.allList(stay, without(nodeIDs(9), 7)) })
	if err != nil {
		t.Fatalf("node 7 left: no agent lists it: %v", err)
	}
	t.Logf("node 7 left: no agent lists it after %v = %.1f rounds (bound %v)", took.Round(time.Millisecond),
		float64(took)/float64(c.RoundTime()), bound)
	if _, err := c.Station.Wait(bound, mark, listChange(7, 6)); err != nil {
		t.Fatalf("no diagNodeListChange for node 7 removed: %v", err)
	}
	for _, e := range c.Events(events) {
		if e.New == "faulty" || e.New == "partial" {
			t.Errorf("agent %d held node %d %s (%s): a false suspicion", e.Self, e.Node, e.New, e.How)
		}
	}
	suspect := regexp.MustCompile(`\.1\.3\.6\.1\.4\.1\.200\.1\.8\.1\.3\.\d+ = INTEGER: [12]\b`)
	for _, l := range c.Station.Notifications(mark) {
		if strings.Contains(l, ".1.3.6.1.4.1.200.2.0.3") || (strings.Contains(l, ".1.3.6.1.4.1.200.2.0.1") && suspect.MatchString(l)) {
			t.Errorf("the station got a suspicion or a list conflict: %s", l)
		}
	}
}

// allList reports whether every agent among observers has a row for each
// NodeID of nodes, and holds it fault-free.
func (c *Cluster) allList(observers, nodes []int) bool {
	for _, k := range observers {
		st, err := c.Statuses(k)
		if err != nil {
			return false
		}
		for _, n := range nodes {
			if s, ok := st[n]; !ok || s != 0 {
				return false
			}
		}
	}
	return true
}

// noneList reports whether no agent among observers has a row for NodeID node.
func (c *Cluster) noneList(observers []int, node int) bool {
	for _, k := range observers {
		st, err := c.Statuses(k)
		if err != nil {
			return false
		}
		if _, ok := st[node]; ok {
			return false
		}
	}
	return true
}

// listChange matches a diagNodeListChange about NodeID node with nodeRowStatus
// status (4 added, 6 removed).
func listChange(node, status int) func(string) bool {
	rs := regexp.MustCompile(fmt.Sprintf(`\.1\.3\.6\.1\.4\.1\.200\.1\.1\.1\.11\.%d = INTEGER: %d\b`, node, status))
	return func(l string) bool {
		return strings.HasPrefix(l, "NOTIFY ") && strings.Contains(l, ".1.3.6.1.4.1.200.2.0.4") && rs.MatchString(l)
	}
}
