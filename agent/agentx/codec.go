package agentx

import (
	"encoding/binary"
)

// maxSubIDs bounds an OID, as SNMP does (RFC 2578 section 3.5).
const maxSubIDs = 128

// internet is 1.3.6.1, which an encoded OID's prefix field abbreviates.
var internet = OID{1, 3, 6, 1}

// decoder reads the fields of one PDU in its byte order; the first error
// sticks and every later read returns zero values.
type decoder struct {
	b   []byte
	pos int
	bo  binary.ByteOrder
	err error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = parseErr(format, args...)
	}
}

func (d *decoder) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || len(d.b)-d.pos < n {
		d.fail("need %d bytes at offset %d of %d", n, d.pos, len(d.b))
		return nil
	}
	s := d.b[d.pos : d.pos+n]
	d.pos += n
	return s
}

func (d *decoder) u8() uint8 {
	if s := d.take(1); s != nil {
		return s[0]
	}
	return 0
}

func (d *decoder) u16() uint16 {
	if s := d.take(2); s != nil {
		return d.bo.Uint16(s)
	}
	return 0
}

func (d *decoder) u32() uint32 {
	if s := d.take(4); s != nil {
		return d.bo.Uint32(s)
	}
	return 0
}

func (d *decoder) u64() uint64 {
	if s := d.take(8); s != nil {
		return d.bo.Uint64(s)
	}
	return 0
}

func (d *decoder) done() bool { return d.err != nil || d.pos == len(d.b) }

// oid reads an Object Identifier (section 5.1) and its include field.
func (d *decoder) oid() (OID, bool) {
	n, prefix, include := int(d.u8()), d.u8(), d.u8()
	d.u8() // reserved
	if d.err != nil {
		return nil, false
	}
	if n > maxSubIDs {
		d.fail("OID of %d sub-identifiers", n)
		return nil, false
	}
	if include > 1 {
		d.fail("include field %d", include)
		return nil, false
	}
	var o OID
	if prefix != 0 {
		o = append(append(make(OID, 0, 5+n), internet...), uint32(prefix))
	} else if n > 0 {
		o = make(OID, 0, n)
	}
	for range n {
		o = append(o, d.u32())
	}
	if len(o) > maxSubIDs {
		d.fail("OID of %d sub-identifiers", len(o))
	}
	return o, include == 1
}

// octets reads an Octet String (section 5.3): a length, the octets, padding to 4.
func (d *decoder) octets() []byte {
	n := d.u32()
	if d.err != nil {
		return nil
	}
	if n > uint32(len(d.b)-d.pos) {
		d.fail("octet string of %d bytes, %d left", n, len(d.b)-d.pos)
		return nil
	}
	s := d.take(int(n))
	d.take(int(-n & 3))
	return append([]byte(nil), s...)
}

// varbind reads a VarBind (section 5.4).
func (d *decoder) varbind() VarBind {
	vb := VarBind{Type: VarType(d.u16())}
	d.u16() // reserved
	vb.Name, _ = d.oid()
	switch vb.Type {
	case Integer, Counter32, Gauge32, TimeTicks:
		vb.Num = uint64(d.u32())
	case Counter64:
		vb.Num = d.u64()
	case OctetString, Opaque:
		vb.Bytes = d.octets()
	case IPAddress:
		b := d.octets()
		if d.err == nil && len(b) != 4 {
			d.fail("IpAddress of %d octets", len(b))
		}
		if len(b) == 4 {
			vb.Num = uint64(binary.BigEndian.Uint32(b))
		}
	case ObjectID:
		vb.Value, _ = d.oid()
	case Null, NoSuchObject, NoSuchInstance, EndOfMibView:
	default:
		d.fail("value type %d", vb.Type)
	}
	return vb
}

func (d *decoder) varbinds() []VarBind {
	var out []VarBind
	for !d.done() {
		out = append(out, d.varbind())
	}
	return out
}

func (d *decoder) ranges() []SearchRange {
	var out []SearchRange
	for !d.done() {
		var r SearchRange
		r.Start, r.Include = d.oid()
		r.End, _ = d.oid()
		out = append(out, r)
	}
	return out
}

