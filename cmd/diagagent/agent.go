package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"

	"github.com/diagagent/diagagent/agent/membership"
	"github.com/diagagent/diagagent/agent/metrics"
	"github.com/diagagent/diagagent/agent/state"
	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/agent/agentx"
	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/config"
	"github.com/diagagent/diagagent/agent/daemon"
	"github.com/diagagent/diagagent/agent/keyring"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/agent/snmp"
	"github.com/diagagent/diagagent/agent/web"
	"github.com/diagagent/diagagent/internal/version"
	"github.com/diagagent/diagagent/mib"
	"github.com/diagagent/diagagent/traps"
)

// shutdownGrace bounds how long queued informs may still be sent when the agent stops.
const shutdownGrace = 3 * time.Second

// agent is one diagnosis agent process: the parts, built in dependency
// order, each from its own configuration (parts.go translates the file). The
// board carries the daemon's view to the responder, the notifier and the
// page, so the daemon knows none of them; every part's collector goes into
// one registry, which the page serves.
type agent struct {
	board     *board.Board
	daemon    *daemon.Daemon
	responder *snmp.Responder
	notifier  *traps.Notifier
	metrics   *metrics.Registry
	web       *web.Server      // nil when web.listen is empty
	subagent  *agentx.Subagent // snmp.mode agentx: served through the host's snmpd, conn is nil
	conn      net.PacketConn
	webLn     net.Listener
	log       *logrus.Entry
}

// open builds the agent of node id from a validated configuration and binds
// its sockets; run starts it. ICMP is checked here so a missing capability
// is reported at start with its fix.
func open(cfg config.Config, id int, log *logrus.Entry) (*agent, error) {
	stateDir := cfg.StateDirFor(id)
	if err := state.PrepareDir(stateDir); err != nil {
		return nil, err
	}
	st, err := state.Load(stateDir, len(cfg.Nodes))
	if err != nil {
		return nil, err
	}
	st.EngineBoots = min(st.EngineBoots+1, snmp.LatchedBoots)
	if st.EngineID, err = engineID(cfg, st); err != nil {
		return nil, err
	}
	boots := keepBoots(stateDir, st, log)
	ring, err := loadKeyring(cfg)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	a := &agent{board: board.New(), log: log, metrics: registry()}
	pc := proberConfig(cfg, id, ring)
	prober, err := newProber(pc, log)
	if err != nil {
		return nil, err
	}
	if a.notifier, err = traps.New(notifierConfig(cfg, id, a.board, start, log)); err != nil {
		return nil, fmt.Errorf("traps: %w", err)
	}
	dc, err := daemonConfig(cfg, id, pc, ring)
	if err != nil {
		a.notifier.Close()
		return nil, err
	}
	a.daemon, err = daemon.New(daemon.Options{Config: dc, Prober: prober, Board: a.board,
		Notifier: a.notifier, State: st, Log: log, OnKeys: a.runKeys(prober), Lookup: lookupIP})
	if err != nil {
		a.notifier.Close()
		return nil, err
	}
	if r, ok := a.daemon.Ring(); ok { // the keys the agent runs: the file's, or those rotated since
		ring = &r
		prober.SetUsers(r.Users())
	}
	rc := responderConfig(cfg, id, ring, st.EngineID, boots, a.board, log)
	rc.OnSetNMS, rc.OnRowChange, rc.OnPush, rc.OnHello = a.daemon.SetNMS, rowChanger(a.daemon.Members()), a.daemon.Receive, a.daemon.Hello
	rc.OnVantage = a.daemon.OnVantage
	rc.OnClockSkew = a.daemon.Members().SetClockSkew
	rc.OnMaintenance, rc.OnRowCheck = a.daemon.SetMaintenance, rowChecker(a.daemon.Members())
	if ring != nil {
		rc.OnKeyChange = func(verb int, k [32]byte) error { return a.daemon.Members().ChangeKeys(verb, keyring.Key(k)) }
	}
	if cfg.Traps.AuthFailure {
		rc.OnAuthFailure = func(src netip.Addr) { _ = a.notifier.AuthenticationFailure(src) }
	}
	if a.responder, err = snmp.NewResponder(rc); err != nil {
		a.notifier.Close()
		return nil, fmt.Errorf("snmp: %w", err)
	}
	a.metrics.MustRegister(a.daemon, prober, a.responder, notifierMetrics(a.notifier.Stats))
	if cfg.SNMP.Mode == config.ModeAgentX {
		if a.subagent, err = newSubagent(cfg, a.responder, log); err != nil {
			a.notifier.Close()
			return nil, err
		}
		a.metrics.MustRegister(a.subagent)
	} else {
		listen := cfg.SNMPListen(id)
		if a.conn, err = net.ListenPacket("udp", listen.String()); err != nil {
			a.notifier.Close()
			return nil, bindError("snmp.listen", "udp", listen.String(), err)
		}
	}
	if err := a.openWeb(cfg, id); err != nil {
		if a.conn != nil {
			a.conn.Close()
		}
		a.notifier.Close()
		return nil, err
	}
	return a, nil
}

