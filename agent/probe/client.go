package probe

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/agent/usm"
)

// client opens one connected UDP socket to t for one probe or fetch, as
// SNMPv3 user u (ignored for v2c); the caller closes it. A target with its
// own community is spoken to in v2c.
func (p *Prober) client(ctx context.Context, t Target, u *usm.User) (*gosnmp.GoSNMP, error) {
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
	p.setSecurity(g, t, u)
	if err := g.Connect(); err != nil {
		return nil, fmt.Errorf("snmp socket to %s: %w", netip.AddrPortFrom(t.Addr, port), err)
	}
	g.Conn = &socket{Conn: g.Conn, opened: time.Now()}
	return g, nil
}

// open opens a client to t and makes its first exchange (first) on it. A
// peer that refuses the SNMPv3 user as unknown or with a wrong digest holds
// another cluster key: a rotation has not reached it yet, or reached it
// first. It is then spoken to as each other user in turn, each on a socket
// of its own, and the user it accepts is remembered for the next exchange.
// On success the caller closes the client (close); on an error it is
// closed already.
func (p *Prober) open(ctx context.Context, t Target, first func(g *gosnmp.GoSNMP) error) (*gosnmp.GoSNMP, error) {
	users := p.usersFor(t)
	at := 0
	if len(users) > 0 {
		at = slices.IndexFunc(users, func(u usm.User) bool { return u.Name == p.book.get(key(t)).user })
		at = max(at, 0)
	}
	rediscovered := false
	for tried := 0; ; tried++ {
		var u *usm.User
		if len(users) > 0 {
			u = &users[(at+tried)%len(users)]
		}
		g := p.idle.take(key(t), time.Now(), p.cfg.KeepFor)
		switch {
		case g != nil && p.fits(g, t, u):
			g.Context, g.Timeout, g.Retries, g.OnRetry = ctx, p.cfg.Timeout, p.cfg.Retries, nil
		case g != nil:
			g.Conn.Close()
			g = nil
		}
		if g == nil {
			var err error
			if g, err = p.client(ctx, t, u); err != nil {
				return nil, err
			}
		}
		known := p.book.get(key(t)).engine.id != ""
		err := first(g)
		if err == nil {
			if u != nil && tried > 0 {
				p.book.update(key(t), func(s *peerState) { s.user = u.Name })
			}
			return g, nil
		}
		p.close(g, t)
		if known && !rediscovered && err != nil && strings.Contains(err.Error(), errNotAuthentic) {
			// A peer reinstalled (its state_dir new) has a new engine ID:
			// it reports the old one unknown, unauthenticated as RFC 3414
			// says, and gosnmp, which authenticates every answer once it
			// knows an engine, discards the report. Forget the engine and
			// discover it again, as the same user.
			p.book.update(key(t), func(s *peerState) { s.engine = engine{} })
			p.met.rediscoveries.Inc()
			rediscovered, tried = true, tried-1
			continue
		}
		if !KeyRefused(err) || tried+1 >= len(users) {
			return nil, err
		}
		p.met.keyFallbacks.Inc()
	}
}

// KeyRefused reports whether err is a peer's refusal of the SNMPv3 user
// spoken as: an unknown user name or a wrong digest, which between agents
// means the peer holds none of the keys tried. gosnmp returns the report's
// own error while the peer's engine is being discovered; once the engine
// is known it authenticates the report, which the peer could not sign
// with a key it lacks, and returns errNotAuthentic's text.
func KeyRefused(err error) bool {
	return errors.Is(err, gosnmp.ErrUnknownUsername) || errors.Is(err, gosnmp.ErrWrongDigest) ||
		err != nil && strings.Contains(err.Error(), errNotAuthentic)
}

// errNotAuthentic is gosnmp's error (v1.47, GoSNMP.testAuthentication) for
// an answer that fails authentication, which it exports no value for.
const errNotAuthentic = "incoming packet is not authentic"

// usersFor returns the SNMPv3 users t may be spoken to as, none when it is
// spoken to in v2c (its own community, a tested-only device, no user).
func (p *Prober) usersFor(t Target) []usm.User {
	users := p.users.Load()
	if t.Community != "" || t.TestedOnly || users == nil {
		return nil
	}
	return *users
}

// close keeps the SNMPv3 engine the exchange with t last heard of and
// closes the socket. gosnmp stores the engine of every answer, reports
// included, so a peer that restarted (new boots) or was reinstalled (new
// engine ID) is learned again by the exchange that met it.
func (p *Prober) close(g *gosnmp.GoSNMP, t Target) {
	p.learn(g, t)
	g.Conn.Close()
}

