package snmp

import (
	"bytes"
	"crypto/hmac"
	"crypto/subtle"
	"encoding/binary"
	"fmt"
	"net/netip"
	"time"

	"github.com/gosnmp/gosnmp"
)

// privOnly is msgFlags with privFlag set and authFlag clear, which RFC 3412 forbids.
const privOnly = gosnmp.AuthPriv &^ gosnmp.AuthNoPriv

// timeWindow is the USM time window of RFC 3414 section 3.2 step 7.
const timeWindow = 150

// macLen is the length of msgAuthenticationParameters for a protocol
// (RFC 3414 for MD5 and SHA-1, RFC 7860 section 4.1 for SHA-2).
func macLen(p gosnmp.SnmpV3AuthProtocol) int {
	switch p {
	case gosnmp.MD5, gosnmp.SHA:
		return 12
	case gosnmp.SHA224:
		return 16
	case gosnmp.SHA256:
		return 24
	case gosnmp.SHA384:
		return 32
	case gosnmp.SHA512:
		return 48
	}
	return 0
}

// usmUser is a configured user with its keys localized to this engine.
type usmUser struct {
	User
	auth            gosnmp.SnmpV3AuthProtocol
	priv            gosnmp.SnmpV3PrivProtocol
	write           bool
	secret, privKey []byte
	level           gosnmp.SnmpV3MsgFlags // the highest level the user supports
}

// localizeUsers derives every user's localized keys for engineID (RFC 3414 A.2).
func localizeUsers(users []User, engineID []byte) (map[string]*usmUser, error) {
	m := make(map[string]*usmUser, len(users))
	for _, u := range users {
		auth, priv := u.AuthProto(), u.PrivProto()
		secret, privKey, err := u.Localized(string(engineID))
		if err != nil {
			return nil, fmt.Errorf("snmp: localizing keys of user %q: %w", u.Name, err)
		}
		uu := &usmUser{User: u, auth: auth, priv: priv, write: u.Write,
			secret: secret, privKey: privKey, level: gosnmp.NoAuthNoPriv}
		if auth != gosnmp.NoAuth {
			uu.level = gosnmp.AuthNoPriv
		}
		if priv != gosnmp.NoPriv {
			uu.level = gosnmp.AuthPriv
		}
		m[u.Name] = uu
	}
	return m, nil
}

// params returns fresh gosnmp security parameters for this user and engine.
func (u *usmUser) params(r *Responder, now time.Time) *gosnmp.UsmSecurityParameters {
	return &gosnmp.UsmSecurityParameters{
		AuthoritativeEngineID:    string(r.engineID),
		AuthoritativeEngineBoots: r.cfg.EngineBoots,
		AuthoritativeEngineTime:  r.engineTime(now),
		UserName:                 u.Name,
		AuthenticationProtocol:   u.auth,
		PrivacyProtocol:          u.priv,
		SecretKey:                u.secret,
		PrivacyKey:               u.privKey,
	}
}

// authentic checks the message digest; it zeroes msgAuthenticationParameters
// in b as the digest is computed over the message with that field blank.
func (u *usmUser) authentic(b []byte, h *v3Header) bool {
	field := b[h.authParam.start:h.authParam.end]
	if len(field) != macLen(u.auth) || len(field) == 0 {
		return false
	}
	var got [48]byte
	copy(got[:], field)
	clear(field)
	mac := hmac.New(u.auth.HashType().New, u.secret)
	mac.Write(b)
	sum := mac.Sum(nil)[:len(field)]
	return subtle.ConstantTimeCompare(sum, got[:len(field)]) == 1
}

// inTimeWindow applies the time-window test of RFC 3414 section 3.2 step 7:
// with boots latched at LatchedBoots no message is in the window.
func (r *Responder) inTimeWindow(h *v3Header, now time.Time) bool {
	if r.cfg.EngineBoots == LatchedBoots || h.boots != int64(r.cfg.EngineBoots) {
		return false
	}
	d := h.time - int64(r.engineTime(now))
	return d >= -timeWindow && d <= timeWindow
}

