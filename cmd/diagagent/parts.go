package main

import (
	"fmt"
	"net/netip"
	"os"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/agent/agentx"
	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/config"
	"github.com/diagagent/diagagent/agent/daemon"
	"github.com/diagagent/diagagent/agent/flap"
	"github.com/diagagent/diagagent/agent/keyring"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/agent/parts"
	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/agent/snmp"
	"github.com/diagagent/diagagent/agent/usm"
	"github.com/diagagent/diagagent/agent/web"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/internal/version"
	"github.com/diagagent/diagagent/traps"
)

// The file is translated here, at one edge, into each part's own
// configuration: every part is built from its Default, and only the keys
// the file sets for it change.

// members turns the file's node list into the node list's members.
func members(cfg config.Config) []nodelist.Member {
	out := make([]nodelist.Member, len(cfg.Nodes))
	for k, n := range cfg.Nodes {
		out[k] = nodelist.Member{Name: n.Name, Host: n.Host, Addr: n.Address, Port: uint16(n.Port),
			TestedOnly: n.TestedOnly, Community: n.Community, OID: n.OID}
	}
	return out
}

// nodelistConfig is how the node list follows host names (resolve_interval).
func nodelistConfig(cfg config.Config) nodelist.Config {
	c := nodelist.Default()
	c.ResolveInterval = cfg.ResolveInterval
	return c
}

// proberConfig is the test section, with this node's source address and the
// credentials it tests and pushes with: the keyring's users when there is
// a keyring, the primary's first.
func proberConfig(cfg config.Config, id int, ring *keyring.Ring) probe.Config {
	p := probe.Default()
	t := cfg.Test
	p.TimeoutMin, p.Timeout, p.Retries, p.PingTimeout, p.PingCount, p.Concurrency = t.TimeoutMin, t.Timeout, t.Retries, t.PingTimeout, t.PingCount, t.Concurrency
	p.Community, p.WriteCommunity = cfg.SNMP.Communities.Read, cfg.SNMP.Communities.Write
	p.Source = source(cfg, id)
	p.KeepFor = cfg.Interval * 3 / 2
	switch {
	case ring != nil:
		users := ring.Users()
		p.V3, p.Others = &users[0], users[1:]
	case t.V3User != "":
		u, _ := cfg.SNMP.User(t.V3User)
		v3 := usm.User(u.Credentials)
		p.V3 = &v3
	}
	return p
}

