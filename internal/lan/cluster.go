//go:build linux

package lan

import (
	"cmp"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/diagagent/diagagent/agent/config"
	"github.com/diagagent/diagagent/agent/keyring"
	"github.com/diagagent/diagagent/agent/parts"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/internal/netsnmptest"
)

// Spec is what a Cluster is made of and how its agents are tuned.
type Spec struct {
	Tag       string // short word in the namespace names ("ci", "exp")
	Bin       string // the diagagent binary
	Dir       string // working directory: configuration, logs, state
	Algorithm string // hiadsd, vcube, vring or bruteforce
	Agents    int    // hosts running diagagent
	Printer   bool   // add a host running snmpd, listed as tested-only
	// PrinterPorts are more UDP ports the printer's snmpd answers on, each
	// a device an operator may add to the list (none listed at start).
	PrinterPorts []int
	Interval     time.Duration
	Timeout      time.Duration // test.timeout
	Retries      int           // test.retries
	PingTimeout  time.Duration
	PingCount    int
	Plan         string // test.plan; "" leaves the default (rotate)
	// RecoveryHold is traps.recovery_hold; 0 leaves the default (10 s),
	// as make versus must.
	RecoveryHold time.Duration
	// AtOnce sets traps.group_window and traps.partial_hold to 0s: every
	// node's change is its own notification, sent at once, as the chaos
	// run's bookkeeping (one agent's "status change notified" line, one
	// notification at the station) assumes, and its short faults (an agent
	// killed and restarted within a second, partial) are notified too.
	AtOnce bool
	// Inform makes the agents send informs (acknowledged, retried for about
	// 90 s) instead of traps, as a station that must hear every event needs.
	Inform bool
	// Port is the agents' SNMP port (161 when 0) and TrapPort the station's
	// (162 when 0): clusters sharing one LAN (NewClusterOn) differ in both.
	Port, TrapPort int
	// IPv6 builds the LAN with IPv6 addresses only (BuildV6); the station is
	// then a fall-back, as nmsID cannot carry an IPv6 address.
	IPv6 bool
	// Keyring gives the agents a keyring file holding Key: they test, read
	// and push each other as its SNMPv3 user, while the communities stay
	// for the harness and the station.
	Keyring bool
	// Key is the cluster key Keyring writes; a zero Key draws one.
	Key keyring.Key
}

// withKey draws the cluster key of a Keyring spec that gives none.
func (s Spec) withKey() (Spec, error) {
	if s.Keyring && s.Key == (keyring.Key{}) {
		k, err := keyring.Generate()
		if err != nil {
			return s, err
		}
		s.Key = k
	}
	return s, nil
}

// port is the agents' SNMP port.
func (s Spec) port() int { return cmp.Or(s.Port, 161) }

// AgentAddr is agent k's SNMP address as net-snmp's tools take it:
// a.b.c.d:port, or udp6:[addr]:port on an IPv6 LAN.
func (c *Cluster) AgentAddr(k int) string {
	return netsnmptest.ToolAddr(netip.AddrPortFrom(c.Net.Addrs[k], uint16(c.port())).String())
}

// Cluster is a LAN with one diagagent per host, a printer and a station.
type Cluster struct {
	Spec
	Net     *Net
	Station *Station
	conf    string
	agents  []*Proc
	printer *Proc

	closeOnce sync.Once
	closeErr  error
	sharedNet bool // built by the caller (NewClusterOn), who closes it

	walkMu sync.Mutex
	walked time.Time // AllSee's last walk while the logs denied it

	*eventLog
}

// NewCluster builds the namespaces, starts the station and the printer and
// writes the shared configuration; StartAgent runs the agents. On error
// everything made so far is removed.
func NewCluster(s Spec) (*Cluster, error) {
	if s.Agents < 2 {
		return nil, fmt.Errorf("lan: %d agents: want at least 2", s.Agents)
	}
	if _, err := hiadsd.ParseAlgorithm(s.Algorithm); err != nil {
		return nil, fmt.Errorf("lan: %w", err)
	}
	s, err := s.withKey()
	if err != nil {
		return nil, err
	}
	hosts := s.Agents + 1 // the station
	if s.Printer {
		hosts++
	}
	build := Build
	if s.IPv6 {
		build = BuildV6
	}
	nw, err := build(s.Tag, hosts)
	if err != nil {
		return nil, err
	}
	c := &Cluster{Spec: s, Net: nw, agents: make([]*Proc, s.Agents), eventLog: newEventLog()}
	if err := c.setUp(); err != nil {
		return nil, errors.Join(err, c.Close())
	}
	return c, nil
}

