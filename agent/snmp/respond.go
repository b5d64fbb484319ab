package snmp

import (
	"time"

	"github.com/gosnmp/gosnmp"
)

// maxErrorIndex is the largest error-index gosnmp's codec can encode (uint8),
// which bounds SNMPv3 responses; the community codec has no such limit.
const maxErrorIndex = 255

// answer runs the request's operation on one snapshot and encodes the response.
func (r *Responder) answer(ws *workspace, req *request, now time.Time) []byte {
	ws.v = view{r: r, snap: r.board.Load(), now: now, ws: ws, agent: req.user != nil && req.user.Cluster, write: req.write}
	v := &ws.v
	p := req.p
	var out outcome
	switch {
	case req.denied:
		out.fail(p, gosnmp.AuthorizationError, 0)
	case p.typ == gosnmp.GetRequest:
		r.stats.inc(cInGetRequests)
		out = r.opGet(v, p)
	case p.typ == gosnmp.GetNextRequest:
		r.stats.inc(cInGetNexts)
		out = r.opGetNext(v, p)
	case p.typ == gosnmp.GetBulkRequest:
		r.stats.inc(cInGetBulks)
		out = r.opGetBulk(v, p, req.limit)
	case p.typ == gosnmp.SetRequest:
		r.stats.inc(cInSetRequests)
		r.stats.add(cInTotalSetVars, len(p.vbs))
		if r.maintSet(p) {
			out = r.opMaintSet(req, now)
		} else if r.rowSet(p) {
			out = r.opRowSet(req)
		} else {
			out = r.opSet(v, req)
		}
	default:
		r.stats.inc(cUnknownPDUHandlers)
		return nil
	}
	if p.typ != gosnmp.SetRequest {
		r.stats.add(cInTotalReqVars, len(p.vbs))
	}
	if p.version == gosnmp.Version1 {
		out.status = v1Status(out.status)
	}
	if req.v3 != nil {
		return r.encodeV3(req, &out, now)
	}
	return r.encodeCommunity(ws, req, &out)
}

// communitySize is the encoded size of an SNMPv1/v2c response.
func communitySize(p *pdu, out *outcome) int {
	body := intTLVSize(int64(p.reqID)) + intTLVSize(int64(out.status)) + intTLVSize(int64(out.index)) +
		tlvSize(varbindsSize(out.vars))
	return tlvSize(intTLVSize(int64(p.version)) + tlvSize(len(p.community)) + tlvSize(body))
}

// encodeCommunity encodes an SNMPv1/v2c response within the size limit:
// GETBULK responses lose varbinds from the end, others become tooBig
// (RFC 3416 4.2.1 and 4.2.3).
func (r *Responder) encodeCommunity(ws *workspace, req *request, out *outcome) []byte {
	p := req.p
	size := communitySize(p, out)
	if size > req.limit && p.typ == gosnmp.GetBulkRequest && out.status == gosnmp.NoError {
		for size > req.limit && len(out.vars) > p.nonRep {
			out.trim(size-req.limit, p.nonRep)
			size = communitySize(p, out)
		}
	}
	if size > req.limit && !r.tooBig(p, out, func() int { return communitySize(p, out) }, req.limit) {
		return nil
	}
	ws.resp = appendCommunityResponse(ws.resp[:0], p, out)
	r.countOut(out.status)
	return ws.resp
}

// tooBig replaces the response with a tooBig one, or counts a silent drop and
// reports false when even that does not fit. SNMPv2 sends no varbinds (RFC 3416
// 4.2.1); SNMPv1 echoes the request's (RFC 1157 4.1.2).
func (r *Responder) tooBig(p *pdu, out *outcome, size func() int, limit int) bool {
	r.stats.inc(cOutTooBigs)
	out.vars, out.status, out.index = nil, gosnmp.TooBig, 0
	if p.version == gosnmp.Version1 {
		out.vars = p.vbs
	}
	if size() > limit {
		r.stats.inc(cSilentDrops)
		return false
	}
	return true
}

// trim drops varbinds from the end, at least excess octets worth, but keeps
// the keep first ones (the non-repeaters).
func (o *outcome) trim(excess, keep int) {
	n := len(o.vars)
	for n > keep && excess > 0 {
		n--
		excess -= vbSize(o.vars[n].name, o.vars[n].val)
	}
	o.vars = o.vars[:n]
}

// encodeV3 marshals an SNMPv3 response with gosnmp (USM authentication and
// privacy), trimming GETBULK responses to the manager's msgMaxSize.
func (r *Responder) encodeV3(req *request, out *outcome, now time.Time) []byte {
	if out.index > maxErrorIndex {
		out.fail(req.p, gosnmp.TooBig, 0)
	}
	resp := r.response(req, out, now)
	b, err := resp.MarshalMsg()
	for err == nil && len(b) > req.limit && req.p.typ == gosnmp.GetBulkRequest &&
		out.status == gosnmp.NoError && len(out.vars) > req.p.nonRep {
		out.trim(max(len(b)-req.limit, 1), req.p.nonRep)
		resp.Variables = toGosnmp(out.vars)
		b, err = resp.MarshalMsg()
	}
	if err == nil && len(b) > req.limit {
		if !r.tooBig(req.p, out, func() int { return 0 }, req.limit) {
			return nil
		}
		resp.Error, resp.ErrorIndex, resp.Variables = gosnmp.TooBig, 0, nil
		if b, err = resp.MarshalMsg(); err == nil && len(b) > req.limit {
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

// response builds an SNMPv3 Response PDU with its USM fields.
func (r *Responder) response(req *request, out *outcome, now time.Time) *gosnmp.SnmpPacket {
	p := req.p
	sp := req.user.params(r, now)
	resp := &gosnmp.SnmpPacket{
		Version: gosnmp.Version3, PDUType: gosnmp.GetResponse, RequestID: uint32(p.reqID),
		Error: out.status, ErrorIndex: uint8(out.index), Variables: toGosnmp(out.vars),
		MsgFlags: req.v3.level(), SecurityModel: gosnmp.UserSecurityModel, SecurityParameters: sp,
		MsgID: uint32(req.v3.msgID), MsgMaxSize: uint32(r.cfg.MaxMessageSize),
		ContextEngineID: string(r.engineID), ContextName: p.context,
	}
	if resp.MsgFlags == gosnmp.AuthPriv {
		sp.PrivacyParameters = r.nextSalt()
	}
	return resp
}

// toGosnmp converts varbinds to gosnmp's representation for its encoder.
func toGosnmp(vbs []varbind) []gosnmp.SnmpPDU {
	g := make([]gosnmp.SnmpPDU, len(vbs))
	for i, vb := range vbs {
		g[i] = gosnmp.SnmpPDU{Name: vb.name.String(), Type: vb.val.typ, Value: vb.val.gosnmpValue()}
	}
	return g
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