// handleV3 runs an SNMPv3 message through the USM checks of RFC 3414
// section 3.2 and, when they pass, through the PDU operations.
func (r *Responder) handleV3(ws *workspace, b []byte, verEnd int, src netip.Addr, now time.Time) []byte {
	h, err := parseV3Header(b, verEnd)
	if err != nil {
		r.stats.inc(cInASNParseErrs)
		return nil
	}
	switch {
	case h.maxSize < minMessageSize, h.flags&gosnmp.AuthPriv == privOnly:
		r.stats.inc(cInvalidMsgs)
		return nil
	case h.model != int64(gosnmp.UserSecurityModel):
		r.stats.inc(cUnknownSecurityModels)
		return nil
	case !bytes.Equal(h.engineID, r.engineID):
		return r.report(h, h.plainRequestID(b), cUnknownEngineIDs, nil, now)
	}
	u := (*r.users.Load())[string(h.user)]
	switch {
	case u == nil:
		if len(h.user) > 0 {
			r.authFailure(src)
		}
		return r.report(h, h.plainRequestID(b), cUnknownUserNames, nil, now)
	case h.level() > u.level:
		return r.report(h, h.plainRequestID(b), cUnsupportedSecLevels, nil, now)
	case h.level() >= gosnmp.AuthNoPriv && !u.authentic(b, h):
		r.authFailure(src)
		return r.report(h, h.plainRequestID(b), cWrongDigests, nil, now)
	case h.level() >= gosnmp.AuthNoPriv && !r.inTimeWindow(h, now):
		if h.boots == int64(r.cfg.EngineBoots) {
			// Authentic and of this boot, yet outside the window: a replay
			// (a peer that has not heard of a restart sends older boots).
			r.authFailure(src)
		}
		return r.report(h, h.plainRequestID(b), cNotInTimeWindows, u, now)
	}
	return r.serveV3(ws, b, h, u, src, now)
}

// serveV3 decodes (and decrypts) an authenticated message and answers it.
func (r *Responder) serveV3(ws *workspace, b []byte, h *v3Header, u *usmUser, src netip.Addr, now time.Time) []byte {
	reqID := h.plainRequestID(b)
	sp := u.params(r, now)
	sp.AuthoritativeEngineBoots, sp.AuthoritativeEngineTime = uint32(h.boots), uint32(h.time)
	g, err := decode(b, sp)
	var p *pdu
	if err == nil {
		p, err = fromGosnmp(g)
	}
	if err != nil {
		if h.level() == gosnmp.AuthPriv {
			return r.report(h, reqID, cDecryptionErrors, nil, now)
		}
		r.stats.inc(cInASNParseErrs)
		return nil
	}
	if g.ContextName != "" || (g.ContextEngineID != "" && g.ContextEngineID != string(r.engineID)) {
		return r.report(h, g.RequestID, cUnknownContexts, nil, now)
	}
	req := &request{p: p, src: src, limit: min(int(h.maxSize), r.cfg.MaxMessageSize), v3: h, user: u,
		write: u.write, denied: h.level() < u.level}
	ws.reset()
	return r.answer(ws, req, now)
}

// reportOID maps a counter to the object a Report PDU carries for it.
func reportOID(c counter) string {
	switch c {
	case cUnknownContexts:
		return oidTargetObject + ".5.0"
	case cUnknownPDUHandlers:
		return oidMPDStats + ".3.0"
	}
	return fmt.Sprintf("%s.%d.0", oidUsmStats, int(c-cUnsupportedSecLevels)+1)
}

// report counts c and, if the message asks for one, builds the Report PDU; it
// is authenticated with u when u is given (notInTimeWindow), else unauthenticated.
func (r *Responder) report(h *v3Header, reqID uint32, c counter, u *usmUser, now time.Time) []byte {
	n := r.stats.inc(c)
	if h.flags&gosnmp.Reportable == 0 {
		return nil
	}
	flags, sp := gosnmp.NoAuthNoPriv, &gosnmp.UsmSecurityParameters{
		AuthoritativeEngineID: string(r.engineID), AuthoritativeEngineBoots: r.cfg.EngineBoots,
		AuthoritativeEngineTime: r.engineTime(now), UserName: string(h.user),
	}
	if u != nil {
		flags, sp = gosnmp.AuthNoPriv, u.params(r, now)
	}
	p := &gosnmp.SnmpPacket{
		Version: gosnmp.Version3, MsgFlags: flags, SecurityModel: gosnmp.UserSecurityModel,
		MsgID: uint32(h.msgID), MsgMaxSize: uint32(r.cfg.MaxMessageSize), SecurityParameters: sp,
		ContextEngineID: string(r.engineID), PDUType: gosnmp.Report, RequestID: reqID,
		Variables: []gosnmp.SnmpPDU{{Name: reportOID(c), Type: gosnmp.Counter32, Value: uint32(n)}},
	}
	out, err := p.MarshalMsg()
	if err != nil {
		r.stats.inc(cOutGenErrs)
		return nil
	}
	r.stats.inc(cOutReports)
	return out
}

// nextSalt returns a fresh 64-bit AES salt (RFC 3826 section 3.1.2.1).
func (r *Responder) nextSalt() []byte {
	s := make([]byte, 8)
	binary.BigEndian.PutUint64(s, r.salt.Add(1))
	return s
}
