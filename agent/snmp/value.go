package snmp

import (
	"net/netip"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/mib"
)

// value is one object instance's value. It is a plain struct rather than an
// interface so that serving a value never allocates: num holds every integer
// type (Integer as two's complement) and IpAddress, str or raw an OCTET STRING,
// oid an OBJECT IDENTIFIER.
type value struct {
	typ gosnmp.Asn1BER
	num uint64
	str string
	raw []byte
	oid OID
	bad bool // decoded from a request with a length its type does not allow
}

// Value constructors for the types the MIB uses.
func str(s string) value       { return value{typ: gosnmp.OctetString, str: s} }
func octets(b []byte) value    { return value{typ: gosnmp.OctetString, raw: b} }
func integer(n int) value      { return value{typ: gosnmp.Integer, num: uint64(int64(n))} }
func gauge(n uint32) value     { return value{typ: gosnmp.Gauge32, num: uint64(n)} }
func counter32(n uint64) value { return value{typ: gosnmp.Counter32, num: uint64(uint32(n))} }
func ticks(n uint32) value     { return value{typ: gosnmp.TimeTicks, num: uint64(n)} }
func objectID(o OID) value     { return value{typ: gosnmp.ObjectIdentifier, oid: o} }

// ipAddr holds an IPv4 address; anything else reads as 0.0.0.0.
func ipAddr(a netip.Addr) value {
	a4 := mib.NodeADOf(a).As4()
	return value{typ: gosnmp.IPAddress, num: uint64(a4[0])<<24 | uint64(a4[1])<<16 | uint64(a4[2])<<8 | uint64(a4[3])}
}

// signed reports whether the value is an INTEGER (two's complement).
func (v value) signed() bool { return v.typ == gosnmp.Integer }

// int returns an INTEGER value as an int.
func (v value) int() int { return int(int64(v.num)) }

// addr returns an IpAddress value as an address.
func (v value) addr() netip.Addr {
	n := v.num
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)})
}

// octetString returns the contents of an OCTET STRING value.
func (v value) octetString() []byte {
	if v.raw != nil {
		return v.raw
	}
	return []byte(v.str)
}

// contentSize is the content size of the encoded value.
func (v value) contentSize() int {
	switch v.typ {
	case gosnmp.Integer:
		return intContentSize(int64(v.num))
	case gosnmp.Counter32, gosnmp.Gauge32, gosnmp.TimeTicks, gosnmp.Counter64:
		return uintContentSize(v.num)
	case gosnmp.IPAddress:
		if v.bad {
			return len(v.raw)
		}
		return 4
	case gosnmp.ObjectIdentifier:
		return oidContentSize(v.oid)
	case gosnmp.OctetString, gosnmp.Opaque:
		return len(v.str) + len(v.raw)
	}
	return 0
}

// appendTo appends the encoded value.
func (v value) appendTo(dst []byte) []byte {
	tag := byte(v.typ)
	switch v.typ {
	case gosnmp.Integer:
		return appendInt(dst, tag, int64(v.num))
	case gosnmp.Counter32, gosnmp.Gauge32, gosnmp.TimeTicks, gosnmp.Counter64:
		return appendUint(dst, tag, v.num)
	case gosnmp.IPAddress:
		if v.bad { // echoed as the request had it
			return append(appendHeader(dst, tag, len(v.raw)), v.raw...)
		}
		n := v.num
		return append(dst, tag, 4, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	case gosnmp.ObjectIdentifier:
		return appendOID(dst, v.oid)
	case gosnmp.OctetString, gosnmp.Opaque:
		dst = appendHeader(dst, tag, len(v.str)+len(v.raw))
		return append(append(dst, v.str...), v.raw...)
	}
	return append(dst, tag, 0)
}

// gosnmpValue converts the value to gosnmp's representation for its encoder.
func (v value) gosnmpValue() any {
	switch v.typ {
	case gosnmp.Integer:
		return v.int()
	case gosnmp.Counter32, gosnmp.Gauge32, gosnmp.TimeTicks:
		return uint32(v.num)
	case gosnmp.Counter64:
		return v.num
	case gosnmp.IPAddress:
		return v.addr().String()
	case gosnmp.ObjectIdentifier:
		return v.oid.String()
	case gosnmp.OctetString, gosnmp.Opaque:
		return v.octetString()
	}
	return nil
}

// valueFromGosnmp converts a value decoded by gosnmp (SNMPv3 requests).
func valueFromGosnmp(p gosnmp.SnmpPDU) value {
	v := value{typ: p.Type}
	switch x := p.Value.(type) {
	case int:
		v.num = uint64(int64(x))
	case uint:
		v.num = uint64(x)
	case uint32:
		v.num = uint64(x)
	case uint64:
		v.num = x
	case []byte:
		v.raw = x
	case string:
		v.fromGosnmpString(x)
	case nil:
		v.bad = p.Type == gosnmp.IPAddress
	}
	return v
}

// fromGosnmpString reads the string forms gosnmp decodes IpAddress and OIDs to.
func (v *value) fromGosnmpString(s string) {
	switch v.typ {
	case gosnmp.IPAddress:
		a, err := netip.ParseAddr(s)
		if v.bad = err != nil || !a.Is4(); !v.bad {
			*v = ipAddr(a)
		}
	case gosnmp.ObjectIdentifier:
		o, err := ParseOID(s)
		v.oid, v.bad = o, err != nil
	default:
		v.str = s
	}
}
