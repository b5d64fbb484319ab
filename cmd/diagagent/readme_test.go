//go:build integration && linux

package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/diagagent/diagagent/internal/netsnmptest"
)

// readmeBlock returns the lines of the README's code block that follows the
// marker "<!-- readme-test: name -->", so the suite runs what the README says.
func readmeBlock(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "<!-- readme-test: "+name+" -->\n```\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatalf("README.md has no code block marked readme-test: %s", name)
	}
	return strings.Split(strings.TrimSpace(block), "\n")
}

// TestREADMEStation runs the README's station command as written, from the
// repository's root, on a test address instead of port 162: it accepts the
// agents' notifications (snmptrapd 5.9 drops them all without an access
// line) and prints them by name.
func TestREADMEStation(t *testing.T) {
	slot(t, false)
	lines := readmeBlock(t, "station")
	if len(lines) != 1 || !strings.HasSuffix(lines[0], " udp:0.0.0.0:162") {
		t.Fatalf("the station block is %q, want one snmptrapd command on udp:0.0.0.0:162", lines)
	}
	station := fmt.Sprintf("127.0.0.100:%d", netsnmptest.FreeUDPPort(t, "127.0.0.100"))
	args := strings.Fields(strings.TrimSuffix(lines[0], "udp:0.0.0.0:162") + "udp:" + station)
	dir := t.TempDir()
	cmd := exec.Command(netsnmptest.Binary(t, args[0]), args[1:]...)
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "SNMP_PERSISTENT_DIR="+filepath.Join(dir, "persist"))
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out, exited := &netsnmptest.Lines{}, make(chan struct{})
	go func() {
		for s := bufio.NewScanner(pipe); s.Scan(); {
			out.Add(s.Text())
		}
		close(exited)
	}()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited; cmd.Wait() })
	// Traps are not acknowledged: the station must listen before the agent's coldStart.
	if _, err := out.Wait(notifyWait, 0, exited, func(l string) bool { return strings.HasPrefix(l, "NET-SNMP version") }); err != nil {
		t.Fatalf("the README's station did not start: %v\n%s", err, strings.Join(out.All(), "\n"))
	}

	// No start-up grace: agent 2 never starts, and agent 1 says so at once.
	c := newCluster(t, clusterSpec{algo: "vcube", agents: 2, station: station, traps: "startup_grace: 0s"})
	c.start(0)
	for _, want := range []string{"SNMPv2-MIB::snmpTrapOID.0 = OID: SNMPv2-MIB::coldStart",
		"SNMPv2-MIB::snmpTrapOID.0 = OID: DIAGNOSIS-MIB::diagNodeStatusChange"} {
		if _, err := out.Wait(notifyWait+latencyBound("vcube", 2), 0, exited, func(l string) bool { return strings.Contains(l, want) }); err != nil {
			t.Errorf("the README's station never printed %q: %v\n%s", want, err, strings.Join(out.All(), "\n"))
		}
	}
	for _, l := range out.All() {
		if strings.Contains(l, "no access control information") {
			t.Errorf("the README's station refused a notification: %s", l)
		}
	}
}

// TestREADMESNMPConf puts the README's snmp.conf lines, with the
// repository's path for /opt/diagagent, where net-snmp reads its
// configuration, and runs the README's commands from another directory.
func TestREADMESNMPConf(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	lines := readmeBlock(t, "snmp.conf")
	conf := strings.ReplaceAll(strings.Join(lines, "\n"), "/opt/diagagent", repo) + "\n"
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "snmp.conf"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "MIBS=") && !strings.HasPrefix(e, "MIBDIRS=") {
			env = append(env, e)
		}
	}
	env = append(env, "SNMPCONFPATH="+dir, "SNMP_PERSISTENT_DIR="+filepath.Join(dir, "persist"))
	tr := exec.Command(netsnmptest.Binary(t, "snmptranslate"), "-Tp", "DIAGNOSIS-MIB::diagnosisMIB")
	tr.Dir, tr.Env = dir, env
	out, err := tr.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "+--diagnosisMIB(200)") || !strings.Contains(string(out), "nodeStatus(3)") {
		t.Fatalf("snmptranslate -Tp DIAGNOSIS-MIB::diagnosisMIB with the README's snmp.conf: %v\n%s", err, out)
	}

	c := newCluster(t, clusterSpec{algo: "vcube", agents: 2, station: "127.0.0.100:162"})
	c.start(0)
	walk := exec.Command(netsnmptest.Binary(t, "snmpwalk"), "-v2c", "-c", "public", c.addr(0), "diagnosisMIB")
	walk.Dir, walk.Env = dir, env
	if out, err := walk.CombinedOutput(); err != nil || !strings.Contains(string(out), "DIAGNOSIS-MIB::nodeStatus.1 = INTEGER: ") {
		t.Fatalf("snmpwalk … diagnosisMIB with the README's snmp.conf: %v\n%s", err, out)
	}
}