// Decode reads one whole PDU, header included; anything that does not
// follow RFC 2741 section 6 is an ErrParse.
func Decode(b []byte) (*PDU, error) {
	if len(b) < HeaderSize {
		return nil, parseErr("%d bytes, shorter than a header", len(b))
	}
	if b[0] != 1 {
		return nil, parseErr("version %d", b[0])
	}
	p := &PDU{Type: Type(b[1]), Flags: b[2]}
	d := &decoder{b: b, bo: order(b[2])}
	d.take(4)
	p.SessionID, p.TransactionID, p.PacketID = d.u32(), d.u32(), d.u32()
	if n := d.u32(); int(n) != len(b)-HeaderSize {
		return nil, parseErr("payload length %d, %d bytes follow", n, len(b)-HeaderSize)
	}
	if p.Flags&FlagNonDefaultContext != 0 && hasContext(p.Type) {
		p.Context = d.octets()
	}
	switch p.Type {
	case TypeOpen:
		p.Timeout = d.u8()
		d.take(3)
		p.ID, _ = d.oid()
		p.Descr = d.octets()
	case TypeClose:
		p.Reason = d.u8()
		d.take(3)
	case TypeRegister, TypeUnregister:
		p.Timeout = d.u8() // reserved in Unregister
		p.Priority, p.RangeSubID = d.u8(), d.u8()
		d.u8()
		p.Subtree, _ = d.oid()
		if p.RangeSubID != 0 {
			p.UpperBound = d.u32()
		}
	case TypeGet, TypeGetNext:
		p.Ranges = d.ranges()
	case TypeGetBulk:
		p.NonRepeaters, p.MaxRepetitions = d.u16(), d.u16()
		p.Ranges = d.ranges()
	case TypeTestSet, TypeNotify, TypeIndexAllocate, TypeIndexDeallocate:
		p.VarBinds = d.varbinds()
	case TypeCommitSet, TypeUndoSet, TypeCleanupSet, TypePing:
	case TypeAddAgentCaps:
		p.ID, _ = d.oid()
		p.Descr = d.octets()
	case TypeRemoveAgentCaps:
		p.ID, _ = d.oid()
	case TypeResponse:
		p.SysUpTime, p.Error, p.Index = d.u32(), Error(d.u16()), d.u16()
		p.VarBinds = d.varbinds()
	default:
		return nil, parseErr("PDU type %d", uint8(p.Type))
	}
	if d.err != nil {
		return nil, d.err
	}
	if !d.done() {
		return nil, parseErr("%s PDU: %d bytes left over", p.Type, len(b)-d.pos)
	}
	return p, nil
}

// encoder writes a PDU in network byte order.
type encoder struct{ b []byte }

func (e *encoder) u8(v uint8)   { e.b = append(e.b, v) }
func (e *encoder) u16(v uint16) { e.b = binary.BigEndian.AppendUint16(e.b, v) }
func (e *encoder) u32(v uint32) { e.b = binary.BigEndian.AppendUint32(e.b, v) }
func (e *encoder) u64(v uint64) { e.b = binary.BigEndian.AppendUint64(e.b, v) }

// oid writes an Object Identifier, using the prefix field for 1.3.6.1.x.
func (e *encoder) oid(o OID, include bool) {
	var prefix uint8
	if len(o) >= 5 && o.HasPrefix(internet) && o[4] > 0 && o[4] <= 255 {
		prefix, o = uint8(o[4]), o[5:]
	}
	inc := uint8(0)
	if include {
		inc = 1
	}
	e.u8(uint8(len(o)))
	e.u8(prefix)
	e.u8(inc)
	e.u8(0)
	for _, s := range o {
		e.u32(s)
	}
}

func (e *encoder) octets(s []byte) {
	e.u32(uint32(len(s)))
	e.b = append(e.b, s...)
	for len(e.b)%4 != 0 {
		e.b = append(e.b, 0)
	}
}

