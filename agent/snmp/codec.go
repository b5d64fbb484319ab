package snmp

import (
	"fmt"

	"github.com/gosnmp/gosnmp"
)

// The community message codec: SNMPv1 and SNMPv2c requests are decoded and
// responses encoded here without per-varbind allocations, as the hot path of
// the agent; gosnmp's codec handles SNMPv3 (USM) and is the reference the
// differential fuzz test (FuzzCodecMatchesGosnmp) holds this one to.

// Limits of the community codec.
const (
	maxOIDLen   = 128 // sub-identifiers per OID (RFC 2578 section 3.5)
	maxVarbinds = 4096
)

// varbind is one variable binding of a request or a response.
type varbind struct {
	name OID
	val  value
}

// pdu is a decoded request in the form the operations use, whatever the version.
type pdu struct {
	version   gosnmp.SnmpVersion
	community []byte
	typ       gosnmp.PDUType
	reqID     int32
	nonRep    int // GetBulk non-repeaters, clamped to 0..len(vbs)
	maxRep    int // GetBulk max-repetitions, negative read as 0 (RFC 3416 4.2.3)
	vbs       []varbind
	context   string // SNMPv3 contextName
}

// decodeCommunity decodes a whole SNMPv1 or SNMPv2c message into ws.p; the
// result refers to b and to the workspace.
func decodeCommunity(ws *workspace, b []byte) (*pdu, error) {
	version, off, err := messageVersion(b)
	if err != nil {
		return nil, err
	}
	comm, err := expect(b, off, tagOctets)
	if err != nil {
		return nil, err
	}
	ws.reset()
	p := &ws.p
	p.version, p.community = gosnmp.SnmpVersion(version), b[comm.start:comm.end]
	body, err := readTLV(b, comm.end)
	if err != nil {
		return nil, err
	}
	if body.end != len(b) {
		return nil, fmt.Errorf("%w: trailing octets after the PDU", ErrMalformed)
	}
	p.typ = gosnmp.PDUType(body.tag)
	err = p.decodeBody(ws, b, body)
	ws.vbs = p.vbs[:0]
	return p, err
}

// decodeBody reads request-id, the two integers and the varbind list.
func (p *pdu) decodeBody(ws *workspace, b []byte, body tlv) error {
	id, t, err := readInt(b, body.start)
	if err != nil {
		return err
	}
	a, t, err := readInt(b, t.end)
	if err != nil {
		return err
	}
	c, t, err := readInt(b, t.end)
	if err != nil {
		return err
	}
	p.reqID, p.nonRep, p.maxRep = int32(id), int(max(a, 0)), int(max(c, 0))
	list, err := expect(b, t.end, tagSequence)
	if err != nil {
		return err
	}
	if list.end != body.end {
		return fmt.Errorf("%w: trailing octets after the varbind list", ErrMalformed)
	}
	for off := list.start; off < list.end; {
		vb, next, err := decodeVarbind(ws, b, off, list.end)
		if err != nil {
			return err
		}
		if len(p.vbs) == maxVarbinds {
			return fmt.Errorf("%w: more than %d varbinds", ErrMalformed, maxVarbinds)
		}
		p.vbs = append(p.vbs, vb)
		off = next
	}
	p.nonRep = min(p.nonRep, len(p.vbs))
	return nil
}

// decodeVarbind reads the varbind at off, which must end by limit.
func decodeVarbind(ws *workspace, b []byte, off, limit int) (varbind, int, error) {
	seq, err := expect(b[:limit], off, tagSequence)
	if err != nil {
		return varbind{}, 0, err
	}
	nt, err := expect(b[:seq.end], seq.start, byte(gosnmp.ObjectIdentifier))
	if err != nil {
		return varbind{}, 0, err
	}
	name, err := decodeOID(ws, b[nt.start:nt.end])
	if err != nil {
		return varbind{}, 0, err
	}
	vt, err := readTLV(b[:seq.end], nt.end)
	if err != nil {
		return varbind{}, 0, err
	}
	if vt.end != seq.end {
		return varbind{}, 0, fmt.Errorf("%w: trailing octets in a varbind", ErrMalformed)
	}
	val, err := decodeValue(ws, vt.tag, b[vt.start:vt.end])
	return varbind{name, val}, seq.end, err
}