// runKeys is how a rotation of the cluster keys reaches the parts that
// speak with them: the prober sends with the new primary key (and tries the
// others), the responder accepts the new keys' users only.
func (a *agent) runKeys(prober *probe.Prober) func(keyring.Ring) {
	return func(r keyring.Ring) {
		prober.SetUsers(r.Users())
		if err := a.responder.SetClusterUsers(r.Users()); err != nil {
			a.log.WithError(err).Error("the responder cannot take the new cluster keys")
		}
	}
}

// registry is where every part's collector goes, with the build's own
// metric and the Go runtime's and the process's.
func registry() *metrics.Registry {
	reg := metrics.NewRegistry()
	b := version.Get()
	build := metrics.NewGaugeVec(metrics.GaugeOpts{Name: "diagagent_build_info",
		Help: "Always 1; its labels name the build running (version, VCS revision, Go version)."},
		[]string{"version", "revision", "goversion"})
	build.WithLabelValues(b.Version, b.Revision, b.GoVersion).Set(1)
	reg.MustRegister(build, metrics.NewGoCollector(), metrics.NewProcessCollector())
	return reg
}

// keepBoots saves st, whose snmpEngineBoots is one above any served before,
// and returns the boots to serve. snmpEngineBoots must never repeat (RFC
// 3414 2.2.2): when it cannot be kept (read-only directory, full disk) the
// agent still tests, diagnoses and serves v1/v2c, but serves boots latched at
// 2147483647, so every authenticated SNMPv3 request, a replayed one first,
// is refused with a notInTimeWindow report until a restart that can save.
func keepBoots(dir string, st state.State, log *logrus.Entry) uint32 {
	if err := state.Save(dir, st); err != nil {
		log.WithError(err).Errorf("state_dir: cannot keep snmpEngineBoots %d: latched at %d (RFC 3414 2.2.2), "+
			"authenticated SNMPv3 is refused until a restart with a writable state_dir", st.EngineBoots, snmp.LatchedBoots)
		return snmp.LatchedBoots
	}
	return st.EngineBoots
}

// engineID is snmpEngineID: the configured one, else the one the state kept,
// else a new random one (which the state then keeps).
func engineID(cfg config.Config, st state.State) ([]byte, error) {
	if id := cfg.SNMP.EngineIDBytes(); len(id) > 0 {
		return id, nil
	}
	if len(st.EngineID) > 0 {
		return st.EngineID, nil
	}
	id, err := snmp.NewEngineID()
	if err != nil {
		return nil, fmt.Errorf("snmp: %w", err)
	}
	return id, nil
}

// openWeb builds the HTTP server and binds web.listen, if it is set.
func (a *agent) openWeb(cfg config.Config, id int) error {
	addr, ok := cfg.WebListen(id)
	if !ok {
		return nil
	}
	srv, err := web.New(webConfig(cfg, a))
	if err != nil {
		return err
	}
	if a.webLn, err = net.Listen("tcp", addr.String()); err != nil {
		return bindError("web.listen", "tcp", addr.String(), err)
	}
	a.web = srv
	return nil
}

// Serving says where the agent answers SNMP: its UDP address, or the
// AgentX master it serves through.
func (a *agent) Serving(cfg config.Config) string {
	if a.subagent != nil {
		return "agentx " + cfg.SNMP.AgentX
	}
	return a.conn.LocalAddr().String()
}

// WebAddr is the TCP address of the page, nil when web.listen is empty.
func (a *agent) WebAddr() net.Addr {
	if a.webLn == nil {
		return nil
	}
	return a.webLn.Addr()
}

// run sends coldStart, serves SNMP and runs the diagnosis loop until ctx
// ends, then stops the responder, drains the notification queue for a moment and saves the state.
func (a *agent) run(ctx context.Context) error {
	if err := a.notifier.ColdStart(); err != nil {
		a.log.WithError(err).Warn("coldStart not sent")
	}
	served := make(chan error, 1)
	if a.subagent != nil {
		go func() { served <- a.subagent.Run(ctx) }()
	} else {
		go func() { served <- a.responder.Serve(a.conn) }()
	}
	webDone := make(chan error, 1)
	if a.web != nil {
		go func() { webDone <- a.web.Serve(ctx, a.webLn) }()
	} else {
		webDone <- nil
	}
	loopErr := a.daemon.Run(ctx)
	closeErr := a.responder.Close()
	serveErr := <-served
	webErr := <-webDone
	drain, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	trapErr := a.notifier.Shutdown(drain)
	return errors.Join(loopErr, closeErr, serveErr, webErr, trapErr)
}

