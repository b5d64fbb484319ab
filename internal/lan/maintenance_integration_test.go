//go:build integration && linux

package lan

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMaintenanceLAN: six agents and a station. Node 6 gets a 30 s
// maintenance window by snmpset (nodeMaintenanceFor, the write community)
// on agent 2 alone; every agent learns it, node 6's agent is killed, and
// agent 3 restarts within the window. The MIB shows node 6 partial all
// along, the station gets no notification about it while the window is
// open, the restarted agent still holds the window, and when it ends the
// station gets exactly one diagNodeMaintenanceEnded: partial since
// fault-free.
func TestMaintenanceLAN(t *testing.T) {
	t.Parallel()
	c := startCluster(t, ciSpec(t, "mt", "vcube", 6, false))
	window := 30 * time.Second
	mark := c.Station.Mark()
	const forOID = ".1.3.6.1.4.1.200.1.1.1.14.6"
	if out, err := c.snmp("snmpset", "private", c.AgentAddr(1), forOID, "u", strconv.Itoa(int(window/time.Second))); err != nil {
		t.Fatalf("snmpset nodeMaintenanceFor.6 on agent 2: %v\n%s", err, out)
	}
	set := time.Now()
	inWindow := func(k int) bool {
		out, err := c.snmp("snmpget", "public", c.AgentAddr(k), "-Oqv", forOID)
		n, perr := strconv.Atoi(strings.TrimSpace(out))
		return err == nil && perr == nil && n > 0
	}
	took, err := c.Poll(c.Bound(), func() bool {
		for k := range 6 {
			if !inWindow(k) {
				return false
			}
		}
		return true
	})
	if err != nil {
		t.Fatalf("every agent holds node 6's window: %v", err)
	}
	t.Logf("every agent held node 6's window %v after the SET", took.Round(time.Millisecond))
	must(t, c.KillAgent(5))
	five := ids(5)
	if _, err := c.Poll(c.Bound(), func() bool { return c.AllSee(five, []int{6}, 2) }); err != nil {
		t.Fatalf("the MIB shows node 6 partial in its window everywhere: %v", err)
	}
	must(t, c.StopAgent(2))
	must(t, c.StartAgent(2))
	must(t, c.AwaitAnswer(2, 10*time.Second))
	if !inWindow(2) {
		t.Fatal("agent 3 restarted without node 6's window")
	}
	if left := window - time.Since(set); left < 2*c.RoundTime() {
		t.Fatalf("the steps took too long: %v of the window left, the test cannot tell the window from its end", left)
	}
	ended := regexp.MustCompile(`\.1\.3\.6\.1\.4\.1\.200\.1\.1\.1\.3\.6 = INTEGER: 2\b.*\.1\.3\.6\.1\.4\.1\.200\.1\.1\.1\.15\.6 = INTEGER: 0\b`)
	isEnd := func(l string) bool {
		return strings.HasPrefix(l, "NOTIFY ") && strings.Contains(l, ".1.3.6.1.4.1.200.2.0.7") && ended.MatchString(l)
	}
	if _, err := c.Station.Wait(window+c.Bound(), mark, isEnd); err != nil {
		t.Fatalf("no diagNodeMaintenanceEnded (partial since fault-free) for node 6: %v", err)
	}
	t.Logf("diagNodeMaintenanceEnded %v after the SET (window %v)", time.Since(set).Round(time.Millisecond), window)
	time.Sleep(3 * c.RoundTime()) // room for a second one, which must not come
	about6 := regexp.MustCompile(`\.1\.3\.6\.1\.4\.1\.200\.1\.8\.1\.2\.\d+ = INTEGER: 6\b`)
	ends := 0
	for _, l := range c.Station.Notifications(mark) {
		switch {
		case strings.Contains(l, ".1.3.6.1.4.1.200.2.0.7"):
			ends++
		case strings.Contains(l, ".1.3.6.1.4.1.200.2.0.1") && about6.MatchString(l):
			t.Errorf("a status notification about node 6: %s", l)
		case strings.Contains(l, ".1.3.6.1.4.1.200.2.0.6") && strings.Contains(l, ".1.3.6.1.4.1.200.1.1.1.12.6 "):
			t.Errorf("a flapping notification about node 6: %s", l)
		}
	}
	if ends != 1 {
		t.Errorf("%d diagNodeMaintenanceEnded, want exactly 1", ends)
	}
	for _, k := range five {
		if inWindow(k) {
			t.Errorf("agent %d still holds node 6's window after it ended", k+1)
		}
	}
}
