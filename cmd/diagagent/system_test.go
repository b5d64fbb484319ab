//go:build integration && linux

package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/diagagent/diagagent/internal/netsnmptest"
)

// notifyWait bounds the wait for a notification that is sent at once.
const notifyWait = 10 * time.Second

// TestWhatAnSNMPAgentSays is what a net-snmp user takes for granted of any
// agent: a coldStart when it starts, an authenticationFailure for a wrong
// community when traps.auth_failure asks for it (as snmpd's
// authtrapenable), and a system group that names the build, the algorithm
// running, the contact and the location from the configuration.
func TestWhatAnSNMPAgentSays(t *testing.T) {
	slot(t, false)
	port := netsnmptest.FreeUDPPort(t, "127.0.0.100")
	station := fmt.Sprintf("127.0.0.100:%d", port)
	trapd := netsnmptest.StartTrapd(t, station, nil, "-On")
	c := newCluster(t, clusterSpec{algo: "vcube", agents: 2, station: station, traps: "auth_failure: true",
		snmp: "sys_contact: \"noc@example.net, ext 4711\"\nsys_location: \"Building 2, room 101\""})
	c.start(0)
	isCold := func(l string) bool {
		return strings.HasPrefix(l, "NOTIFY ") && strings.Contains(l, ".1.3.6.1.6.3.1.1.4.1.0 = OID: .1.3.6.1.6.3.1.1.5.1")
	}
	if _, err := trapd.Wait(notifyWait, 0, isCold); err != nil {
		t.Fatalf("the station got no coldStart: %v", err)
	}
	want := map[string]string{
		".1.3.6.1.2.1.1.1.0":   fmt.Sprintf("diagagent %s: distributed fault-management agent, vCube diagnosis", agentVersion(t)),
		".1.3.6.1.2.1.1.4.0":   "noc@example.net, ext 4711",
		".1.3.6.1.2.1.1.6.0":   "Building 2, room 101",
		".1.3.6.1.2.1.11.30.0": "1",
	}
	for oid, w := range want {
		out, err := c.snmp("snmpget", 0, "-Oqv", oid)
		if got := strings.Trim(strings.TrimSpace(out), `"`); err != nil || got != w {
			t.Errorf("%s = %q (%v), want %q", oid, got, err, w)
		}
	}
	from := len(trapd.All())
	cmd := exec.Command(netsnmptest.Binary(t, "snmpget"), "-v2c", "-c", "not-the-community", "-t", "0.5", "-r", "0", c.addr(0), ".1.3.6.1.2.1.1.5.0")
	cmd.Env = netsnmptest.Env(c.dir)
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("a wrong community was answered:\n%s", out)
	}
	isAuth := func(l string) bool {
		return strings.HasPrefix(l, "NOTIFY ") && strings.Contains(l, ".1.3.6.1.6.3.1.1.4.1.0 = OID: .1.3.6.1.6.3.1.1.5.5")
	}
	if _, err := trapd.Wait(notifyWait, from, isAuth); err != nil {
		t.Fatalf("the station got no authenticationFailure: %v", err)
	}
}

// TestPortTakenSaysWhatToDo: an agent whose SNMP port is held (here by a
// socket of the test, on a workstation by snmpd) exits with one line that
// names the key, the port and the way out.
func TestPortTakenSaysWhatToDo(t *testing.T) {
	held, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	port := held.LocalAddr().(*net.UDPAddr).Port
	dir := t.TempDir()
	conf := filepath.Join(dir, "d.yaml")
	yaml := fmt.Sprintf("id: 0\nsnmp: {listen: auto}\nnodes: [{address: 127.0.0.1, port: %d}, {address: 127.0.0.2, port: %d}]\n"+
		"web: {listen: \"\"}\nstate_dir: %s\n", port, port, filepath.Join(dir, "state"))
	if err := os.WriteFile(conf, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	if code := run([]string{"-config", conf}, nil, io.Discard, &stderr); code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, stderr.String())
	}
	msg := stderr.String()
	if !strings.Contains(msg, fmt.Sprintf("snmp.listen: cannot bind udp/127.0.0.1:%d: already in use, most likely by the host's snmpd", port)) ||
		strings.Count(msg, "\n") != 1 {
		t.Errorf("the agent said %q", msg)
	}
}

// TestHangupDoesNotStopTheAgent: SIGHUP (systemctl reload, a closed
// terminal) ended the agent without a word; now it reloads the node list
// (here unchanged, as it says) and the agent goes on answering.
func TestHangupDoesNotStopTheAgent(t *testing.T) {
	slot(t, false)
	c := newCluster(t, clusterSpec{algo: "vcube", agents: 2, station: "127.0.0.100:162"})
	c.start(0)
	if err := c.procs[0].Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	c.waitFor("the agent logs the SIGHUP", notifyWait, func() bool {
		b, _ := os.ReadFile(c.logs[0])
		return strings.Contains(string(b), "SIGHUP: the node list and the keys are unchanged")
	})
	select {
	case <-c.exited[0]:
		t.Fatal("the agent exited on SIGHUP")
	default:
	}
	if _, err := c.statuses(0); err != nil {
		t.Errorf("after SIGHUP the agent does not answer: %v", err)
	}
}

