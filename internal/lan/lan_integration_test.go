//go:build integration && linux

package lan

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestVCubeLANFaults runs 8 agents, a printer (snmpd, tested only) and a
// station (snmptrapd), each in its own namespace, and checks every fault a
// LAN has: link down (faulty), agent stopped or frozen (partial), printer
// stopped (partial), and each repair.
func TestVCubeLANFaults(t *testing.T) {
	t.Parallel()
	c := startCluster(t, ciSpec(t, "vc", "vcube", 8, true))
	agentFaults(t, c, "")

	mark := c.Station.Mark()
	must(t, c.StopPrinter())
	expect(t, c, "printer's snmpd stopped", mark, ids(c.Agents), c.PrinterNode(), 2)
	mark = c.Station.Mark()
	must(t, c.StartPrinter())
	expect(t, c, "printer's snmpd restarted", mark, ids(c.Agents), c.PrinterNode(), 0)
}

// agentFaults runs the faults of an agent's host and their repairs on c:
// host 3's link down (faulty) and up, agent 5 stopped (partial) and
// restarted, agent 7 frozen (partial) and thawed; what prefixes each line.
// Host 3 stays cut off until it applies the verdicts it held (it suspected
// its own link first), and none of them may reach another agent.
func agentFaults(t *testing.T, c *Cluster, what string) {
	t.Helper()
	all := ids(c.Agents)
	mark, evMark := c.Station.Mark(), c.Mark()
	must(t, c.Net.LinkDown(2))
	expect(t, c, what+"host 3 link down", mark, without(all, 2), 3, 1)
	err := c.WaitEvents(4*c.Bound(), evMark, func(evs []Event) bool {
		return slices.ContainsFunc(evs, func(e Event) bool { return e.Self == 3 && e.Node != 3 && e.New == "faulty" })
	})
	must(t, err)
	mark = c.Station.Mark()
	must(t, c.Net.LinkUp(2))
	expect(t, c, what+"host 3 link up", mark, all, 3, 0)
	settled(t, c, what+"host 3 link up")
	for _, e := range c.Events(evMark) {
		if e.Self != 3 && e.Node != 3 {
			t.Errorf("%sagent %d logged node %d %s -> %s (%s) around host 3's cut: a verdict of the cut-off host spread",
				what, e.Self, e.Node, e.Old, e.New, e.How)
		}
	}

	mark = c.Station.Mark()
	must(t, c.StopAgent(4))
	expect(t, c, what+"agent 5 stopped", mark, without(all, 4), 5, 2)
	mark = c.Station.Mark()
	must(t, c.StartAgent(4))
	expect(t, c, what+"agent 5 restarted", mark, all, 5, 0)

	mark = c.Station.Mark()
	must(t, c.Agent(6).Freeze())
	expect(t, c, what+"agent 7 frozen (SIGSTOP)", mark, without(all, 6), 7, 2)
	mark = c.Station.Mark()
	must(t, c.Agent(6).Thaw())
	expect(t, c, what+"agent 7 thawed (SIGCONT)", mark, all, 7, 0)
}

// TestHiADSDLANLinkDown checks Hi-ADSD (bound ceil(log2 N)^2 rounds) on the
// faults that need the LAN: a link down and up, and a frozen agent.
func TestHiADSDLANLinkDown(t *testing.T) {
	t.Parallel()
	c := startCluster(t, ciSpec(t, "hi", "hiadsd", 8, false))
	all := ids(c.Agents)

	mark := c.Station.Mark()
	must(t, c.Net.LinkDown(5))
	expect(t, c, "host 6 link down", mark, without(all, 5), 6, 1)
	mark = c.Station.Mark()
	must(t, c.Net.LinkUp(5))
	expect(t, c, "host 6 link up", mark, all, 6, 0)
	// Host 6, cut off, tested everyone faulty with counters newer than anyone
	// else's; after the repair every agent must unlearn that (hiadsd.Config.Recheck).
	settled(t, c, "host 6 link up")

	mark = c.Station.Mark()
	must(t, c.Agent(1).Freeze())
	expect(t, c, "agent 2 frozen", mark, without(all, 1), 2, 2)
	mark = c.Station.Mark()
	must(t, c.Agent(1).Thaw())
	expect(t, c, "agent 2 thawed", mark, all, 2, 0)
}

// TestVCubeIPv6LAN is TestVCubeLANFaults on a LAN of IPv6 addresses only
// (no host has an IPv4 address): the agents test each other over UDP6 and
// ICMPv6 and notify an IPv6 station (a fall-back, as nmsID is IPv4).
func TestVCubeIPv6LAN(t *testing.T) {
	t.Parallel()
	s := ciSpec(t, "v6", "vcube", 8, false)
	s.IPv6 = true
	c := startCluster(t, s)
	for _, a := range c.Net.Addrs {
		if !a.Is6() || a.Is4In6() {
			t.Fatalf("host address %v on an IPv6-only LAN", a)
		}
	}
	agentFaults(t, c, "IPv6: ")
}

// TestStartApartNotifiesNothing starts 8 vCube agents one second apart, as
// an administrator starting them by hand would. Each first finds the ones not
// started yet partial, a verdict about a node it never saw up: the start-up
// grace (10 s here) holds it back, so once every agent runs and the grace
// is over the station has heard nothing about any node.
func TestStartApartNotifiesNothing(t *testing.T) {
	t.Parallel()
	c := buildCluster(t, ciSpec(t, "sa", "vcube", 8, false))
	conf := c.Dir + "/grace.yaml"
	const grace = 10 * time.Second
	must(t, c.WriteConfig(conf, ids(c.Agents), grace))
	mark, evMark := c.Station.Mark(), c.Mark()
	began := time.Now()
	for k := range c.Agents {
		must(t, c.StartAgentWith(k, conf))
		time.Sleep(time.Second) // the scenario: agents started by hand, a second apart
	}
	if _, err := c.Poll(2*c.Bound(), func() bool { return c.AllSee(ids(c.Agents), nodeIDs(c.Nodes()), 0) }); err != nil {
		t.Fatalf("every agent holds every node fault-free: %v", err)
	}
	// Past the grace of the last agent started, plus two rounds for a held
	// verdict to be sent: nothing to wait for, since nothing may come.
	time.Sleep(time.Until(began.Add(time.Duration(c.Agents)*time.Second + grace + 2*c.RoundTime())))
	verdicts := 0
	for _, e := range c.Events(evMark) {
		if e.New == "partial" || e.New == "faulty" {
			verdicts++
		}
	}
	var sent []string
	for _, l := range c.Station.Notifications(mark) {
		if strings.Contains(l, ".1.3.6.1.4.1.200.2.0.1") { // diagNodeStatusChange
			sent = append(sent, l)
		}
	}
	t.Logf("%d faulty or partial verdicts logged while the agents started; %d notifications", verdicts, len(sent))
	if verdicts == 0 {
		t.Fatal("no agent logged a verdict about an agent not started yet: the scenario did not happen")
	}
	if len(sent) > 0 {
		t.Fatalf("the station got %d status notifications, the first: %s", len(sent), sent[0])
	}
}
