//go:build integration && linux

package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/diagagent/diagagent/internal/netsnmptest"
	"github.com/diagagent/diagagent/mib"
)

// usmStatsNotInTimeWindows0 is the BER of 1.3.6.1.6.3.15.1.1.2.0, the object
// a notInTimeWindow report carries.
var usmStatsNotInTimeWindows0 = []byte{0x06, 0x0a, 0x2b, 0x06, 0x01, 0x06, 0x03, 0x0f, 0x01, 0x01, 0x02, 0x00}

// TestCapturedSetNotReplayedAfterFailedSave is issue 13's defect 1 end to
// end: net-snmp's snmpset sends an authPriv SET of nmsID through a relay that
// keeps its datagrams; the station is then set to another value and the agent
// stopped; it is restarted with a state directory it cannot write, so the
// next snmpEngineBoots cannot be kept. The agent runs with boots latched at
// 2147483647, answers the captured datagram with a notInTimeWindow report,
// and nmsID keeps its value. Before, the agent refused to start (and before
// that it served the old boots and accepted the replay).
func TestCapturedSetNotReplayedAfterFailedSave(t *testing.T) {
	slot(t, false)
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	port := freePortOnAll(t, 2)
	conf := filepath.Join(dir, "replay.yaml")
	yaml := fmt.Sprintf(`interval: 1h
web: {listen: ""}
snmp:
  listen: auto
  communities: {read: public, write: private}
  users: [{name: admin, auth_protocol: sha256, auth_passphrase: auth-pass-1, priv_protocol: aes, priv_passphrase: priv-pass-1, access: write}]
nodes: [{address: 127.0.0.1, port: %d}, {address: 127.0.0.2, port: %d}]
state_dir: %s
`, port, port, state)
	if err := os.WriteFile(conf, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	agentAddr := fmt.Sprintf("127.0.0.1:%d", port)
	get := func(oid string) string {
		out, _ := snmpTool(t, dir, "snmpget", "-v2c", "-c", "public", "-t", "0.5", "-r", "0", "-Oqv", agentAddr, oid)
		return out
	}

	first := startAgent(t, conf, nil)
	waitValue(t, "snmpEngineBoots", func() string { return get(".1.3.6.1.6.3.10.2.1.2.0") }, "1")
	relay := netsnmptest.StartRelay(t, "127.0.0.1", agentAddr)
	out, err := snmpTool(t, dir, "snmpset", "-v3", "-l", "authPriv", "-u", "admin", "-a", "SHA-256", "-A", "auth-pass-1",
		"-x", "AES", "-X", "priv-pass-1", "-t", "3", "-r", "0", relay.Addr(), mib.NMSID0, "a", "127.0.0.77")
	if err != nil {
		t.Fatalf("snmpset through the relay: %v\n%s", err, out)
	}
	captured := relay.Sent()
	if len(captured) != 2 { // the engine discovery, then the SET
		t.Fatalf("relay saw %d datagrams from snmpset, want 2", len(captured))
	}
	set := captured[1]
	waitValue(t, "nmsID after the captured SET", func() string { return get(mib.NMSID0) }, "127.0.0.77")
	if out, err := snmpTool(t, dir, "snmpset", "-v2c", "-c", "private", "-t", "3", "-r", "0", agentAddr, mib.NMSID0, "a", "127.0.0.88"); err != nil {
		t.Fatalf("snmpset nmsID 127.0.0.88: %v\n%s", err, out)
	}
	first.stop(t)

	readOnly(t, state)
	second := startAgent(t, conf, readOnlyWrapper(state))
	waitValue(t, "snmpEngineBoots latched", func() string { return get(".1.3.6.1.6.3.10.2.1.2.0") }, "2147483647")
	reply := exchange(t, agentAddr, set)
	if len(reply) == 0 || !bytes.Contains(reply, usmStatsNotInTimeWindows0) {
		t.Fatalf("the replayed SET got %x, want a notInTimeWindow report", reply)
	}
	if got := get(mib.NMSID0); got != "127.0.0.88" {
		t.Fatalf("nmsID after the replay = %q, want 127.0.0.88 kept", got)
	}
	second.stop(t)
	if log := second.log.String(); strings.Count(log, "latched at 2147483647") != 1 {
		t.Fatalf("want one log line saying boots are latched; log:\n%s", log)
	}
}

// snmpTool runs a net-snmp client with numeric output and no MIB files.
func snmpTool(t *testing.T, dir, tool string, args ...string) (string, error) {
	cmd := exec.Command(netsnmptest.Binary(t, tool), append([]string{"-On", "-m", "", "-M", dir}, args...)...)
	cmd.Env = netsnmptest.Env(dir)
	b, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(b)), err
}

// waitValue polls read until it gives want, for at most 10 s.
func waitValue(t *testing.T, what string, read func() string, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	got := read()
	for got != want && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		got = read()
	}
	if got != want {
		t.Fatalf("%s: %q, want %q", what, got, want)
	}
}

// exchange sends one datagram to addr and returns the reply (nil after 3 s).
func exchange(t *testing.T, addr string, b []byte) []byte {
	t.Helper()
	c, err := net.Dial("udp4", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write(b); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(3 * time.Second))
	buf := make([]byte, 65535)
	n, err := c.Read(buf)
	if err != nil {
		return nil
	}
	return buf[:n]
}

// runningAgent is one diagagent process the test started, with its log.
type runningAgent struct {
	cmd *exec.Cmd
	log *bytes.Buffer
}

// startAgent starts node 0 of conf, wrapped by wrap (a command line the
// agent's is appended to) when it is given.
func startAgent(t *testing.T, conf string, wrap []string) *runningAgent {
	t.Helper()
	argv := append(append([]string(nil), wrap...), binPath(t), "-config", conf, "-id", "0")
	a := &runningAgent{cmd: exec.Command(argv[0], argv[1:]...), log: &bytes.Buffer{}}
	a.cmd.Stdout, a.cmd.Stderr = a.log, a.log
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if a.cmd.ProcessState == nil {
			_ = a.cmd.Process.Kill()
			_ = a.cmd.Wait()
		}
	})
	return a
}

// stop ends the agent with SIGTERM and waits for it.
func (a *runningAgent) stop(t *testing.T) {
	t.Helper()
	_ = a.cmd.Process.Signal(syscall.SIGTERM)
	if err := a.cmd.Wait(); err != nil {
		t.Fatalf("agent exited with %v; log:\n%s", err, a.log)
	}
}

// readOnly takes write permission away from dir; root ignores it, so root
// runs the agent under readOnlyWrapper instead.
func readOnly(t *testing.T, dir string) {
	t.Helper()
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(dir, 0o750) })
}

// readOnlyWrapper makes dir read-only for the agent as root: a private mount
// namespace with dir bind-mounted read-only over itself (the shell execs the
// agent, so its PID is the agent's).
func readOnlyWrapper(dir string) []string {
	if os.Geteuid() != 0 {
		return nil
	}
	return []string{"unshare", "-m", "sh", "-c", `mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"`, "sh", dir}
}