// TestAgentsStartedApartStayQuiet is issue 15's start-up case: eight agents
// started 1 s apart test each other before the later ones listen, and
// without the start-up grace each such first verdict, and its retraction,
// reached the station. Now the station hears only their coldStarts; a real
// fault after start-up is still notified.
func TestAgentsStartedApartStayQuiet(t *testing.T) {
	slot(t, false)
	port := netsnmptest.FreeUDPPort(t, "127.0.0.100")
	station := fmt.Sprintf("127.0.0.100:%d", port)
	trapd := netsnmptest.StartTrapd(t, station, nil, "-On")
	c := newCluster(t, clusterSpec{algo: "vcube", agents: 8, station: station})
	for k := range 8 {
		began := time.Now()
		c.start(k)
		time.Sleep(time.Second - time.Since(began))
	}
	c.waitFor("every agent holds every node fault-free", 2*latencyBound("vcube", 8), func() bool { return c.allFaultFree(8) })
	isStatus := func(l string) bool { return strings.Contains(l, ".1.3.6.1.4.1.200.2.0.1") }
	for _, l := range trapd.All() {
		if isStatus(l) {
			t.Errorf("a notification about an agent that was only starting: %s", l)
		}
	}
	c.stop(3, syscall.SIGTERM) // a real fault: agent 4 was seen up by all
	if _, err := trapd.Wait(latencyBound("vcube", 8)+partialHold+testGroupWindow(), 0, notificationAbout(4, 2)); err != nil {
		t.Fatalf("no notification of a real fault after start-up: %v", err)
	}
}

// TestAgentsWithDifferentLists is issue 17's silent case: an agent whose
// list had one more node held a node fault-free while the others said
// faulty. Now each agent serves its list's fingerprint, and a peer that
// runs another list is logged once, counted on /metrics and not used as a
// source; the station gets one diagNodeListMismatch, at the end of the
// start-up grace (2 s here), since the conflict outlives it.
func TestAgentsWithDifferentLists(t *testing.T) {
	slot(t, false)
	dir := t.TempDir()
	port := netsnmptest.FreeUDPPort(t, "127.0.0.1")
	web := netsnmptest.FreeTCPPort(t, "127.0.0.1")
	tp := netsnmptest.FreeUDPPort(t, "127.0.0.100")
	trapd := netsnmptest.StartTrapd(t, fmt.Sprintf("127.0.0.100:%d", tp), nil, "-On")
	write := func(name string, extra string) string {
		yaml := fmt.Sprintf("algorithm: vcube\ninterval: %s\nsnmp: {listen: auto}\n"+
			"test: {timeout: %s, retries: %d, ping_timeout: %s, ping_count: 1}\n"+
			"nodes: [{address: 127.0.0.1, port: %d}, {address: 127.0.0.2, port: %d}%s]\n"+
			"traps: {nms: '127.0.0.100:%d', startup_grace: 2s, partial_hold: 1s}\nweb: {listen: ''}\nstate_dir: %s\n", testInterval, testTimeout, testRetries, pingTimeout,
			port, port, extra, tp, filepath.Join(dir, name+"{id}"))
		path := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	ours := write("ours", "")
	theirs := write("theirs", fmt.Sprintf(", {address: 127.0.0.3, port: %d}", port)) // one node more
	logf := filepath.Join(dir, "agent1.log")
	out, err := os.Create(logf)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	for k, conf := range []string{ours, theirs} {
		cmd := exec.Command(binPath(t), "-config", conf, "-id", fmt.Sprint(k))
		if k == 0 {
			cmd.Args = append(cmd.Args, "-web.listen", fmt.Sprintf("127.0.0.1:%d", web))
			cmd.Stdout, cmd.Stderr = out, out
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() })
	}
	waitUntil(t, "agent 1 logs that agent 2 runs another list", 2*latencyBound("vcube", 3), func() bool {
		b, _ := os.ReadFile(logf)
		return strings.Contains(string(b), "peer runs a node list of another file")
	})
	page := fmt.Sprintf("http://127.0.0.1:%d/", web)
	var fams map[string]*dto.MetricFamily
	waitUntil(t, "agent 1 has run five more intervals", 10*latencyBound("vcube", 3), func() bool {
		fams = scrapeAgent(t, page)
		return sample(fams, "diagagent_intervals_total") >= 6
	})
	if v := sample(fams, "diagagent_node_lists_differing"); v != 1 {
		t.Errorf("diagagent_node_lists_differing = %v, want 1", v)
	}
	b, _ := os.ReadFile(logf)
	if n := strings.Count(string(b), "peer runs a node list of another file"); n != 1 {
		t.Errorf("the mismatch was logged %d times, want once", n)
	}
	isMismatch := func(l string) bool {
		return strings.Contains(l, "OID: .1.3.6.1.4.1.200.2.0.3") && strings.Contains(l, "UDP: [127.0.0.1]")
	}
	if _, err := trapd.Wait(notifyWait, 0, isMismatch); err != nil {
		t.Fatalf("the station got no diagNodeListMismatch from agent 1: %v", err)
	}
	n := 0
	for _, l := range trapd.All() {
		if isMismatch(l) {
			n++
		}
	}
	if n != 1 {
		t.Errorf("agent 1 sent %d diagNodeListMismatch notifications, want one", n)
	}
}

// agentVersion is the version the agent binary under test says it is
// (diagagent -version): the test binary's own may differ, since go test
// stamps no commit where go build does.
func agentVersion(t *testing.T) string {
	t.Helper()
	out, err := exec.Command(binPath(t), "-version").Output()
	if err != nil {
		t.Fatalf("diagagent -version: %v", err)
	}
	v, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "diagagent ")
	if !ok {
		t.Fatalf("diagagent -version said %q", out)
	}
	v, _, _ = strings.Cut(v, " (")
	return v
}
