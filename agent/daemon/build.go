package daemon

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/agent"
	"github.com/diagagent/diagagent/agent/config"
	"github.com/diagagent/diagagent/agent/web"
	"github.com/diagagent/diagagent/traps"
)

// shutdownGrace bounds how long queued informs may still be sent when the agent stops.
const shutdownGrace = 3 * time.Second

// Agent is a whole diagnosis agent: responder, prober, notifier and loop.
type Agent struct {
	Daemon    *Daemon
	Responder *agent.Responder
	Notifier  *traps.Notifier
	// Web serves the page, the JSON API and /metrics; nil when web.listen is empty.
	Web   *web.Server
	conn  net.PacketConn
	webLn net.Listener
	log   *logrus.Entry
}

// Open builds the agent of node id from a validated configuration and binds
// its SNMP socket; Run starts it. ICMP is checked here so a missing
// capability is reported at start with its fix.
func Open(cfg config.Config, id int, log *logrus.Entry) (*Agent, error) {
	st, err := LoadState(cfg.StateDirFor(id), len(cfg.Nodes))
	if err != nil {
		return nil, err
	}
	st.EngineBoots++
	pcfg, err := probeConfig(cfg, log)
	if err != nil {
		return nil, err
	}
	prober, err := agent.NewProber(pcfg, nil)
	if err != nil {
		return nil, fmt.Errorf("test: %w", err)
	}
	a := &Agent{log: log}
	metrics := web.NewMetrics()
	observe := func(i IntervalInfo) { metrics.ObserveInterval(i.Report, i.Probes, i.Took) }
	d, err := New(Options{Config: cfg, ID: id, Prober: prober, Publisher: publisherFunc(a.publish),
		State: st, Log: log, Observe: observe})
	if err != nil {
		return nil, err
	}
	a.Daemon = d
	if a.Responder, err = agent.NewResponder(responderConfig(cfg, id, st, d, log)); err != nil {
		return nil, fmt.Errorf("snmp: %w", err)
	}
	d.mu.Lock()
	d.st.EngineID = a.Responder.EngineID()
	d.mu.Unlock()
	if a.Notifier, err = newNotifier(cfg, d, log); err != nil {
		return nil, err
	}
	d.notify = a.Notifier
	listen := cfg.SNMPListen(id)
	if a.conn, err = net.ListenPacket("udp4", listen.String()); err != nil {
		a.Notifier.Close()
		return nil, fmt.Errorf("snmp.listen: cannot bind %s: %w", listen, err)
	}
	if err := a.openWeb(cfg, id, metrics); err != nil {
		a.conn.Close()
		a.Notifier.Close()
		return nil, err
	}
	return a, nil
}

// openWeb builds the HTTP server and binds web.listen, if it is set.
func (a *Agent) openWeb(cfg config.Config, id int, m *web.Metrics) error {
	addr, ok := cfg.WebListen(id)
	if !ok {
		return nil
	}
	srv, err := web.New(web.Options{Config: cfg, ID: id, Source: a.Daemon, Metrics: m,
		SNMPStats: a.Responder.Stats, TrapStats: a.Notifier.Stats, Log: a.log})
	if err != nil {
		return err
	}
	if a.webLn, err = net.Listen("tcp4", addr.String()); err != nil {
		return fmt.Errorf("web.listen: cannot bind %s: %w", addr, err)
	}
	a.Web = srv
	return nil
}

// publisherFunc adapts a function to Publisher.
type publisherFunc func(*agent.Snapshot) error

func (f publisherFunc) Publish(s *agent.Snapshot) error { return f(s) }

// publish forwards snapshots to the responder once it exists.
func (a *Agent) publish(s *agent.Snapshot) error {
	if a.Responder == nil {
		return nil
	}
	err := a.Responder.Publish(s)
	if a.Web != nil {
		a.Web.Changed()
	}
	return err
}

// Addr is the UDP address the responder serves.
func (a *Agent) Addr() net.Addr { return a.conn.LocalAddr() }

// WebAddr is the TCP address of the page, nil when web.listen is empty.
func (a *Agent) WebAddr() net.Addr {
	if a.webLn == nil {
		return nil
	}
	return a.webLn.Addr()
}