// decodeOID decodes the contents of an OBJECT IDENTIFIER into the arena.
func decodeOID(ws *workspace, c []byte) (OID, error) {
	if len(c) == 0 {
		return nil, fmt.Errorf("%w: empty object identifier", ErrMalformed)
	}
	start, ids := len(ws.ids), ws.ids
	var n uint64
	for i, x := range c {
		if x == 0x80 && (i == 0 || c[i-1]&0x80 == 0) { // X.690 8.19.2: no leading 0x80 in a sub-identifier
			return nil, fmt.Errorf("%w: padded sub-identifier", ErrMalformed)
		}
		n = n<<7 | uint64(x&0x7f)
		if n > 1<<32-1+80 {
			return nil, fmt.Errorf("%w: sub-identifier too large", ErrMalformed)
		}
		if x&0x80 != 0 {
			if i == len(c)-1 {
				return nil, fmt.Errorf("%w: truncated sub-identifier", ErrMalformed)
			}
			continue
		}
		if len(ids) == start {
			first := min(n/40, 2)
			ids = append(ids, uint32(first))
			n -= first * 40
		}
		if n > 1<<32-1 || len(ids)-start >= maxOIDLen {
			return nil, fmt.Errorf("%w: object identifier out of range", ErrMalformed)
		}
		ids = append(ids, uint32(n))
		n = 0
	}
	ws.ids = ids
	return OID(ids[start:len(ids):len(ids)]), nil
}

// decodeValue decodes a varbind value into the representation the MIB uses.
func decodeValue(ws *workspace, tag byte, c []byte) (value, error) {
	v := value{typ: gosnmp.Asn1BER(tag)}
	var err error
	switch v.typ {
	case gosnmp.Null, gosnmp.NoSuchObject, gosnmp.NoSuchInstance, gosnmp.EndOfMibView:
		if len(c) != 0 {
			err = fmt.Errorf("%w: %v with contents", ErrMalformed, v.typ)
		}
	case gosnmp.Integer:
		var n int
		n, err = decodeSigned(c)
		v.num = uint64(int64(n))
	case gosnmp.Counter32, gosnmp.Gauge32, gosnmp.TimeTicks:
		v.num, err = decodeUnsigned(c, 32)
	case gosnmp.Counter64:
		v.num, err = decodeUnsigned(c, 64)
	case gosnmp.OctetString, gosnmp.Opaque:
		v.raw = c
	case gosnmp.IPAddress:
		// Kept with another length, so that SET can answer wrongLength with the
		// value as it came (RFC 3416 4.2.5: the reply carries the request's varbinds).
		if v.bad = len(c) != 4; !v.bad {
			v.num = uint64(c[0])<<24 | uint64(c[1])<<16 | uint64(c[2])<<8 | uint64(c[3])
		} else {
			v.raw = c
		}
	case gosnmp.ObjectIdentifier:
		v.oid, err = decodeOID(ws, c)
	default:
		err = fmt.Errorf("%w: unknown value tag 0x%02x", ErrMalformed, tag)
	}
	return v, err
}

// decodeSigned decodes INTEGER contents that fit in 32 bits.
func decodeSigned(c []byte) (int, error) {
	if len(c) == 0 || len(c) > 4 {
		return 0, fmt.Errorf("%w: INTEGER of %d octets", ErrMalformed, len(c))
	}
	if !minimalInt(c) {
		return 0, fmt.Errorf("%w: INTEGER with padding octets", ErrMalformed)
	}
	n := int64(int8(c[0]))
	for _, x := range c[1:] {
		n = n<<8 | int64(x)
	}
	return int(n), nil
}

// decodeUnsigned decodes unsigned contents of at most bits bits.
func decodeUnsigned(c []byte, bits int) (uint64, error) {
	if len(c) == 0 || len(c) > bits/8+1 || c[0]&0x80 != 0 || (len(c) == bits/8+1 && c[0] != 0) || !minimalInt(c) {
		return 0, fmt.Errorf("%w: unsigned value of %d octets", ErrMalformed, len(c))
	}
	var n uint64
	for _, x := range c {
		n = n<<8 | uint64(x)
	}
	return n, nil
}
