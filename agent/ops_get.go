package agent

import "github.com/gosnmp/gosnmp"

// outcome is what an operation produces: the response varbinds (with their
// parsed names, used to size GETBULK responses) and the error status.
type outcome struct {
	vars   []gosnmp.SnmpPDU
	names  []OID
	status gosnmp.SNMPError
	index  int // 1-based error-index, 0 without error
}

// add appends one response varbind.
func (o *outcome) add(name OID, nameStr string, val value) {
	o.vars = append(o.vars, gosnmp.SnmpPDU{Name: nameStr, Type: val.typ, Value: val.v})
	o.names = append(o.names, name)
}

// fail turns the outcome into an error response echoing the request's varbinds.
func (o *outcome) fail(req *gosnmp.SnmpPacket, status gosnmp.SNMPError, index int) {
	o.vars, o.names, o.status, o.index = req.Variables, nil, status, index
}

// exception values of SNMPv2 (RFC 3416 section 3).
var (
	vNoSuchObject   = value{typ: gosnmp.NoSuchObject}
	vNoSuchInstance = value{typ: gosnmp.NoSuchInstance}
	vEndOfMibView   = value{typ: gosnmp.EndOfMibView}
)

// opGet answers a GetRequest (RFC 3416 4.2.1; RFC 1157 4.1.2 for SNMPv1).
func (r *Responder) opGet(v *view, req *gosnmp.SnmpPacket) outcome {
	out := outcome{vars: make([]gosnmp.SnmpPDU, 0, len(req.Variables))}
	v1 := req.Version == gosnmp.Version1
	for i, vb := range req.Variables {
		o, err := ParseOID(vb.Name)
		val, lk := value{}, noObject
		if err == nil {
			val, lk = r.tree.get(v, o)
		}
		switch {
		case v1 && (lk != found || val.typ == gosnmp.Counter64):
			out.fail(req, gosnmp.NoSuchName, i+1)
			return out
		case lk == noObject:
			val = vNoSuchObject
		case lk == noInstance:
			val = vNoSuchInstance
		}
		out.add(o, vb.Name, val)
	}
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
func (r *Responder) opGetNext(v *view, req *gosnmp.SnmpPacket) outcome {
	out := outcome{vars: make([]gosnmp.SnmpPDU, 0, len(req.Variables))}
	v1 := req.Version == gosnmp.Version1
	for i, vb := range req.Variables {
		o, err := ParseOID(vb.Name)
		if err != nil {
			o = OID{}
		}
		n, val, ok := r.successor(v, o, v1)
		switch {
		case ok:
			out.add(n, n.String(), val)
		case v1:
			out.fail(req, gosnmp.NoSuchName, i+1)
			return out
		default:
			out.add(o, vb.Name, vEndOfMibView)
		}
	}
	return out
}

// opGetBulk answers a GetBulkRequest (RFC 3416 4.2.3): N non-repeaters, then
// up to M rounds over the R repeaters, stopping once all reach endOfMibView
// or the varbinds alone exceed the size limit (the rest is trimmed on encoding).
func (r *Responder) opGetBulk(v *view, req *gosnmp.SnmpPacket, limit int) outcome {
	n := min(int(req.NonRepeaters), len(req.Variables))
	out := outcome{}
	for _, vb := range req.Variables[:n] {
		o, _ := ParseOID(vb.Name)
		if s, val, ok := r.tree.next(v, o); ok {
			out.add(s, s.String(), val)
		} else {
			out.add(o, vb.Name, vEndOfMibView)
		}
	}
	cur := make([]OID, 0, len(req.Variables)-n)
	for _, vb := range req.Variables[n:] {
		o, _ := ParseOID(vb.Name)
		cur = append(cur, o)
	}
	size := out.size()
	for m := 0; m < int(req.MaxRepetitions) && len(cur) > 0 && size <= limit; m++ {
		ended := 0
		for j, o := range cur {
			s, val, ok := r.tree.next(v, o)
			if !ok {
				s, val = o, vEndOfMibView
				ended++
			}
			cur[j] = s
			out.add(s, s.String(), val)
			size += vbSize(s, val)
		}
		if ended == len(cur) {
			break
		}
	}
	return out
}

// size is the encoded size of the outcome's varbinds.
func (o *outcome) size() int {
	total := 0
	for i, n := range o.names {
		total += vbSize(n, value{o.vars[i].Type, o.vars[i].Value})
	}
	return total
}
