package probe

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/agent/nodelist"
)

// client opens one connected UDP socket to t for one probe or fetch; the
// caller closes it. A target with its own community is spoken to in v2c.
func (p *Prober) client(ctx context.Context, t Target) (*gosnmp.GoSNMP, error) {
	if err := check(t); err != nil {
		return nil, err
	}
	port := t.Port
	if port == 0 {
		port = nodelist.DefaultPort
	}
	g := &gosnmp.GoSNMP{
		Target:         t.Addr.Unmap().String(),
		Port:           port,
		Transport:      "udp",
		Context:        ctx,
		Timeout:        p.cfg.Timeout,
		Retries:        p.cfg.Retries,
		MaxOids:        gosnmp.MaxOids,
		MaxRepetitions: uint32(p.cfg.MaxRepetitions),
	}
	if sameFamily(p.cfg.Source, t.Addr) {
		g.LocalAddr = netip.AddrPortFrom(p.cfg.Source.Unmap(), 0).String()
	}
	p.setSecurity(g, t)
	if err := g.Connect(); err != nil {
		return nil, fmt.Errorf("snmp socket to %s: %w", netip.AddrPortFrom(t.Addr, port), err)
	}
	return g, nil
}

// engine is a peer's SNMPv3 engine (RFC 3414 section 4) as an answer told
// it: its ID, boots and time, and when the answer came. Kept per peer, it
// spares every exchange after the first its discovery round trip.
type engine struct {
	id          string
	boots, time uint32
	at          time.Time
}

// now is the engine's time at t, as the peer counts it.
func (e engine) now(t time.Time) uint32 { return e.time + uint32(max(t.Sub(e.at), 0)/time.Second) }

// close keeps the SNMPv3 engine the exchange with t last heard of and
// closes the socket. gosnmp stores the engine of every answer, reports
// included, so a peer that restarted (new boots) or was reinstalled (new
// engine ID) is learned again by the exchange that met it.
func (p *Prober) close(g *gosnmp.GoSNMP, t Target) {
	if sp, ok := g.SecurityParameters.(*gosnmp.UsmSecurityParameters); ok && g.Version == gosnmp.Version3 && sp.AuthoritativeEngineID != "" {
		e := engine{id: sp.AuthoritativeEngineID, boots: sp.AuthoritativeEngineBoots, time: sp.AuthoritativeEngineTime, at: time.Now()}
		p.book.update(key(t), func(s *peerState) { s.engine = e })
	}
	g.Conn.Close()
}

// setSecurity picks v2c with a community or v3 with the configured user; a
// tested-only device runs no agent, so it is never spoken to as the user.
// A peer whose engine is known is spoken to without a discovery.
func (p *Prober) setSecurity(g *gosnmp.GoSNMP, t Target) {
	v3 := p.cfg.V3
	if t.Community != "" || t.TestedOnly || v3 == nil {
		g.Version = gosnmp.Version2c
		g.Community = t.Community
		if g.Community == "" {
			g.Community = p.cfg.Community
		}
		return
	}
	g.Version = gosnmp.Version3
	g.SecurityModel = gosnmp.UserSecurityModel
	g.MsgFlags = gosnmp.NoAuthNoPriv
	if v3.AuthProto() != gosnmp.NoAuth {
		g.MsgFlags = v3.MsgFlags()
	}
	sp := v3.USM()
	if e := p.book.get(key(t)).engine; e.id != "" {
		sp.AuthoritativeEngineID, sp.AuthoritativeEngineBoots, sp.AuthoritativeEngineTime = e.id, e.boots, e.now(time.Now())
	}
	g.SecurityParameters = sp
}

// sameOID compares two dotted OIDs, ignoring a leading dot.
func sameOID(a, b string) bool {
	return strings.TrimPrefix(a, ".") == strings.TrimPrefix(b, ".")
}
