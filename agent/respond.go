package agent

import (
	"time"

	"github.com/gosnmp/gosnmp"
)

// maxErrorIndex is the largest error-index gosnmp's codec can encode (uint8).
const maxErrorIndex = 255

// answer runs the request's operation on one snapshot and encodes the response.
func (r *Responder) answer(req *request, now time.Time) []byte {
	v := &view{r: r, snap: r.snap.Load(), now: now}
	p := req.p
	var out outcome
	switch {
	case req.denied:
		out.fail(p, gosnmp.AuthorizationError, 0)
	case p.PDUType == gosnmp.GetRequest:
		r.stats.inc(cInGetRequests)
		out = r.opGet(v, p)
	case p.PDUType == gosnmp.GetNextRequest:
		r.stats.inc(cInGetNexts)
		out = r.opGetNext(v, p)
	case p.PDUType == gosnmp.GetBulkRequest:
		r.stats.inc(cInGetBulks)
		out = r.opGetBulk(v, p, req.limit)
	case p.PDUType == gosnmp.SetRequest:
		r.stats.inc(cInSetRequests)
		r.stats.add(cInTotalSetVars, len(p.Variables))
		out = r.opSet(v, req)
	default:
		r.stats.inc(cUnknownPDUHandlers)
		return nil
	}
	if p.PDUType != gosnmp.SetRequest {
		r.stats.add(cInTotalReqVars, len(p.Variables))
	}
	return r.encode(req, &out, now)
}

// encode marshals the response within the size limit: GETBULK responses are
// trimmed from the end, others become tooBig (RFC 3416 4.2.1 and 4.2.3).
func (r *Responder) encode(req *request, out *outcome, now time.Time) []byte {
	if req.p.Version == gosnmp.Version1 {
		out.status = v1Status(out.status)
	}
	if out.index > maxErrorIndex {
		out.fail(req.p, gosnmp.TooBig, 0)
	}
	resp := r.response(req, out, now)
	b, err := resp.MarshalMsg()
	bulk := req.p.PDUType == gosnmp.GetBulkRequest && out.status == gosnmp.NoError
	for err == nil && len(b) > req.limit && bulk && len(out.vars) > int(req.p.NonRepeaters) {
		out.trim(len(b)-req.limit, int(req.p.NonRepeaters))
		resp.Variables = out.vars
		b, err = resp.MarshalMsg()
	}
	if err == nil && len(b) > req.limit {
		r.stats.inc(cOutTooBigs)
		resp.Error, resp.ErrorIndex, resp.Variables = gosnmp.TooBig, 0, nil
		b, err = resp.MarshalMsg()
		if err == nil && len(b) > req.limit {
			r.stats.inc(cSilentDrops)
			return nil
		}
	}
	if err != nil {
		r.stats.inc(cOutGenErrs)
		r.log.WithError(err).Debug("snmp: cannot encode response")
		return nil
	}
	r.countOut(resp.Error)
	return b
}

// trim drops varbinds from the end, at least excess octets worth, but keeps
// the keep first ones (the non-repeaters).
func (o *outcome) trim(excess, keep int) {
	n := len(o.vars)
	for n > keep && excess > 0 {
		n--
		excess -= vbSize(o.names[n], value{o.vars[n].Type, o.vars[n].Value})
	}
	if n == len(o.vars) && n > keep {
		n--
	}
	o.vars, o.names = o.vars[:n], o.names[:n]
}

// response builds the Response PDU, with the USM fields for SNMPv3.
func (r *Responder) response(req *request, out *outcome, now time.Time) *gosnmp.SnmpPacket {
	p := req.p
	resp := &gosnmp.SnmpPacket{
		Version: p.Version, Community: p.Community, PDUType: gosnmp.GetResponse,
		RequestID: p.RequestID, Error: out.status, ErrorIndex: uint8(out.index), Variables: out.vars,
	}
	if req.v3 == nil {
		return resp
	}
	sp := req.user.params(r, now)
	resp.MsgFlags = req.v3.level()
	if resp.MsgFlags == gosnmp.AuthPriv {
		sp.PrivacyParameters = r.nextSalt()
	}
	resp.SecurityModel, resp.SecurityParameters = gosnmp.UserSecurityModel, sp
	resp.MsgID, resp.MsgMaxSize = uint32(req.v3.msgID), uint32(r.cfg.MaxMessageSize)
	resp.ContextEngineID, resp.ContextName = string(r.engineID), p.ContextName
	return resp
}

// countOut updates the output counters for a response about to be sent.
func (r *Responder) countOut(status gosnmp.SNMPError) {
	r.stats.inc(cOutGetResponses)
	switch status {
	case gosnmp.NoSuchName:
		r.stats.inc(cOutNoSuchNames)
	case gosnmp.BadValue:
		r.stats.inc(cOutBadValues)
	case gosnmp.GenErr:
		r.stats.inc(cOutGenErrs)
	}
}
