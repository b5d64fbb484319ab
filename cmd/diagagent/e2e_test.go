//go:build integration && linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/diagagent/diagagent/internal/netsnmptest"
)

// slots lets two of the package's longer tests run side by side (each
// runs agents, a build or a browser, and mostly waits), and heavy one of
// those that build for several platforms: the package lasts about half
// their sum, and loads the machine little more beside internal/lan's LANs
// than one after the other did (three at a time, a clean-clone run timed
// out operators' SETs in a LAN test beside them).
var slots, heavy = make(chan struct{}, 2), make(chan struct{}, 1)

// slot makes t parallel and waits for one of slots (and heavy's, for a
// test that builds), freed when t ends.
func slot(t *testing.T, builds bool) {
	t.Parallel()
	if builds {
		heavy <- struct{}{}
		t.Cleanup(func() { <-heavy })
	}
	slots <- struct{}{}
	t.Cleanup(func() { <-slots })
}

// enterprise200 is the BER encoding of 1.3.6.1.4.1.200, the DIAGNOSIS-MIB's
// root: a request that carries it asks for diagnostic information.
var enterprise200 = []byte{0x2b, 0x06, 0x01, 0x04, 0x01, 0x81, 0x48}

// notificationAbout matches a diagNodeStatusChange line of snmptrapd about
// NodeID node with the new status.
func notificationAbout(node, status int) func(string) bool {
	id := regexp.MustCompile(fmt.Sprintf(`\.1\.3\.6\.1\.4\.1\.200\.1\.8\.1\.2\.\d+ = INTEGER: %d\b`, node))
	st := regexp.MustCompile(fmt.Sprintf(`\.1\.3\.6\.1\.4\.1\.200\.1\.8\.1\.3\.\d+ = INTEGER: %d\b`, status))
	return func(l string) bool {
		return strings.HasPrefix(l, "NOTIFY ") && strings.Contains(l, ".1.3.6.1.4.1.200.2.0.1") &&
			id.MatchString(l) && st.MatchString(l)
	}
}

// TestVCubeClusterOfRealAgents runs 8 diagagent processes and a printer played
// by snmpd: a stopped agent is diagnosed partial by all within vCube's bound
// and the station hears of it; a restart brings it back; the printer is
// diagnosed too but never asked for diagnostic information.
func TestVCubeClusterOfRealAgents(t *testing.T) {
	slot(t, false)
	port := netsnmptest.FreeUDPPort(t, "127.0.0.100")
	station := fmt.Sprintf("127.0.0.100:%d", port)
	trapd := netsnmptest.StartTrapd(t, station, nil, "-On")
	printerAddr := fmt.Sprintf("127.0.0.9:%d", netsnmptest.FreeUDPPort(t, "127.0.0.9"))
	printer := netsnmptest.StartSNMPD(t, printerAddr, "printers", []string{"rocommunity printers 127.0.0.0/8"})
	c := newCluster(t, clusterSpec{algo: "vcube", agents: 8, station: station, printer: printerAddr})
	c.startAll()
	nodes := 9
	bound := latencyBound("vcube", nodes)
	took := c.waitFor("every agent holds every node fault-free", 2*bound, func() bool { return c.allFaultFree(nodes) })
	t.Logf("start-up: all 9 nodes fault-free everywhere after %v", took.Round(time.Millisecond))

	c.stop(4, syscall.SIGTERM)
	took = c.waitFor("every agent holds node 5 partial", bound, func() bool { return c.everyoneSees(5, 2) })
	t.Logf("agent 5 stopped: diagnosed partial by all after %v (bound %v, %.1f rounds of %v)",
		took.Round(time.Millisecond), bound, float64(took)/float64(roundTime()), roundTime())
	if _, err := trapd.Wait(bound+partialHold+testGroupWindow(), 0, notificationAbout(5, 2)); err != nil {
		t.Fatalf("station got no notification that node 5 is partial: %v", err)
	}

	c.start(4)
	took = c.waitFor("every agent holds node 5 fault-free again", bound, func() bool { return c.everyoneSees(5, 0) })
	t.Logf("agent 5 restarted: fault-free everywhere after %v", took.Round(time.Millisecond))
	if _, err := trapd.Wait(bound+recoveryHold+testGroupWindow(), 0, notificationAbout(5, 0)); err != nil {
		t.Fatalf("station got no notification that node 5 is fault-free again: %v", err)
	}

	// The printer's tester is the first fault-free agent of its cluster,
	// agent 1, whose address is also the one the kernel picks on loopback.
	// With agent 1 stopped agent 2 tests it, so the printer's log shows
	// tests from two agents' own addresses (checkSources).
	c.stop(0, syscall.SIGTERM)
	c.waitFor("every agent holds node 1 partial", bound, func() bool { return c.everyoneSees(1, 2) })
	printer.Stop()
	took = c.waitFor("every agent holds the printer faulty or partial", bound, func() bool {
		return c.everyoneSees(9, 2) || c.everyoneSees(9, 1)
	})
	t.Logf("printer stopped: diagnosed after %v", took.Round(time.Millisecond))
	printer.Start(t)
	c.waitFor("every agent holds the printer fault-free again", bound, func() bool { return c.everyoneSees(9, 0) })

	got := printer.Received()
	if len(got) == 0 {
		t.Fatalf("the printer's snmpd logged no request; log:\n%s", printer.Log())
	}
	for _, p := range got {
		if bytes.Contains(p, enterprise200) {
			t.Fatalf("an agent asked the tested-only printer for diagnostic information: % X", p)
		}
	}
	t.Logf("printer answered %d requests, none under enterprises.200", len(got))
	checkSources(t, "the printer's requests", sources(strings.Split(printer.Log(), "\n"), "Received "), 8)
	checkSources(t, "the station's notifications", sources(trapd.All(), "NOTIFY "), 8)
}