// Run serves SNMP and runs the diagnosis loop until ctx ends, then stops the
// responder, drains the notification queue for a moment and saves the state.
func (a *Agent) Run(ctx context.Context) error {
	served := make(chan error, 1)
	go func() { served <- a.Responder.Serve(a.conn) }()
	webDone := make(chan error, 1)
	if a.Web != nil {
		go func() { webDone <- a.Web.Serve(ctx, a.webLn) }()
	} else {
		webDone <- nil
	}
	loopErr := a.Daemon.Run(ctx)
	closeErr := a.Responder.Close()
	serveErr := <-served
	webErr := <-webDone
	drain, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	trapErr := a.Notifier.Shutdown(drain)
	return errors.Join(loopErr, closeErr, serveErr, webErr, trapErr)
}

// probeConfig turns the test section into the prober's configuration.
func probeConfig(cfg config.Config, log *logrus.Entry) (agent.ProbeConfig, error) {
	p := agent.DefaultProbeConfig()
	p.Timeout, p.Retries = cfg.Test.Timeout, cfg.Test.Retries
	p.PingTimeout, p.PingCount = cfg.Test.PingTimeout, cfg.Test.PingCount
	p.MaxConcurrent = cfg.Test.Concurrency
	p.Community = cfg.SNMP.Communities.Read
	if err := agent.CheckICMP(); err != nil {
		if agent.CheckUnprivilegedICMP() != nil {
			return p, fmt.Errorf("test: %w", err)
		}
		p.PingPrivileged = false
		log.WithError(err).Warn("no raw ICMP socket: pinging with unprivileged ICMP (net.ipv4.ping_group_range allows it)")
	}
	if cfg.Test.V3User != "" {
		u, _ := cfg.SNMP.User(cfg.Test.V3User)
		p.V3 = &agent.V3Credentials{User: u.Name, Auth: u.AuthProto(), AuthPass: u.AuthPassphrase,
			Priv: u.PrivProto(), PrivPass: u.PrivPassphrase}
	}
	return p, nil
}

// responderConfig turns the snmp section into the responder's configuration.
func responderConfig(cfg config.Config, id int, st State, d *Daemon, log *logrus.Entry) agent.Config {
	r := agent.Default()
	c := cfg.SNMP.Communities
	if c.Read != "" {
		r.Communities = append(r.Communities, agent.Community{Name: c.Read, Sources: cfg.SNMP.Allow.Read})
	}
	if c.Write != "" {
		r.Communities = append(r.Communities, agent.Community{Name: c.Write, Write: true, Sources: cfg.SNMP.Allow.Write})
	}
	for _, u := range cfg.SNMP.Users {
		r.Users = append(r.Users, agent.User{Name: u.Name, Auth: u.AuthProto(), AuthPass: u.AuthPassphrase,
			Priv: u.PrivProto(), PrivPass: u.PrivPassphrase, Write: u.Access == config.AccessWrite})
	}
	r.EngineID = cfg.SNMP.EngineIDBytes()
	if len(r.EngineID) == 0 {
		r.EngineID = st.EngineID
	}
	r.EngineBoots = st.EngineBoots
	r.Workers = cfg.SNMP.MaxWorkers
	host, _ := os.Hostname()
	r.SysName = host
	if n := cfg.Nodes[id]; n.Name != "" {
		r.SysName = n.Name
	}
	r.FaultInjection = cfg.FaultInjection
	r.OnSetNMS = d.SetNMS
	r.Log = log
	return r
}

// newNotifier builds the notifier the traps section asks for.
func newNotifier(cfg config.Config, d *Daemon, log *logrus.Entry) (*traps.Notifier, error) {
	t := traps.Default()
	switch cfg.Traps.Kind {
	case config.KindTrap:
		t.Kind = traps.TrapV2c
	case config.KindInform:
		t.Kind = traps.InformV2c
	case config.KindV3Inform:
		t.Kind = traps.InformV3
		v := cfg.Traps.V3
		t.User = traps.V3User{Name: v.Name, AuthProtocol: v.AuthProto(), AuthPassphrase: v.AuthPassphrase,
			PrivProtocol: v.PrivProto(), PrivPassphrase: v.PrivPassphrase}
	}
	t.Community = cfg.Traps.Community
	t.QueueSize = cfg.Traps.Queue
	t.Timeout = cfg.Traps.Timeout
	t.MaxAttempts = cfg.Traps.Retries + 1
	t.Stations = d.Stations
	t.AgentAddress = cfg.Nodes[d.id].Address.String()
	t.Uptime = func() uint32 { return uint32(d.now().Sub(d.start) / (10 * time.Millisecond)) }
	t.Log = log
	n, err := traps.New(t)
	if err != nil {
		return nil, fmt.Errorf("traps: %w", err)
	}
	return n, nil
}
