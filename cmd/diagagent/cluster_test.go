//go:build linux

package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/diagagent/diagagent/agent/keyring"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/internal/lan"
	"github.com/diagagent/diagagent/internal/netsnmptest"
)

// agentBin is the diagagent binary the tests that run agents build, once.
var agentBin lan.Agent

func TestMain(m *testing.M) {
	code := m.Run()
	agentBin.Remove()
	os.Exit(code)
}

// binPath returns the diagagent binary, built at its first call.
func binPath(t testing.TB) string {
	t.Helper()
	p, err := agentBin.Path()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Timing of the test clusters: short, but with a retry so one lost datagram
// does not make a node faulty.
const (
	testInterval = time.Second
	testTimeout  = 300 * time.Millisecond
	testRetries  = 1
	pingTimeout  = 500 * time.Millisecond
	// recoveryHold is traps.recovery_hold: a repair is notified this long
	// after it is known.
	recoveryHold = 2 * time.Second
	// partialHold is traps.partial_hold: a partial verdict is notified
	// this long after it is known.
	partialHold = time.Second
)

// cluster is a set of real diagagent processes on 127.0.0.1, 127.0.0.2, ...
// sharing one configuration file, plus the stations and printer a test adds.
type cluster struct {
	t       *testing.T
	dir     string
	conf    string
	port    int
	n       int // agents
	procs   []*exec.Cmd
	exited  []chan struct{}
	logs    []string
	algo    string
	printer string               // "address:port" of the tested-only node, "" if none
	webPort int                  // TCP port of every agent's page (web.listen auto:PORT), 0 if none
	masters []*netsnmptest.SNMPD // with clusterSpec.agentx: agent k's snmpd, at its address
	confOf  map[int]string       // a configuration of its own for agent k, instead of conf
	runWith map[int][]string     // the command that runs agent k, its arguments after it, instead of binPath (qemu-user, wine)
}

// clusterSpec is what a test asks of a cluster.
type clusterSpec struct {
	algo     string
	agents   int
	station  string // traps.nms
	printer  string // tested-only node address:port, community "printers"
	informs  bool
	stations []string
	web      bool   // serve the page on auto:PORT, a TCP port free on every address
	traps    string // more keys of the traps section, one "key: value" per line
	snmp     string // more keys of the snmp section, one "key: value" per line
	agentx   bool   // each agent serves through an snmpd of its own (master agentx) at its address
	keyring  bool   // a cluster key (keyring: keyring, beside the configuration)
}

// newCluster writes the shared configuration; start launches the agents.
func newCluster(t *testing.T, s clusterSpec) *cluster {
	t.Helper()
	c := &cluster{t: t, dir: t.TempDir(), n: s.agents, algo: s.algo, printer: s.printer}
	c.port = freePortOnAll(t, s.agents)
	var b strings.Builder
	fmt.Fprintf(&b, "algorithm: %s\ninterval: %s\n", s.algo, testInterval)
	fmt.Fprintf(&b, "snmp:\n  listen: auto\n  communities: {read: public, write: private}\n%s", indent(s.snmp))
	if s.agentx {
		b.WriteString("  mode: agentx\n")
	}
	fmt.Fprintf(&b, "test:\n  timeout: %s\n  retries: %d\n  ping_timeout: %s\n  ping_count: 1\n", testTimeout, testRetries, pingTimeout)
	fmt.Fprintf(&b, "nodes:\n")
	for k := 0; k < s.agents; k++ {
		fmt.Fprintf(&b, "  - {address: 127.0.0.%d, port: %d}\n", k+1, c.port)
	}
	if s.printer != "" {
		host, port, _ := net.SplitHostPort(s.printer)
		fmt.Fprintf(&b, "  - {address: %s, port: %s, tested_only: true, community: printers}\n", host, port)
	}
	kind := "trap"
	if s.informs {
		kind = "inform"
	}
	fmt.Fprintf(&b, "traps:\n  nms: %s\n  kind: %s\n  timeout: 500ms\n  retries: 2\n  recovery_hold: %s\n  partial_hold: %s\n", s.station, kind, recoveryHold, partialHold)
	if len(s.stations) > 0 {
		fmt.Fprintf(&b, "  fallbacks: [%s]\n", strings.Join(s.stations, ", "))
	}
	b.WriteString(indent(s.traps))
	webListen := ""
	if s.web {
		c.webPort = freeTCPPortOnAll(t, s.agents)
		webListen = fmt.Sprintf("auto:%d", c.webPort)
	}
	fmt.Fprintf(&b, "web:\n  listen: \"%s\"\nstate_dir: %s\nfault_injection: true\nlog: {level: info, format: text}\n",
		webListen, filepath.Join(c.dir, "state{id}"))
	if s.keyring {
		k, err := keyring.Generate()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(c.dir, "keyring"), []byte(k.String()+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		b.WriteString("keyring: keyring\n")
	}
	c.conf = filepath.Join(c.dir, "cluster.yaml")
	if err := os.WriteFile(c.conf, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if s.agentx {
		for k := 0; k < s.agents; k++ {
			c.masters = append(c.masters, netsnmptest.StartSNMPD(t, c.addr(k), "public", []string{
				"master agentx", "agentXSocket unix:" + c.agentxSocket(k), "agentXTimeout 1", "agentXRetries 0",
				"rocommunity public 127.0.0.0/8", "rwcommunity private 127.0.0.0/8"}))
		}
	}
	c.procs = make([]*exec.Cmd, s.agents)
	c.exited = make([]chan struct{}, s.agents)
	c.logs = make([]string, s.agents)
	t.Cleanup(c.stopAll)
	return c
}

// indent puts each line of keys in a section, two spaces in.
func indent(keys string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(keys), "\n") {
		if l != "" {
			b.WriteString("  " + l + "\n")
		}
	}
	return b.String()
}

// freePortOnAll finds a UDP port free on 127.0.0.1 .. 127.0.0.n.
func freePortOnAll(t *testing.T, n int) int {
	t.Helper()
	for try := 0; try < 20; try++ {
		p := netsnmptest.FreeUDPPort(t, "127.0.0.1")
		ok := true
		for k := 2; k <= n && ok; k++ {
			c, err := net.ListenPacket("udp4", fmt.Sprintf("127.0.0.%d:%d", k, p))
			if err != nil {
				ok = false
				continue
			}
			c.Close()
		}
		if ok {
			return p
		}
	}
	t.Fatal("no UDP port free on every test address")
	return 0
}

// freeTCPPortOnAll finds a TCP port free on 127.0.0.1 .. 127.0.0.n.
func freeTCPPortOnAll(t *testing.T, n int) int {
	t.Helper()
	for try := 0; try < 20; try++ {
		l, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if tcpFreeOn(port, n) && netsnmptest.Reserve("tcp", port) {
			return port
		}
	}
	t.Fatal("no TCP port free on every test address")
	return 0
}

// tcpFreeOn reports whether port can be bound on 127.0.0.1 .. 127.0.0.n.
func tcpFreeOn(port, n int) bool {
	for k := 1; k <= n; k++ {
		l, err := net.Listen("tcp4", fmt.Sprintf("127.0.0.%d:%d", k, port))
		if err != nil {
			return false
		}
		l.Close()
	}
	return true
}

// agentxSocket is where agent k's snmpd listens for its subagent.
func (c *cluster) agentxSocket(k int) string {
	return filepath.Join(c.dir, fmt.Sprintf("agentx%d.sock", k))
}

// addr is agent k's SNMP address (k is the 0-based id).
func (c *cluster) addr(k int) string { return fmt.Sprintf("127.0.0.%d:%d", k+1, c.port) }

// startAll launches every agent.
func (c *cluster) startAll() {
	for k := 0; k < c.n; k++ {
		c.start(k)
	}
}

// start launches agent k and waits until it answers SNMP.
func (c *cluster) start(k int) {
	c.t.Helper()
	c.logs[k] = filepath.Join(c.dir, fmt.Sprintf("agent%d.log", k))
	logf, err := os.OpenFile(c.logs[k], os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		c.t.Fatal(err)
	}
	defer logf.Close()
	conf := c.conf
	if own, ok := c.confOf[k]; ok {
		conf = own
	}
	args := []string{"-config", conf, "-id", strconv.Itoa(k)}
	if c.masters != nil {
		args = append(args, "-snmp.agentx", "unix:"+c.agentxSocket(k))
	}
	cmd := exec.Command(binPath(c.t), args...)
	if w, ok := c.runWith[k]; ok { // another build under its runtime (qemu-user, wine)
		cmd = exec.Command(w[0], append(w[1:len(w):len(w)], args...)...)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		c.t.Fatalf("start agent %d: %v", k, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	c.procs[k], c.exited[k] = cmd, done
	c.waitFor(fmt.Sprintf("agent %d answers", k), 10*time.Second, func() bool {
		_, err := c.statuses(k)
		return err == nil
	})
}

// stop sends sig to agent k and waits for it to exit.
func (c *cluster) stop(k int, sig syscall.Signal) {
	c.t.Helper()
	if c.procs[k] == nil {
		return
	}
	_ = c.procs[k].Process.Signal(sig)
	select {
	case <-c.exited[k]:
	case <-time.After(10 * time.Second):
		_ = c.procs[k].Process.Kill()
		<-c.exited[k]
		c.t.Errorf("agent %d did not stop on %v within 10 s", k, sig)
	}
	c.procs[k] = nil
}

// stopAll stops every agent still running; it is the cluster's cleanup.
func (c *cluster) stopAll() {
	for k := range c.procs {
		c.stop(k, syscall.SIGTERM)
	}
	if c.t.Failed() {
		for k := range c.logs {
			if b, err := os.ReadFile(c.logs[k]); err == nil {
				c.t.Logf("agent %d log:\n%s", k, b)
			}
		}
	}
}

// running lists the ids of the agents that run.
func (c *cluster) running() []int {
	var ids []int
	for k, p := range c.procs {
		if p != nil {
			ids = append(ids, k)
		}
	}
	return ids
}

// snmp runs a net-snmp tool against agent k's address and returns its output.
func (c *cluster) snmp(tool string, k int, args ...string) (string, error) {
	all := append([]string{"-v2c", "-c", "public", "-t", "0.5", "-r", "1", "-On", c.addr(k)}, args...)
	if tool == "snmpset" {
		all[2] = "private"
	}
	cmd := exec.Command(netsnmptest.Binary(c.t, tool), all...)
	cmd.Env = netsnmptest.Env(c.dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// statuses walks agent k's nodeStatus column with snmpwalk: NodeID -> status.
func (c *cluster) statuses(k int) (map[int]int, error) {
	out, err := c.snmp("snmpwalk", k, "-Oq", ".1.3.6.1.4.1.200.1.1.1.3")
	if err != nil {
		return nil, fmt.Errorf("snmpwalk %s: %w: %s", c.addr(k), err, out)
	}
	got := map[int]int{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(l)
		if len(f) != 2 || !strings.HasPrefix(f[0], ".1.3.6.1.4.1.200.1.1.1.3.") {
			return nil, fmt.Errorf("snmpwalk %s: unexpected line %q", c.addr(k), l)
		}
		id, err1 := strconv.Atoi(strings.TrimPrefix(f[0], ".1.3.6.1.4.1.200.1.1.1.3."))
		st, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("snmpwalk %s: unexpected line %q", c.addr(k), l)
		}
		got[id] = st
	}
	return got, nil
}

// everyoneSees reports whether every running agent other than those in skip
// holds NodeID node at status want.
func (c *cluster) everyoneSees(node, want int, skip ...int) bool {
	for _, k := range c.running() {
		if contains(skip, k) {
			continue
		}
		st, err := c.statuses(k)
		if err != nil || st[node] != want {
			return false
		}
	}
	return true
}

// allFaultFree reports whether every running agent holds every node fault-free.
func (c *cluster) allFaultFree(nodes int) bool {
	for _, k := range c.running() {
		st, err := c.statuses(k)
		if err != nil || len(st) != nodes {
			return false
		}
		for _, v := range st {
			if v != 0 {
				return false
			}
		}
	}
	return true
}

// waitFor polls cond until it holds or timeout passes, and returns how long it took.
func (c *cluster) waitFor(what string, timeout time.Duration, cond func() bool) time.Duration {
	c.t.Helper()
	return waitUntil(c.t, what, timeout, cond)
}

// waitUntil checks cond every 100 ms until it holds and returns how long
// that took, failing t after timeout.
func waitUntil(t *testing.T, what string, timeout time.Duration, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(timeout)
	for !cond() {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("%s: not within %v", what, timeout)
		}
	}
	return time.Since(start)
}

// testBudget is the longest one test of a silent peer takes: every SNMP try
// times out, then the ping.
func testBudget() time.Duration {
	return testTimeout*time.Duration(testRetries+1) + pingTimeout
}

// testGroupWindow is traps.group_window at its default: a change waits this
// long for others to join it before it is notified (docs/notifications.md).
func testGroupWindow() time.Duration { return testInterval + testBudget() }

// roundTime is the longest a testing round can last in these clusters: the
// slowest jittered interval (interval + 10%) plus one full test of a silent peer.
func roundTime() time.Duration { return testInterval*11/10 + testBudget() }

// latencyBound is how long diagnosing one event may take. For vCube it is
// the bound: log2 N testing intervals (jittered up to +10%) plus the
// test timeouts; for the others the algorithm's bound in rounds, each round an
// interval plus a test of the silent peer (Hi-ADSD meets it in most of its
// ceil(log2 N)^2 rounds). Both add the interval in progress when the event
// happened: the papers count from the next round.
func latencyBound(algo string, n int) time.Duration {
	a, _ := hiadsd.ParseAlgorithm(algo)
	rounds := time.Duration(hiadsd.LatencyBound(a, n))
	if a == hiadsd.VCube {
		return rounds*testInterval*11/10 + testBudget() + testInterval
	}
	return rounds*roundTime() + testInterval
}

// membershipBound is how long a change of the list made at one agent may
// take to reach every agent: hiadsd.MembershipBound rounds.
func membershipBound(algo string, n int) time.Duration {
	a, _ := hiadsd.ParseAlgorithm(algo)
	return time.Duration(hiadsd.MembershipBound(a, n))*roundTime() + testInterval
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}