// loadKeyring reads the keyring the file names, nil without one.
func loadKeyring(cfg config.Config) (*keyring.Ring, error) {
	if cfg.Keyring == "" {
		return nil, nil
	}
	r, err := keyring.Load(cfg.Keyring)
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// daemonConfig is the diagnosis loop's part of the file: the node list,
// the algorithm and its plan, the interval, the station, what is notified,
// where the state lives and the keyring file's keys.
func daemonConfig(cfg config.Config, id int, p probe.Config, ring *keyring.Ring) (daemon.Config, error) {
	d := daemon.Default()
	d.Nodes, d.Self = members(cfg), id
	algo, err := hiadsd.ParseAlgorithm(cfg.Algorithm)
	if err != nil {
		return daemon.Config{}, fmt.Errorf("algorithm: %w", err)
	}
	d.Algorithm, d.Rotate, d.Interval = algo, cfg.Test.Plan == config.PlanRotate, cfg.Interval
	d.TestBudget = p.TestBudget()
	d.Station = cfg.Traps.NMS.Addr // a station given by name was resolved (config.Resolve)
	d.StartupGrace, d.Notify = cfg.Traps.StartupGrace, parts.Scope(cfg.Traps.Scope)
	d.RecoveryHold, d.PartialHold = cfg.Traps.RecoveryHold, cfg.Traps.PartialHold
	d.GroupWindow, d.Vantage = cfg.Traps.GroupWindow, cfg.Test.Vantage
	if d.GroupWindow < 0 {
		d.GroupWindow = d.Interval + d.TestBudget
	}
	f := cfg.Traps.Flapping
	d.Flapping = flap.Config{High: f.High, Low: f.Low, MinChanges: f.Changes}
	d.StateDir = cfg.StateDirFor(id)
	if ring != nil {
		d.Keys = ring.Keys
	}
	return d, nil
}

// responderConfig is the snmp section: who may ask what, the system
// strings and the engine; the keyring's users are the cluster's, with
// write access.
func responderConfig(cfg config.Config, id int, ring *keyring.Ring, engineID []byte, boots uint32, b *board.Board, log *logrus.Entry) snmp.Config {
	r := snmp.Default()
	r.Board = b
	c := cfg.SNMP.Communities
	if c.Read != "" {
		r.Communities = append(r.Communities, snmp.Community{Name: c.Read, Sources: cfg.SNMP.Allow.Read})
	}
	if c.Write != "" {
		r.Communities = append(r.Communities, snmp.Community{Name: c.Write, Write: true, Sources: cfg.SNMP.Allow.Write})
	}
	for _, u := range cfg.SNMP.Users {
		r.Users = append(r.Users, snmp.User{User: usm.User(u.Credentials), Write: u.Access == config.AccessWrite})
	}
	r.Users = append(r.Users, clusterUsers(ring)...)
	r.EngineID, r.EngineBoots = engineID, boots
	r.Workers = cfg.SNMP.MaxWorkers
	host, _ := os.Hostname()
	r.SysName = host
	if n := cfg.Nodes[id]; n.Name != "" {
		r.SysName = n.Name
	}
	r.SysDescr = sysDescr(version.Get(), cfg.Algorithm)
	r.SysContact, r.SysLocation = cfg.SNMP.Contact, cfg.SNMP.Location
	r.FaultInjection = cfg.FaultInjection
	r.Log = log
	return r
}

// clusterUsers are the users of the keys the agents run: agents, with write
// access; none without a keyring.
func clusterUsers(ring *keyring.Ring) []snmp.User {
	var out []snmp.User
	if ring != nil {
		for _, u := range ring.Users() {
			out = append(out, snmp.User{User: u, Write: true, Cluster: true})
		}
	}
	return out
}

// notifierConfig is the traps section; the stations are read from the
// board, as the daemon last published them, with the file's fall-backs.
func notifierConfig(cfg config.Config, id int, b *board.Board, start time.Time, log *logrus.Entry) traps.Config {
	t := traps.Default()
	t.Kind = parts.Kind(cfg.Traps.Kind)
	if t.Kind == traps.InformV3 {
		t.USM = usm.User(cfg.Traps.V3).USM()
	}
	t.Community = cfg.Traps.Community
	t.QueueSize = cfg.Traps.Queue
	t.Timeout = cfg.Traps.Timeout
	t.MaxAttempts = cfg.Traps.Retries + 1
	t.Stations = stations(cfg, b)
	if a := cfg.Nodes[id].Address; a.Is4() {
		t.AgentAddress = a.String() // an IPv6 node's v1 traps keep traps.Default's 0.0.0.0
	}
	t.Source = source(cfg, id)
	t.Uptime = func() uint32 { return uint32(time.Since(start) / (10 * time.Millisecond)) }
	t.Log = log
	return t
}

// stations reads the notification receivers from the board: nmsID on the
// port of traps.nms, then the file's fall-backs.
func stations(cfg config.Config, b *board.Board) func() []traps.Destination {
	port := uint16(traps.DefaultPort)
	if cfg.Traps.NMS.IsValid() && cfg.Traps.NMS.Port != 0 {
		port = cfg.Traps.NMS.Port
	}
	fallbacks := make([]string, len(cfg.Traps.Fallbacks))
	for k, f := range cfg.Traps.Fallbacks {
		fallbacks[k] = f.String()
	}
	return func() []traps.Destination {
		s := b.Load()
		return traps.Stations(s.Station.Addr, port, fallbacks, s.HoldsFaulty)
	}
}

// webConfig is what the page shows of this agent, the receivers of its
// notifications and what /metrics serves.
func webConfig(cfg config.Config, a *agent) web.Config {
	w := web.Default()
	w.Source, w.Metrics, w.Log = a.daemon, a.metrics, a.log
	w.Algorithm, w.Interval = cfg.Algorithm, cfg.Interval
	dests := stations(cfg, a.board)
	w.Stations = func() []web.Station {
		var out []web.Station
		for _, d := range dests() {
			out = append(out, web.Station{Address: d.Addr, Usable: d.Usable})
		}
		return out
	}
	return w
}

// subagentConfig is the AgentX session with the host's snmpd (snmp.mode
// agentx), registering the DIAGNOSIS-MIB.
func subagentConfig(cfg config.Config, root agentx.OID, log *logrus.Entry) agentx.Config {
	ax := agentx.Default()
	ax.Network, ax.Address, _ = cfg.SNMP.AgentXSocket()
	ax.Subtree, ax.ID = root, root
	ax.Descr = sysDescr(version.Get(), cfg.Algorithm)
	ax.Log = log
	return ax
}

// source is the address tests, fetches and notifications leave from: the
// listen address when it names one, so peers and the station see the agent
// at the address it serves; none (the kernel picks) for a wildcard.
func source(cfg config.Config, id int) netip.Addr {
	if a := cfg.SNMPListen(id).Addr(); a.IsValid() && !a.IsUnspecified() {
		return a
	}
	return netip.Addr{}
}
