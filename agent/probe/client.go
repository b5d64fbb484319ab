package probe

import (
	"context"
	"fmt"
	"net/netip"
	"strings"

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

// setSecurity picks v2c with a community or v3 with the configured user; a
// tested-only device runs no agent, so it is never spoken to as the user.
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
	g.SecurityParameters = v3.USM()
}

// sameOID compares two dotted OIDs, ignoring a leading dot.
func sameOID(a, b string) bool {
	return strings.TrimPrefix(a, ".") == strings.TrimPrefix(b, ".")
}
