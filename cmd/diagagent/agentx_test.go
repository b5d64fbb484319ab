//go:build integration && linux

package main

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/diagagent/diagagent/internal/netsnmptest"
	"github.com/diagagent/diagagent/mib"
)

// TestAgentXCluster runs 8 agents in AgentX mode, each under an snmpd of
// its own (master agentx) at its address, as on 8 workstations: the agents
// test each other through their snmpds and agree; a stopped agent leaves
// its snmpd answering without the DIAGNOSIS-MIB, so it is partial
// everywhere and the station hears of it; a SET of nmsID through one snmpd
// reaches every agent, and so do a node added and removed through two
// snmpds; the restarted agent registers again.
func TestAgentXCluster(t *testing.T) {
	slot(t, false)
	port := netsnmptest.FreeUDPPort(t, "127.0.0.100")
	station := fmt.Sprintf("127.0.0.100:%d", port)
	trapd := netsnmptest.StartTrapd(t, station, nil, "-On")
	c := newCluster(t, clusterSpec{algo: "vcube", agents: 8, station: station, agentx: true, web: true})
	c.startAll()
	bound := latencyBound("vcube", 8)
	took := c.waitFor("every agent holds every node fault-free", 2*bound, func() bool { return c.allFaultFree(8) })
	t.Logf("8 agents in AgentX mode: every node fault-free everywhere after %v", took.Round(time.Millisecond))

	c.stop(4, syscall.SIGTERM)
	took = c.waitFor("every agent holds node 5 partial", bound, func() bool { return c.everyoneSees(5, 2) })
	t.Logf("agent 5 stopped (its snmpd still up): partial everywhere after %v", took.Round(time.Millisecond))
	if _, err := trapd.Wait(bound+partialHold+testGroupWindow(), 0, notificationAbout(5, 2)); err != nil {
		t.Fatalf("station got no notification that node 5 is partial: %v", err)
	}
	if out, err := c.snmp("snmpset", 2, mib.NMSID0, "a", "127.0.0.101"); err != nil {
		t.Fatalf("SET nmsID through agent 3's snmpd: %v: %s", err, out)
	}
	c.waitFor("every agent holds nmsID 127.0.0.101", bound, func() bool {
		for _, k := range c.running() {
			out, err := c.snmp("snmpget", k, "-Oqv", mib.NMSID0)
			if err != nil || strings.TrimSpace(out) != "127.0.0.101" {
				return false
			}
		}
		return true
	})
	// A printer added through agent 3's snmpd (TestSet, CommitSet) at the
	// id it names, then removed through agent 4's: every agent follows.
	next, err := c.snmp("snmpget", 2, "-Oqv", mib.DiagNodeNextID0)
	if err != nil || strings.TrimSpace(next) != "9" {
		t.Fatalf("diagNodeNextID.0 through agent 3's snmpd: %q, %v; want 9", next, err)
	}
	if out, err := c.snmp("snmpset", 2, mib.TreeCell(mib.ColNodeHost, 9), "s", "127.0.0.109", mib.TreeCell(mib.ColNodeTestedOnly, 9), "i", "1",
		mib.TreeCell(mib.ColNodeName, 9), "s", "printer", mib.TreeCell(mib.ColNodeRowStatus, 9), "i", "4"); err != nil {
		t.Fatalf("create row 9 through agent 3's snmpd: %v: %s", err, out)
	}
	if out, err := c.snmp("snmpset", 2, mib.TreeCell(mib.ColNodeHost, 11), "s", "127.0.0.111", mib.TreeCell(mib.ColNodeRowStatus, 11), "i", "4"); err == nil ||
		!strings.Contains(out, "noCreation") {
		t.Errorf("create row 11 through snmpd, where the next is 10: %v: %s; want noCreation", err, out)
	}
	if out, err := c.snmp("snmpset", 2, mib.TreeCell(mib.ColNodeHost, 9), "s", "127.0.0.110", mib.TreeCell(mib.ColNodeRowStatus, 9), "i", "4"); err == nil ||
		!strings.Contains(out, "inconsistentValue") {
		t.Errorf("create row 9 again through snmpd: %v: %s; want inconsistentValue", err, out)
	}
	listed := func(present bool) func() bool {
		return func() bool {
			for _, k := range c.running() {
				st, err := c.statuses(k)
				if _, in := st[9]; err != nil || in != present {
					return false
				}
			}
			return true
		}
	}
	took = c.waitFor("every agent lists node 9", membershipBound("vcube", 9), listed(true))
	t.Logf("node 9 added through snmpd: listed everywhere after %v", took.Round(time.Millisecond))
	if out, err := c.snmp("snmpset", 3, mib.TreeCell(mib.ColNodeRowStatus, 9), "i", "6"); err != nil {
		t.Fatalf("destroy row 9 through agent 4's snmpd: %v: %s", err, out)
	}
	took = c.waitFor("no agent lists node 9", membershipBound("vcube", 9), listed(false))
	t.Logf("node 9 removed through snmpd: gone everywhere after %v", took.Round(time.Millisecond))

	c.start(4)
	took = c.waitFor("every agent holds node 5 fault-free again", bound, func() bool { return c.everyoneSees(5, 0) })
	t.Logf("agent 5 restarted: fault-free everywhere after %v", took.Round(time.Millisecond))

	// Agent 3's snmpd restarts: the agent registers again, and its metrics say so.
	c.masters[2].Stop()
	c.masters[2].Start(t)
	c.waitFor("agent 3 registered with its restarted snmpd", bound, func() bool {
		fams := scrapeAgent(t, c.webURL(2))
		return sample(fams, "diagagent_agentx_connected") == 1 && sample(fams, "diagagent_agentx_sessions_total") == 2
	})
	if _, err := c.statuses(2); err != nil {
		t.Errorf("agent 3 through its restarted snmpd: %v", err)
	}
}