// udpSource is the source address net-snmp prints for a datagram
// ("UDP: [127.0.0.6]:40123->[...]").
var udpSource = regexp.MustCompile(`UDP: \[([0-9.]+)\]:\d+->`)

// sources counts the source addresses of the lines that start with prefix.
func sources(lines []string, prefix string) map[string]int {
	out := map[string]int{}
	for _, l := range lines {
		if m := udpSource.FindStringSubmatch(l); m != nil && strings.HasPrefix(l, prefix) {
			out[m[1]]++
		}
	}
	return out
}

// checkSources is issue 13's defect 9 for tests and notifications: they left
// from whatever address the kernel picked (127.0.0.1 for every agent here),
// not from the agent's listen address. Every source must be one of the
// agents' addresses 127.0.0.1..n, and more than one of them must appear.
func checkSources(t *testing.T, what string, got map[string]int, n int) {
	t.Helper()
	for a := range got {
		var k int
		if _, err := fmt.Sscanf(a, "127.0.0.%d", &k); err != nil || k < 1 || k > n {
			t.Errorf("%s came from %s, not an agent's address: %v", what, a, got)
		}
	}
	if len(got) < 2 {
		t.Errorf("%s came from %v: want each agent's own address", what, got)
	}
	t.Logf("%s by source: %v", what, got)
}

// TestHiADSDClusterOfRealAgents is the same stop and restart with Hi-ADSD,
// whose bound is ceil(log2 N)^2 rounds.
func TestHiADSDClusterOfRealAgents(t *testing.T) {
	slot(t, false)
	port := netsnmptest.FreeUDPPort(t, "127.0.0.100")
	station := fmt.Sprintf("127.0.0.100:%d", port)
	trapd := netsnmptest.StartTrapd(t, station, nil, "-On")
	c := newCluster(t, clusterSpec{algo: "hiadsd", agents: 8, station: station, informs: true})
	c.startAll()
	bound := latencyBound("hiadsd", 8)
	c.waitFor("every agent holds every node fault-free", bound, func() bool { return c.allFaultFree(8) })

	c.stop(2, syscall.SIGTERM)
	took := c.waitFor("every agent holds node 3 partial", bound, func() bool { return c.everyoneSees(3, 2) })
	t.Logf("agent 3 stopped: diagnosed partial by all after %v (bound %v, %.1f rounds)",
		took.Round(time.Millisecond), bound, float64(took)/float64(roundTime()))
	if _, err := trapd.Wait(bound+partialHold+testGroupWindow(), 0, notificationAbout(3, 2)); err != nil {
		t.Fatalf("station got no inform that node 3 is partial: %v", err)
	}
	c.start(2)
	took = c.waitFor("every agent holds node 3 fault-free again", bound, func() bool { return c.everyoneSees(3, 0) })
	t.Logf("agent 3 restarted: fault-free everywhere after %v", took.Round(time.Millisecond))
}

