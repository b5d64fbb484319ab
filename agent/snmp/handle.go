package snmp

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/gosnmp/gosnmp"
	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/mib"
)

// request is one decoded request on its way through the operations.
type request struct {
	p      *pdu
	src    netip.Addr
	limit  int       // the largest response the manager and we accept
	write  bool      // the community or user may SET
	denied bool      // SNMPv3: below the user's security level, answer authorizationError
	v3     *v3Header // nil for SNMPv1 and SNMPv2c
	user   *usmUser  // the SNMPv3 user
}

// handle answers one datagram from src with a fresh workspace (tests, fuzzing).
func (r *Responder) handle(b []byte, src netip.Addr) []byte {
	return r.handleWith(&workspace{}, b, src)
}

// handleWith answers one datagram from src; it returns the reply (which may
// live in ws), or nil when the datagram is dropped (counted in the statistics).
func (r *Responder) handleWith(ws *workspace, b []byte, src netip.Addr) []byte {
	now := r.now()
	if r.fault.silenced(now) && !r.lifts(ws, b, src) {
		r.stats.inc(cFaultDrops)
		return nil
	}
	r.stats.inc(cInPkts)
	version, verEnd, err := messageVersion(b)
	if err != nil {
		r.stats.inc(cInASNParseErrs)
		return nil
	}
	switch gosnmp.SnmpVersion(version) {
	case gosnmp.Version1, gosnmp.Version2c:
		return r.handleCommunity(ws, b, src, now)
	case gosnmp.Version3:
		return r.handleV3(ws, b, verEnd, src, now)
	}
	r.stats.inc(cInBadVersions)
	return nil
}

// lifts reports whether b is the one request a silenced agent still answers:
// an SNMPv1 or v2c SET of diagFaultInject.0 to 0, alone, through a write
// community allowed from src, so an experimenter can end an injected fault
// early. (SNMPv3 would need the silenced agent to answer discovery first.)
func (r *Responder) lifts(ws *workspace, b []byte, src netip.Addr) bool {
	version, _, err := messageVersion(b)
	if err != nil || (version != int64(gosnmp.Version1) && version != int64(gosnmp.Version2c)) {
		return false
	}
	p, err := decodeCommunity(ws, b)
	if err != nil || p.typ != gosnmp.SetRequest || len(p.vbs) != 1 {
		return false
	}
	inject, err := ParseOID(mib.DiagFaultInject0)
	c := r.community(p.community)
	vb := p.vbs[0]
	return err == nil && c != nil && c.Write && c.allows(src) && vb.name.Compare(inject) == 0 &&
		vb.val.typ == gosnmp.Integer && vb.val.int() == 0
}

// handleCommunity answers an SNMPv1 or SNMPv2c message after the community checks.
func (r *Responder) handleCommunity(ws *workspace, b []byte, src netip.Addr, now time.Time) []byte {
	p, err := decodeCommunity(ws, b)
	if err != nil {
		r.stats.inc(cInASNParseErrs)
		return nil
	}
	c := r.community(p.community)
	switch {
	case c == nil:
		r.stats.inc(cInBadCommunityNames)
		r.debug(src, "snmp: unknown community")
		r.authFailure(src)
		return nil
	case !c.allows(src):
		r.stats.inc(cInBadCommunityUses)
		r.debug(src, "snmp: community not allowed from this source")
		r.authFailure(src)
		return nil
	case p.version == gosnmp.Version1 && p.typ == gosnmp.GetBulkRequest:
		r.stats.inc(cInASNParseErrs) // RFC 3584 section 4.1: no GetBulk in SNMPv1
		return nil
	}
	return r.answer(ws, &request{p: p, src: src, limit: r.cfg.MaxMessageSize, write: c.Write}, now)
}

// fromGosnmp converts a request decoded by gosnmp (SNMPv3) to the operations' form.
func fromGosnmp(g *gosnmp.SnmpPacket) (*pdu, error) {
	p := &pdu{version: g.Version, typ: g.PDUType, reqID: int32(g.RequestID), context: g.ContextName,
		maxRep: int(g.MaxRepetitions), vbs: make([]varbind, 0, len(g.Variables))}
	for _, v := range g.Variables {
		o, err := ParseOID(v.Name)
		if err != nil {
			return nil, err
		}
		p.vbs = append(p.vbs, varbind{o, valueFromGosnmp(v)})
	}
	p.nonRep = min(int(g.NonRepeaters), len(p.vbs))
	return p, nil
}

// debug logs a per-packet event; the level check keeps floods of bad packets
// from allocating log entries nobody reads.
func (r *Responder) debug(src netip.Addr, msg string) {
	if r.log.Logger.IsLevelEnabled(logrus.DebugLevel) {
		r.log.WithField("src", src).Debug(msg)
	}
}

// community returns the configured community named name, or nil.
func (r *Responder) community(name []byte) *Community {
	for i := range r.cfg.Communities {
		if r.cfg.Communities[i].Name == string(name) {
			return &r.cfg.Communities[i]
		}
	}
	return nil
}

// allows reports whether a request from src may use the community.
func (c *Community) allows(src netip.Addr) bool {
	if len(c.Sources) == 0 {
		return true
	}
	src = src.Unmap()
	for _, p := range c.Sources {
		if p.Contains(src) {
			return true
		}
	}
	return false
}

// decode parses a datagram with gosnmp's codec, turning a codec panic into an
// error; sp, when given, supplies the SNMPv3 user's localized keys.
func decode(b []byte, sp *gosnmp.UsmSecurityParameters) (p *gosnmp.SnmpPacket, err error) {
	defer func() {
		if e := recover(); e != nil {
			p, err = nil, fmt.Errorf("%w: codec panic: %v", ErrMalformed, e)
		}
	}()
	g := &gosnmp.GoSNMP{Version: gosnmp.Version2c}
	if sp != nil {
		g.SecurityParameters = sp
	}
	p, err = g.SnmpDecodePacket(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return p, nil
}

// authFailure tells Config.OnAuthFailure, if set, that a message from src
// failed authentication: an unknown community, a community used from a
// source it is not allowed from, an unknown SNMPv3 user (a wrong cluster
// key among them), a wrong digest, an authentic message of this boot
// replayed outside the time window, or a SET of an object only agents
// write without the cluster key.
func (r *Responder) authFailure(src netip.Addr) {
	if r.cfg.OnAuthFailure != nil {
		r.cfg.OnAuthFailure(src)
	}
}