func (e *encoder) varbind(vb VarBind) {
	e.u16(uint16(vb.Type))
	e.u16(0)
	e.oid(vb.Name, false)
	switch vb.Type {
	case Integer, Counter32, Gauge32, TimeTicks:
		e.u32(uint32(vb.Num))
	case Counter64:
		e.u64(vb.Num)
	case OctetString, Opaque:
		e.octets(vb.Bytes)
	case IPAddress:
		e.octets(binary.BigEndian.AppendUint32(nil, uint32(vb.Num)))
	case ObjectID:
		e.oid(vb.Value, false)
	}
}

// Encode writes p in network byte order (FlagNetworkByteOrder is set). It
// refuses what Decode would refuse: an OID longer than 128 sub-identifiers
// or a value type AgentX does not have.
func (p *PDU) Encode() ([]byte, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	e := &encoder{b: make([]byte, 0, 64)}
	flags := p.Flags | FlagNetworkByteOrder
	if len(p.Context) > 0 && hasContext(p.Type) {
		flags |= FlagNonDefaultContext
	} else {
		flags &^= FlagNonDefaultContext
	}
	e.u8(1)
	e.u8(uint8(p.Type))
	e.u8(flags)
	e.u8(0)
	e.u32(p.SessionID)
	e.u32(p.TransactionID)
	e.u32(p.PacketID)
	e.u32(0) // payload length, filled in below
	if flags&FlagNonDefaultContext != 0 {
		e.octets(p.Context)
	}
	switch p.Type {
	case TypeOpen:
		e.u8(p.Timeout)
		e.b = append(e.b, 0, 0, 0)
		e.oid(p.ID, false)
		e.octets(p.Descr)
	case TypeClose:
		e.u8(p.Reason)
		e.b = append(e.b, 0, 0, 0)
	case TypeRegister, TypeUnregister:
		e.u8(p.Timeout)
		e.u8(p.Priority)
		e.u8(p.RangeSubID)
		e.u8(0)
		e.oid(p.Subtree, false)
		if p.RangeSubID != 0 {
			e.u32(p.UpperBound)
		}
	case TypeGet, TypeGetNext, TypeGetBulk:
		if p.Type == TypeGetBulk {
			e.u16(p.NonRepeaters)
			e.u16(p.MaxRepetitions)
		}
		for _, r := range p.Ranges {
			e.oid(r.Start, r.Include)
			e.oid(r.End, false)
		}
	case TypeTestSet, TypeNotify, TypeIndexAllocate, TypeIndexDeallocate:
		for _, vb := range p.VarBinds {
			e.varbind(vb)
		}
	case TypeAddAgentCaps:
		e.oid(p.ID, false)
		e.octets(p.Descr)
	case TypeRemoveAgentCaps:
		e.oid(p.ID, false)
	case TypeResponse:
		e.u32(p.SysUpTime)
		e.u16(uint16(p.Error))
		e.u16(p.Index)
		for _, vb := range p.VarBinds {
			e.varbind(vb)
		}
	}
	binary.BigEndian.PutUint32(e.b[16:20], uint32(len(e.b)-HeaderSize))
	return e.b, nil
}

// check finds what Encode cannot write.
func (p *PDU) check() error {
	if p.Type < TypeOpen || p.Type > TypeResponse {
		return parseErr("PDU type %d", uint8(p.Type))
	}
	oids := []OID{p.ID, p.Subtree}
	for _, r := range p.Ranges {
		oids = append(oids, r.Start, r.End)
	}
	for _, vb := range p.VarBinds {
		oids = append(oids, vb.Name, vb.Value)
		switch vb.Type {
		case Integer, Counter32, Gauge32, TimeTicks, Counter64, OctetString, Opaque, IPAddress, ObjectID,
			Null, NoSuchObject, NoSuchInstance, EndOfMibView:
		default:
			return parseErr("value type %d", vb.Type)
		}
	}
	for _, o := range oids {
		if len(o) > maxSubIDs {
			return parseErr("OID of %d sub-identifiers", len(o))
		}
	}
	return nil
}