// newProber builds the prober, falling back to unprivileged ICMP when no
// raw socket can be opened.
func newProber(p probe.Config, log *logrus.Entry) (*probe.Prober, error) {
	if err := probe.CheckICMP(); err != nil {
		if probe.CheckUnprivilegedICMP() != nil {
			return nil, fmt.Errorf("test: %w", err)
		}
		p.PingPrivileged = false
		log.WithError(err).Warn("no raw ICMP socket: pinging with unprivileged ICMP (net.ipv4.ping_group_range allows it)")
	}
	pr, err := probe.New(p, nil)
	if err != nil {
		return nil, fmt.Errorf("test: %w", err)
	}
	return pr, nil
}

// algorithmNames are the configured algorithms as the papers name them.
var algorithmNames = map[string]string{config.AlgorithmHiADSD: "Hi-ADSD", config.AlgorithmVCube: "vCube",
	config.AlgorithmVRing: "vRing", config.AlgorithmBruteForce: "brute force"}

// sysDescr names the build and the diagnosis algorithm actually running,
// as a manager's system walk shows it.
func sysDescr(v version.Info, algorithm string) string {
	return fmt.Sprintf("diagagent %s: distributed fault-management agent, %s diagnosis", v.Version, algorithmNames[algorithm])
}

// bindError says what to do about a socket the agent could not bind: a
// port below 1024 without privilege names the capability to grant, a port
// in use names what most likely holds it and the keys that move the agent.
func bindError(key, network, addr string, err error) error {
	switch {
	case errors.Is(err, syscall.EACCES):
		return fmt.Errorf("%s: cannot bind %s/%s: permission denied; a port below 1024 needs root or CAP_NET_BIND_SERVICE "+
			"(the package's unit grants it; by hand: setcap cap_net_bind_service,cap_net_raw+ep on the binary), or serve a port above 1023", key, network, addr)
	case errors.Is(err, syscall.EADDRINUSE) && key == "snmp.listen":
		return fmt.Errorf("%s: cannot bind %s/%s: already in use, most likely by the host's snmpd; serve through it "+
			"(snmp.mode: agentx, with master agentx in snmpd.conf) or serve another port (this node's port in nodes and snmp.listen: auto, such as 1161)", key, network, addr)
	case errors.Is(err, syscall.EADDRINUSE):
		return fmt.Errorf("%s: cannot bind %s/%s: already in use; choose another port or leave %s empty", key, network, addr, key)
	}
	return fmt.Errorf("%s: cannot bind %s/%s: %w", key, network, addr, err)
}

// newSubagent builds the AgentX session that serves the DIAGNOSIS-MIB through
// the host's snmpd (snmp.mode agentx).
func newSubagent(cfg config.Config, r *snmp.Responder, log *logrus.Entry) (*agentx.Subagent, error) {
	root, err := snmp.ParseOID(mib.DiagnosisMIB)
	if err != nil {
		return nil, err
	}
	ax := subagentConfig(cfg, agentx.OID(root), log)
	s, err := agentx.New(ax, r.AgentX(ax.Subtree))
	if err != nil {
		return nil, fmt.Errorf("snmp.agentx: %w", err)
	}
	return s, nil
}

// rowChanger hands a manager's diagTree row change to the node list's
// room, and maps its refusals to the SET's errors (rowRefusal).
func rowChanger(d *membership.Membership) func(snmp.RowChange) error {
	return func(ch snmp.RowChange) error {
		if ch.Destroy {
			return rowRefusal(d.RemoveNode(int(ch.ID) - 1))
		}
		return rowRefusal(d.AddNode(int(ch.ID)-1, ch.Member))
	}
}

// rowChecker asks the node list's room whether it would take a row change
// (an AgentX TestSet), with the errors rowChanger's would have.
func rowChecker(d *membership.Membership) func(snmp.RowChange) error {
	return func(ch snmp.RowChange) error {
		if ch.Destroy {
			return rowRefusal(d.CheckNode(int(ch.ID)-1, nil))
		}
		return rowRefusal(d.CheckNode(int(ch.ID)-1, &ch.Member))
	}
}

// rowRefusal maps the daemon's refusal of a row change to the SET's error:
// a row at another index than the next is noCreation; an address already
// listed, an index taken by a row created just before, a row that is not a
// member, this agent's own row, or a host name that does not resolve is
// inconsistentValue.
func rowRefusal(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, nodelist.ErrBadIndex):
		return fmt.Errorf("%w: %w", snmp.ErrRowNoCreation, err)
	case errors.Is(err, nodelist.ErrExists), errors.Is(err, nodelist.ErrTaken), errors.Is(err, nodelist.ErrNoMember), errors.Is(err, membership.ErrRemoveSelf),
		errors.Is(err, membership.ErrCannotResolve):
		return fmt.Errorf("%w: %w", snmp.ErrRowInconsistent, err)
	}
	return err
}