// NewClusterOn is NewCluster on a LAN the caller built and closes: agents
// on hosts 0 to s.Agents-1, the printer after them, the station on the last
// host. Clusters sharing a LAN need their own Port, TrapPort and Dir.
func NewClusterOn(nw *Net, s Spec) (*Cluster, error) {
	need := s.Agents + 1
	if s.Printer {
		need++
	}
	if len(nw.Hosts) < need {
		return nil, fmt.Errorf("lan: %d hosts for %d agents: want %d", len(nw.Hosts), s.Agents, need)
	}
	s, err := s.withKey()
	if err != nil {
		return nil, err
	}
	c := &Cluster{Spec: s, Net: nw, agents: make([]*Proc, s.Agents), eventLog: newEventLog(), sharedNet: true}
	if err := c.setUp(); err != nil {
		return nil, errors.Join(err, c.Close())
	}
	return c, nil
}

// setUp starts the station and printer and writes the configuration.
func (c *Cluster) setUp() error {
	if strings.Contains(c.Dir, ",") { // net-snmp reads -c as a list: snmptrapd would read no configuration and drop every notification
		return fmt.Errorf("lan: directory %q holds a comma: snmptrapd's and snmpd's -c would split it", c.Dir)
	}
	st := c.Net.Hosts[len(c.Net.Hosts)-1]
	log, err := os.Create(filepath.Join(c.Dir, "snmptrapd.log"))
	if err != nil {
		return fmt.Errorf("lan: %w", err)
	}
	addr := netip.AddrPortFrom(c.Net.Addrs[len(c.Net.Addrs)-1], uint16(cmp.Or(c.TrapPort, 162)))
	c.Station, err = StartStation(st, addr.String(), c.Dir, log)
	if err != nil {
		return err
	}
	if c.Printer {
		if err := c.StartPrinter(); err != nil {
			return err
		}
	}
	return c.writeConfig()
}

// StationAddr is the station's address; it also runs the harness's snmpwalks.
func (c *Cluster) StationAddr() string { return c.Net.Addrs[len(c.Net.Addrs)-1].String() }

// Nodes is the number of NodeIDs in the configuration (agents and printer).
func (c *Cluster) Nodes() int {
	if c.Printer {
		return c.Agents + 1
	}
	return c.Agents
}

// PrinterNode is the printer's NodeID (1-based), 0 without a printer.
func (c *Cluster) PrinterNode() int {
	if !c.Printer {
		return 0
	}
	return c.Agents + 1
}

// writeConfig writes the one configuration file every agent reads.
func (c *Cluster) writeConfig() error {
	c.conf = filepath.Join(c.Dir, "diagagent.yaml")
	return c.WriteConfig(c.conf, ids(c.Agents), 0)
}