// keep is close for a client whose requests were all answered, none
// resent, and whose socket nothing will close (closeOnDone's stop said
// so): if the exchange before it with t ended so too within KeepFor (t is
// tested every interval, as by the full plan), its socket stays open for
// the next exchange with t (idle). A rotating plan comes back to a peer
// only after log2 N intervals, and its sockets would each hold 64 KiB for
// that long for no test. A late reply to a resent request could wait in a
// kept socket, and a request ID check is then all that stands between it
// and the next test: hence only clean exchanges.
func (p *Prober) keep(g *gosnmp.GoSNMP, t Target) {
	p.learn(g, t)
	now := time.Now()
	var again bool
	p.book.update(key(t), func(s *peerState) {
		again = !s.clean.IsZero() && now.Sub(s.clean) <= p.cfg.KeepFor
		s.clean = now
	})
	if !again {
		g.Conn.Close()
		return
	}
	p.idle.put(key(t), g, now, p.cfg.KeepFor)
}

// learn keeps the SNMPv3 engine the exchange with t last heard of.
func (p *Prober) learn(g *gosnmp.GoSNMP, t Target) {
	if sp, ok := g.SecurityParameters.(*gosnmp.UsmSecurityParameters); ok && g.Version == gosnmp.Version3 && sp.AuthoritativeEngineID != "" {
		p.heard(t, engine{id: sp.AuthoritativeEngineID, boots: sp.AuthoritativeEngineBoots, time: sp.AuthoritativeEngineTime, at: time.Now()})
	}
}

// closeOnDone closes g's socket once ctx ends: gosnmp looks at its
// context only between resends, and closing ends a wait under way (a
// corroborated re-test, a settled burst). Its stop reports whether the
// socket is still open and will stay so (ctx had not ended), as keep asks.
func closeOnDone(ctx context.Context, g *gosnmp.GoSNMP) (stop func() bool) {
	return context.AfterFunc(ctx, func() { g.Conn.Close() })
}

// fits reports whether a kept client g speaks to t as a new one would: in
// v2c with the same community, or as user u with t's engine as the book
// holds it (a peer's restart or reinstall learned meanwhile, a rotation,
// and g goes). A client that fits is used as it is: gosnmp keeps the
// engine's boots and time as last heard, its Reportable flag and a privacy
// salt that runs on from a random start (a client set up anew without
// Connect would start it at 0 and repeat its IVs).
func (p *Prober) fits(g *gosnmp.GoSNMP, t Target, u *usm.User) bool {
	if t.Community != "" || t.TestedOnly || u == nil { // v2c, as setSecurity decides
		return g.Version == gosnmp.Version2c && g.Community == cmp.Or(t.Community, p.cfg.Community)
	}
	sp, ok := g.SecurityParameters.(*gosnmp.UsmSecurityParameters)
	e := p.book.get(key(t)).engine
	want := u.USM()
	return ok && g.Version == gosnmp.Version3 && e.id != "" && sp.AuthoritativeEngineID == e.id && sp.AuthoritativeEngineBoots == e.boots &&
		sp.UserName == want.UserName && sp.AuthenticationProtocol == want.AuthenticationProtocol && sp.AuthenticationPassphrase == want.AuthenticationPassphrase &&
		sp.PrivacyProtocol == want.PrivacyProtocol && sp.PrivacyPassphrase == want.PrivacyPassphrase
}

// setSecurity picks v2c with a community, or v3 as user u; a tested-only
// device runs no agent, so it is never spoken to as a user. A peer whose
// engine is known is spoken to without a discovery, with u's keys localized
// to it (keysFor).
func (p *Prober) setSecurity(g *gosnmp.GoSNMP, t Target, u *usm.User) {
	if t.Community != "" || t.TestedOnly || u == nil {
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
	if u.AuthProto() != gosnmp.NoAuth {
		g.MsgFlags = u.MsgFlags()
	}
	sp := u.USM()
	if e := p.book.get(key(t)).engine; e.id != "" {
		sp.AuthoritativeEngineID, sp.AuthoritativeEngineBoots, sp.AuthoritativeEngineTime = e.id, e.boots, e.now(time.Now())
		sp.SecretKey, sp.PrivacyKey = p.keysFor(t, e, *u)
	}
	g.SecurityParameters = sp
}

// sameOID compares two dotted OIDs, ignoring a leading dot.
func sameOID(a, b string) bool {
	return strings.TrimPrefix(a, ".") == strings.TrimPrefix(b, ".")
}
