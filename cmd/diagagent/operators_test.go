//go:build integration && linux

package main

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/diagagent/diagagent/mib"
)

// TestTwoOperatorsAtOnce runs the two findings of issue 41 as they were
// written: eight agents on loopback at a 1 s interval, a write community.
// Windows of 600 s set in the same instant on node 3 at agent 1 and on node
// 5 at agent 2 (nodeMaintenanceFor) are both answered, and every agent
// comes to hold both, and still does 15 s later. Two nodes added at once
// at agents 1 and 2, each at the next id the agent gives (diagNodeNextID,
// 9), are both taken, and every agent comes to list both, under ids 9 and
// 10, and still does 15 s later.
func TestTwoOperatorsAtOnce(t *testing.T) {
	c := newCluster(t, clusterSpec{algo: "vcube", agents: 8, station: "127.0.0.100:1"})
	c.startAll()
	bound := latencyBound("vcube", 8)
	c.waitFor("every agent holds every node fault-free", 2*bound, func() bool { return c.allFaultFree(8) })
	atOnce := func(sets ...[]string) []string {
		outs := make([]string, len(sets))
		var wg sync.WaitGroup
		for k, args := range sets {
			wg.Go(func() {
				out, err := c.snmp("snmpset", k, args...)
				if err != nil {
					t.Errorf("snmpset at agent %d: %v: %s", k+1, err, out)
				}
				outs[k] = out
			})
		}
		wg.Wait()
		return outs
	}
	forOID := func(node int) string { return mib.TreeCell(mib.ColNodeMaintFor, node) }
	for _, out := range atOnce([]string{forOID(3), "u", "600"}, []string{forOID(5), "u", "600"}) {
		if !strings.Contains(out, "Gauge32: 600") {
			t.Fatalf("a window's SET answered %q, want 600", out)
		}
	}
	both := func() bool {
		for _, k := range c.running() {
			for _, node := range []int{3, 5} {
				out, err := c.snmp("snmpget", k, "-Oqv", forOID(node))
				if n, _ := strconv.Atoi(strings.TrimSpace(out)); err != nil || n == 0 {
					return false
				}
			}
		}
		return true
	}
	took := c.waitFor("every agent holds both windows", membershipBound("vcube", 8), both)
	t.Logf("two windows at once: both at every agent after %v", took.Round(time.Millisecond))
	time.Sleep(15*time.Second - took)
	if !both() {
		t.Fatal("15 s after the two windows were set, an agent holds only one")
	}

	var next [2]string
	for k := range 2 {
		out, err := c.snmp("snmpget", k, "-Oqv", mib.DiagNodeNextID0)
		if next[k] = strings.TrimSpace(out); err != nil || next[k] != "9" {
			t.Fatalf("diagNodeNextID.0 at agent %d: %q, %v; want 9", k+1, out, err)
		}
	}
	row := func(addr string) []string {
		return []string{mib.TreeCell(mib.ColNodeHost, 9), "s", addr, mib.TreeCell(mib.ColNodeRowStatus, 9), "i", "4"}
	}
	atOnce(row("127.0.0.20"), row("127.0.0.21"))
	listed := func() bool {
		for _, k := range c.running() {
			out, err := c.snmp("snmpwalk", k, "-Oqv", mib.NodeHost)
			if err != nil || !strings.Contains(out, `"127.0.0.20"`) || !strings.Contains(out, `"127.0.0.21"`) {
				return false
			}
			for _, id := range []int{9, 10} {
				if _, err := c.snmp("snmpget", k, "-Oqv", mib.TreeCell(mib.ColNodeHost, id)); err != nil {
					return false
				}
			}
		}
		return true
	}
	took = c.waitFor("every agent lists both new nodes", membershipBound("vcube", 10), listed)
	t.Logf("two nodes at once as id 9: both at every agent, as 9 and 10, after %v", took.Round(time.Millisecond))
	time.Sleep(15*time.Second - took)
	if !listed() {
		t.Fatal("15 s after the two nodes were added, an agent lists only one")
	}
	out, _ := c.snmp("snmpwalk", 0, "-Oq", mib.NodeHost)
	t.Logf("agent 1's nodeHost column:\n%s", out)
}
