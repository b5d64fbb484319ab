//go:build integration

package lan

import (
	"testing"
)

// TestVCubeLANFaults runs 8 agents, a printer (snmpd, tested only) and a
// station (snmptrapd), each in its own namespace, and checks every fault a
// LAN has: link down (faulty), agent stopped or frozen (partial), printer
// stopped (partial), and each repair.
func TestVCubeLANFaults(t *testing.T) {
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
func agentFaults(t *testing.T, c *Cluster, what string) {
	t.Helper()
	all := ids(c.Agents)
	mark := c.Station.Mark()
	must(t, c.Net.LinkDown(2))
	expect(t, c, what+"host 3 link down", mark, without(all, 2), 3, 1)
	mark = c.Station.Mark()
	must(t, c.Net.LinkUp(2))
	expect(t, c, what+"host 3 link up", mark, all, 3, 0)
	settled(t, c, what+"host 3 link up")

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