// WriteConfig writes a configuration file to path that lists the agents
// of hosts (0-based, in that order) and the printer, with the start-up
// grace given: a host that joins a running LAN starts from such a file.
func (c *Cluster) WriteConfig(path string, hosts []int, grace time.Duration) error {
	var b strings.Builder
	fmt.Fprintf(&b, "algorithm: %s\ninterval: %s\n", c.Algorithm, c.Interval)
	fmt.Fprintf(&b, "snmp:\n  listen: auto\n  communities: {read: public, write: private}\n")
	fmt.Fprintf(&b, "test:\n  timeout: %s\n  retries: %d\n  ping_timeout: %s\n  ping_count: %d\n",
		c.Timeout, c.Retries, c.PingTimeout, c.PingCount)
	if c.Plan != "" {
		fmt.Fprintf(&b, "  plan: %s\n", c.Plan)
	}
	b.WriteString("nodes:\n")
	for _, k := range hosts {
		fmt.Fprintf(&b, "  - {address: \"%s\", port: %d}\n", c.Net.Addrs[k], c.port())
	}
	if c.Printer {
		fmt.Fprintf(&b, "  - {address: \"%s\", port: 161, tested_only: true, community: printers, name: printer}\n",
			c.Net.Addrs[c.Agents])
	}
	kind := "kind: trap"
	if c.Inform {
		kind = "kind: inform, timeout: 1s, retries: 6"
	}
	// No start-up grace: the harness counts every notification of every
	// event an agent logs (chaos), and measures detection, not its filter.
	if c.RecoveryHold > 0 {
		kind += fmt.Sprintf(", recovery_hold: %s", c.RecoveryHold)
	}
	if c.AtOnce {
		kind += ", group_window: 0s, partial_hold: 0s"
	}
	if c.IPv6 {
		fmt.Fprintf(&b, "traps: {fallbacks: [\"%s\"], startup_grace: %s, %s}\n", c.Station.Addr, grace, kind)
	} else {
		fmt.Fprintf(&b, "traps: {nms: \"%s\", startup_grace: %s, %s}\n", c.Station.Addr, grace, kind)
	}
	level := cmp.Or(os.Getenv("LAN_LOG_LEVEL"), "info") // LAN_LOG_LEVEL=debug: every test in the agents' logs
	fmt.Fprintf(&b, "web: {listen: \"\"}\nstate_dir: %s\nfault_injection: true\nlog: {level: %s, format: json}\n",
		filepath.Join(c.Dir, "state{id}"), level)
	if c.Keyring {
		ring := filepath.Join(c.Dir, "keyring")
		if err := os.WriteFile(ring, []byte(c.Key.String()+"\n"), 0o600); err != nil {
			return fmt.Errorf("lan: write keyring: %w", err)
		}
		fmt.Fprintf(&b, "keyring: %s\n", ring)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		return fmt.Errorf("lan: write configuration: %w", err)
	}
	return nil
}

// RoundTime is the longest a testing round can last: the slowest jittered
// interval (interval + 10%; a rotating round is aligned, but an overrun
// waits for the next) plus the longest test of a silent peer. That test is
// two: the first, waiting at most test.timeout for each of the retries + 1
// requests with the ping beside them, and the re-test of its new verdict,
// two requests at test.timeout with the ping at once.
func (c *Cluster) RoundTime() time.Duration {
	budget := max(c.Timeout*time.Duration(c.Retries+1), c.PingTimeout) + max(2*c.Timeout, c.PingTimeout)
	return c.Interval*11/10 + budget
}

// RepairHeld is how long after a repair is known its notification leaves
// (traps.recovery_hold).
func (c *Cluster) RepairHeld() time.Duration {
	return cmp.Or(c.RecoveryHold, config.Default(parts.Defaults()).Traps.RecoveryHold)
}

// PartialHeld is how long after a partial verdict is known its notification
// leaves (traps.partial_hold: the shipped default, 0 with AtOnce).
func (c *Cluster) PartialHeld() time.Duration {
	if c.AtOnce {
		return 0
	}
	return config.Default(parts.Defaults()).Traps.PartialHold
}

// Bound is how long diagnosing one event may take by pull alone: the
// algorithm's bound in rounds plus the round in progress when the event
// happened. vCube's rotating plan (the default) pulls within 2·log2 N
// rounds instead of log2 N (hiadsd.PullBound).
func (c *Cluster) Bound() time.Duration {
	a, _ := hiadsd.ParseAlgorithm(c.Algorithm) // NewCluster checked it
	rounds := hiadsd.PullBound(a, c.Nodes(), cmp.Or(c.Plan, config.Default(parts.Defaults()).Test.Plan) == config.PlanRotate)
	return time.Duration(rounds+1) * c.RoundTime()
}

// Close stops every process the cluster started, by PID, and removes the
// namespaces. It may be called more than once, also from another goroutine
// (a signal handler); later calls return the first one's result.
func (c *Cluster) Close() error {
	c.closeOnce.Do(func() { c.closeErr = c.close() })
	return c.closeErr
}

// close does the work of Close once.
func (c *Cluster) close() error {
	errs := []error{stopAll(c.agents, 5*time.Second)}
	if c.printer != nil {
		errs = append(errs, c.printer.Stop(5*time.Second))
		c.printer = nil
	}
	if c.Station != nil {
		c.Station.Stop()
	}
	if !c.sharedNet {
		errs = append(errs, c.Net.Close())
	}
	return errors.Join(errs...)
}