// TestNMSidSetOnOneAgentReachesAll sets nmsID on one agent and checks that
// every agent adopts it and that later notifications go to the new station only.
func TestNMSidSetOnOneAgentReachesAll(t *testing.T) {
	slot(t, false)
	port := netsnmptest.FreeUDPPort(t, "127.0.0.100")
	oldStation := netsnmptest.StartTrapd(t, fmt.Sprintf("127.0.0.100:%d", port), nil, "-On")
	newStation := netsnmptest.StartTrapd(t, fmt.Sprintf("127.0.0.101:%d", port), nil, "-On")
	c := newCluster(t, clusterSpec{algo: "vcube", agents: 8, station: oldStation.Addr})
	c.startAll()
	bound := latencyBound("vcube", 8)
	c.waitFor("every agent holds every node fault-free", 2*bound, func() bool { return c.allFaultFree(8) })

	if out, err := c.snmp("snmpset", 2, ".1.3.6.1.4.1.200.1.3.0", "a", "127.0.0.101"); err != nil {
		t.Fatalf("snmpset nmsID: %v: %s", err, out)
	}
	took := c.waitFor("every agent holds nmsID 127.0.0.101", bound, func() bool {
		for _, k := range c.running() {
			out, err := c.snmp("snmpget", k, "-Oqv", ".1.3.6.1.4.1.200.1.3.0")
			if err != nil || strings.TrimSpace(out) != "127.0.0.101" {
				return false
			}
		}
		return true
	})
	t.Logf("nmsID set on agent 3 reached every agent after %v", took.Round(time.Millisecond))

	mark := oldStation.Mark()
	c.stop(5, syscall.SIGTERM)
	if _, err := newStation.Wait(bound+partialHold+testGroupWindow(), 0, notificationAbout(6, 2)); err != nil {
		t.Fatalf("new station got no notification that node 6 is partial: %v", err)
	}
	c.waitFor("every agent holds node 6 partial", bound, func() bool { return c.everyoneSees(6, 2) })
	for _, l := range oldStation.Notifications(mark) {
		if notificationAbout(6, 2)(l) {
			t.Fatalf("the old station still got a notification after the switch: %s", l)
		}
	}
}

// TestRestartKeepsEventTable kills an agent with SIGKILL and checks that its
// restarted self serves every event row it served before.
func TestRestartKeepsEventTable(t *testing.T) {
	slot(t, false)
	c := newCluster(t, clusterSpec{algo: "vcube", agents: 8, station: "127.0.0.100:162"})
	c.startAll()
	bound := latencyBound("vcube", 8)
	c.waitFor("every agent holds every node fault-free", 2*bound, func() bool { return c.allFaultFree(8) })
	c.stop(6, syscall.SIGTERM)
	c.waitFor("every agent holds node 7 partial", bound, func() bool { return c.everyoneSees(7, 2) })

	before, err := c.snmp("snmpwalk", 3, "-Oq", ".1.3.6.1.4.1.200.1.8")
	if err != nil || !strings.Contains(before, ".1.3.6.1.4.1.200.1.8.1.2.") {
		t.Fatalf("event table of agent 4: %v: %s", err, before)
	}
	c.stop(3, syscall.SIGKILL)
	c.start(3)
	after, err := c.snmp("snmpwalk", 3, "-Oq", ".1.3.6.1.4.1.200.1.8")
	if err != nil {
		t.Fatalf("event table after restart: %v: %s", err, after)
	}
	rows := strings.Split(strings.TrimSpace(before), "\n")
	for _, row := range rows {
		if !strings.Contains(after, row+"\n") && !strings.HasSuffix(after, row) {
			t.Fatalf("row %q lost across SIGKILL and restart; after:\n%s", row, after)
		}
	}
	t.Logf("all %d event-table values of agent 4 survived SIGKILL", len(rows))
}

// TestEngineBootsNeverRepeat is the start-up half of issue 13's defect 1: an
// agent killed before its first save came back with the same
// snmpEngineBoots, so a captured authenticated SNMPv3 request could be
// replayed. Boots are now on disk before the agent serves: three starts, each
// ended by SIGKILL before any interval ran, serve 1, 2 and 3.
func TestEngineBootsNeverRepeat(t *testing.T) {
	slot(t, false)
	dir := t.TempDir()
	port := freePortOnAll(t, 2)
	conf := filepath.Join(dir, "boots.yaml")
	yaml := fmt.Sprintf("interval: 1h\nsnmp: {listen: auto}\nnodes: [{address: 127.0.0.1, port: %d}, {address: 127.0.0.2, port: %d}]\nstate_dir: %s\n",
		port, port, filepath.Join(dir, "state"))
	if err := os.WriteFile(conf, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for want := 1; want <= 3; want++ {
		cmd := exec.Command(binPath(t), "-config", conf, "-id", "0")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var out string
		deadline := time.Now().Add(time.Minute) // the start, on a loaded machine
		for {
			get := exec.Command(netsnmptest.Binary(t, "snmpget"), "-v2c", "-c", "public", "-t", "0.3", "-r", "0", "-Oqv", addr, ".1.3.6.1.6.3.10.2.1.2.0")
			get.Env = netsnmptest.Env(dir)
			b, err := get.Output()
			if out = strings.TrimSpace(string(b)); err == nil || time.Now().After(deadline) {
				break
			}
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if out != strconv.Itoa(want) {
			t.Fatalf("start %d: snmpEngineBoots %q, want %d", want, out, want)
		}
	}
}
