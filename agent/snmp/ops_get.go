package snmp

import "github.com/gosnmp/gosnmp"

// outcome is what an operation produces: the response varbinds and the error status.
type outcome struct {
	vars   []varbind
	status gosnmp.SNMPError
	index  int // 1-based error-index, 0 without error
}

// fail turns the outcome into an error response echoing the request's varbinds.
func (o *outcome) fail(p *pdu, status gosnmp.SNMPError, index int) {
	o.vars, o.status, o.index = p.vbs, status, index
}

// exception returns one of the exception values of SNMPv2 (RFC 3416 section 3).
func exception(t gosnmp.Asn1BER) value { return value{typ: t} }

// opGet answers a GetRequest (RFC 3416 4.2.1; RFC 1157 4.1.2 for SNMPv1).
func (r *Responder) opGet(v *view, p *pdu) outcome {
	out := outcome{vars: v.ws.out[:0]}
	v1 := p.version == gosnmp.Version1
	for i, vb := range p.vbs {
		val, lk := r.tree.get(v, vb.name)
		switch {
		case v1 && (lk != found || val.typ == gosnmp.Counter64):
			out.fail(p, gosnmp.NoSuchName, i+1)
			return out
		case lk == noObject:
			val = exception(gosnmp.NoSuchObject)
		case lk == noInstance:
			val = exception(gosnmp.NoSuchInstance)
		}
		out.vars = append(out.vars, varbind{vb.name, val})
	}
	v.ws.out = out.vars[:0]
	return out
}

// successor returns the next instance after o that the request's version can
// carry: SNMPv1 skips Counter64 objects (RFC 3584 section 4.2.2.1).
func (r *Responder) successor(v *view, o OID, v1 bool) (OID, value, bool) {
	for {
		n, val, ok := r.tree.next(v, o)
		if !ok || !v1 || val.typ != gosnmp.Counter64 {
			return n, val, ok
		}
		o = n
	}
}

// opGetNext answers a GetNextRequest: every varbind gets its own successor.
func (r *Responder) opGetNext(v *view, p *pdu) outcome {
	out := outcome{vars: v.ws.out[:0]}
	v1 := p.version == gosnmp.Version1
	for i, vb := range p.vbs {
		n, val, ok := r.successor(v, vb.name, v1)
		switch {
		case ok:
			out.vars = append(out.vars, varbind{n, val})
		case v1:
			out.fail(p, gosnmp.NoSuchName, i+1)
			return out
		default:
			out.vars = append(out.vars, varbind{vb.name, exception(gosnmp.EndOfMibView)})
		}
	}
	v.ws.out = out.vars[:0]
	return out
}

// opGetBulk answers a GetBulkRequest (RFC 3416 4.2.3): N non-repeaters, then
// up to M rounds over the R repeaters, stopping once all reach endOfMibView
// or the varbinds alone exceed the size limit (the rest is trimmed on encoding).
func (r *Responder) opGetBulk(v *view, p *pdu, limit int) outcome {
	out := outcome{vars: v.ws.out[:0]}
	for _, vb := range p.vbs[:p.nonRep] {
		if s, val, ok := r.tree.next(v, vb.name); ok {
			out.vars = append(out.vars, varbind{s, val})
		} else {
			out.vars = append(out.vars, varbind{vb.name, exception(gosnmp.EndOfMibView)})
		}
	}
	cur := v.ws.cur[:0]
	for _, vb := range p.vbs[p.nonRep:] {
		cur = append(cur, vb.name)
	}
	size := varbindsSize(out.vars)
	for m := 0; m < p.maxRep && len(cur) > 0 && size <= limit; m++ {
		ended := 0
		for j, o := range cur {
			s, val, ok := r.tree.next(v, o)
			if !ok {
				s, val = o, exception(gosnmp.EndOfMibView)
				ended++
			}
			cur[j] = s
			out.vars = append(out.vars, varbind{s, val})
			size += vbSize(s, val)
		}
		if ended == len(cur) {
			break
		}
	}
	v.ws.cur, v.ws.out = cur[:0], out.vars[:0]
	return out
}
