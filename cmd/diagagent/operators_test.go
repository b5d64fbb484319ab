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
// written, in the same instant: eight agents on loopback at a 1 s interval,
// a write community. Windows of 600 s set on node 3 at agent 1 and on node
// 5 at agent 2 (nodeMaintenanceFor) are both answered 600; two nodes added
// at agents 1 and 2, each at the next id the agent gives (diagNodeNextID,
// 9), are both taken. Every agent comes to hold both windows and to list
// both nodes, under ids 9 and 10, and still does 15 s later.
func TestTwoOperatorsAtOnce(t *testing.T) {
	slot(t, false)
	c := newCluster(t, clusterSpec{algo: "vcube", agents: 8, station: "127.0.0.100:1"})
	c.startAll()
	bound := latencyBound("vcube", 8)
	c.waitFor("every agent holds every node fault-free", 2*bound, func() bool { return c.allFaultFree(8) })
	// atOnce runs the SETs together, the k-th at agent k%2 (1, 2, 1, 2).
	atOnce := func(sets ...[]string) []string {
		outs := make([]string, len(sets))
		var wg sync.WaitGroup
		for k, args := range sets {
			wg.Go(func() {
				out, err := c.snmp("snmpset", k%2, args...)
				if err != nil {
					t.Errorf("snmpset at agent %d: %v: %s", k%2+1, err, out)
				}
				outs[k] = out
			})
		}
		wg.Wait()
		return outs
	}
	forOID := func(node int) string { return mib.TreeCell(mib.ColNodeMaintFor, node) }
	for k := range 2 {
		out, err := c.snmp("snmpget", k, "-Oqv", mib.DiagNodeNextID0)
		if strings.TrimSpace(out) != "9" || err != nil {
			t.Fatalf("diagNodeNextID.0 at agent %d: %q, %v; want 9", k+1, out, err)
		}
	}
	row := func(addr string) []string {
		return []string{mib.TreeCell(mib.ColNodeHost, 9), "s", addr, mib.TreeCell(mib.ColNodeRowStatus, 9), "i", "4"}
	}
	// Both findings at once: at agent 1 a window on node 3 and node 9; at
	// agent 2 a window on node 5 and node 9 (another address).
	set := time.Now()
	outs := atOnce([]string{forOID(3), "u", "600"}, []string{forOID(5), "u", "600"}, row("127.0.0.20"), row("127.0.0.21"))
	for _, out := range outs[:2] {
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
	took := c.waitFor("every agent holds both windows and lists both nodes", membershipBound("vcube", 10), both)
	t.Logf("two windows and two nodes (as id 9) at once: all four at every agent after %v", took.Round(time.Millisecond))
	time.Sleep(time.Until(set.Add(15 * time.Second)))
	if !both() {
		t.Fatal("15 s after the changes, an agent holds only one of the windows or lists only one of the nodes")
	}
	out, _ := c.snmp("snmpwalk", 0, "-Oq", mib.NodeHost)
	t.Logf("agent 1's nodeHost column:\n%s", out)
}
