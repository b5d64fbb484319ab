package probe

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/agent/usm"
)

// engine is a peer's SNMPv3 engine (RFC 3414 section 4) as an answer told
// it: its ID, boots and time, and when the answer came. Kept per peer, it
// spares every exchange after the first its discovery round trip.
type engine struct {
	id          string
	boots, time uint32
	at          time.Time
	// keys are the users' keys localized to this engine (usm.User.Localized),
	// by user: each client is given them, so gosnmp derives none. Never
	// written in place: a new user's keys go into a copy.
	keys map[usm.User]localKeys
}

// localKeys are one user's keys localized to one engine.
type localKeys struct{ auth, priv []byte }

// now is the engine's time at t, as the peer counts it.
func (e engine) now(t time.Time) uint32 { return e.time + uint32(max(t.Sub(e.at), 0)/time.Second) }

// heard keeps e, as an answer from t told it: the keys localized to t's
// engine stay while its ID does.
func (p *Prober) heard(t Target, e engine) {
	p.book.update(key(t), func(s *peerState) {
		if s.engine.id == e.id {
			e.keys = s.engine.keys
		}
		s.engine = e
	})
}

// keysFor returns u's keys localized to t's engine e, localizing them once
// (a few microseconds; gosnmp's own derivation costs 4 ms for each new
// engine with the cluster key) and keeping them with the engine. Keys are
// kept only for the users t may be spoken to as now, so a rotation's
// retired keys leave with it. Nil keys, on an error, let gosnmp derive them.
func (p *Prober) keysFor(t Target, e engine, u usm.User) (auth, priv []byte) {
	if k, ok := e.keys[u]; ok {
		return k.auth, k.priv
	}
	auth, priv, err := u.Localized(e.id)
	if err != nil {
		return nil, nil
	}
	p.book.update(key(t), func(s *peerState) {
		if s.engine.id != e.id {
			return
		}
		kept := make(map[usm.User]localKeys, len(s.engine.keys)+1)
		for _, v := range p.usersFor(t) {
			if k, ok := s.engine.keys[v]; ok {
				kept[v] = k
			}
		}
		kept[u] = localKeys{auth: auth, priv: priv}
		s.engine.keys = kept
	})
	return auth, priv
}

// KnowsEngine reports whether t is spoken to without a discovery round
// trip: its SNMPv3 engine is known, or it is spoken to in v2c.
func (p *Prober) KnowsEngine(t Target) bool {
	return len(p.usersFor(t)) == 0 || p.book.get(key(t)).engine.id != ""
}

// LearnEngine discovers t's SNMPv3 engine ahead of need, unless it is known
// already: a question (diagVantage) or a push to a peer this agent never
// tested then costs one request, as a test does. The discovery is RFC 3414's
// (section 4): one unauthenticated GET with no variable, which the peer
// answers with a report carrying its engine ID, boots and time; no user is
// named and no key is derived, so it costs the peer what any manager's
// discovery does.
func (p *Prober) LearnEngine(ctx context.Context, t Target) error {
	if p.KnowsEngine(t) {
		return nil
	}
	if err := acquire(ctx, p.slots); err != nil {
		return err
	}
	defer release(p.slots)
	a := p.firstTry(p.book.estimate(t))
	var err error
	for range a.retries + 1 {
		var e engine
		if e, err = p.discover(ctx, t, a.wait); err == nil {
			p.heard(t, e)
			return nil
		}
		if ctx.Err() != nil {
			break
		}
	}
	return err
}

// errNoReport is discover's error for an answer that is not a discovery's
// report.
var errNoReport = errors.New("probe: no engine discovery report")

// discover sends t one engine discovery and waits up to wait for its
// report.
func (p *Prober) discover(ctx context.Context, t Target, wait time.Duration) (engine, error) {
	port := t.Port
	if port == 0 {
		port = nodelist.DefaultPort
	}
	var d net.Dialer
	if sameFamily(p.cfg.Source, t.Addr) {
		d.LocalAddr = net.UDPAddrFromAddrPort(netip.AddrPortFrom(p.cfg.Source.Unmap(), 0))
	}
	conn, err := d.DialContext(ctx, "udp", netip.AddrPortFrom(t.Addr.Unmap(), port).String())
	if err != nil {
		return engine{}, err
	}
	defer conn.Close()
	defer context.AfterFunc(ctx, func() { conn.Close() })()
	id := rand.Uint32N(1 << 31)
	out := &gosnmp.SnmpPacket{Version: gosnmp.Version3, MsgFlags: gosnmp.Reportable | gosnmp.NoAuthNoPriv,
		SecurityModel: gosnmp.UserSecurityModel, SecurityParameters: &gosnmp.UsmSecurityParameters{},
		PDUType: gosnmp.GetRequest, MsgID: id, RequestID: id}
	b, err := out.MarshalMsg()
	if err != nil {
		return engine{}, err
	}
	if err := conn.SetDeadline(time.Now().Add(wait)); err != nil {
		return engine{}, err
	}
	if _, err := conn.Write(b); err != nil {
		return engine{}, err
	}
	buf := make([]byte, 1500)
	for {
		n, err := conn.Read(buf)
		if err != nil {
			return engine{}, err
		}
		e, ours, err := discoveryReport(buf[:n], id)
		if !ours {
			continue // not the answer to this discovery: wait on
		}
		if err != nil {
			return engine{}, fmt.Errorf("%w from %s", err, conn.RemoteAddr())
		}
		return e, nil
	}
}

// discoveryReport reads b as the answer to the discovery of message id:
// ours says it answers that message (else it is dropped, and the wait goes
// on), and then it is a report carrying an engine ID of 5 to 32 octets
// (RFC 3411), or an error.
func discoveryReport(b []byte, id uint32) (e engine, ours bool, err error) {
	// gosnmp decodes an unauthenticated message as a user's; the report
	// names none, and the name given here is only what gosnmp asks for.
	dec := &gosnmp.GoSNMP{Version: gosnmp.Version3, SecurityModel: gosnmp.UserSecurityModel, MsgFlags: gosnmp.NoAuthNoPriv,
		SecurityParameters: &gosnmp.UsmSecurityParameters{UserName: "discovery"}}
	in, err := dec.SnmpDecodePacket(b)
	if err != nil || in == nil || in.MsgID != id {
		return engine{}, false, nil
	}
	sp, ok := in.SecurityParameters.(*gosnmp.UsmSecurityParameters)
	if !ok || in.PDUType != gosnmp.Report || len(sp.AuthoritativeEngineID) < 5 || len(sp.AuthoritativeEngineID) > 32 {
		return engine{}, true, errNoReport
	}
	return engine{id: sp.AuthoritativeEngineID, boots: sp.AuthoritativeEngineBoots, time: sp.AuthoritativeEngineTime, at: time.Now()}, true, nil
}

// Learner is a prober that learns peers' SNMPv3 engines ahead of need
// (Prober.LearnEngine).
type Learner interface {
	KnowsEngine(t Target) bool
	LearnEngine(ctx context.Context, t Target) error
}

// engineGap spaces the discoveries of one LearnAhead pass: 64 peers take
// about 1.3 s, and agents that start together do not all speak at once.
const engineGap = 20 * time.Millisecond

// LearnAhead learns the engine of each of ts in turn, engineGap apart,
// while goOn says so and ctx lasts, handing each failure to failed.
func LearnAhead(ctx context.Context, l Learner, ts []Target, goOn func() bool, failed func(Target, error)) {
	for _, t := range ts {
		if !goOn() {
			return
		}
		if err := l.LearnEngine(ctx, t); err != nil {
			failed(t, err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(engineGap):
		}
	}
}
