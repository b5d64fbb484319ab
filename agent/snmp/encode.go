package snmp

import (
	"github.com/gosnmp/gosnmp"
)

// appendHeader appends a BER tag and definite length.
func appendHeader(dst []byte, tag byte, n int) []byte {
	switch {
	case n < 0x80:
		return append(dst, tag, byte(n))
	case n < 0x100:
		return append(dst, tag, 0x81, byte(n))
	case n < 0x10000:
		return append(dst, tag, 0x82, byte(n>>8), byte(n))
	}
	return append(dst, tag, 0x83, byte(n>>16), byte(n>>8), byte(n))
}

// appendInt appends a two's complement INTEGER-like element.
func appendInt(dst []byte, tag byte, n int64) []byte {
	k := intContentSize(n)
	dst = append(dst, tag, byte(k))
	for i := k - 1; i >= 0; i-- {
		dst = append(dst, byte(n>>(8*i)))
	}
	return dst
}

// appendUint appends an unsigned element (Counter32, Gauge32, TimeTicks, Counter64).
func appendUint(dst []byte, tag byte, n uint64) []byte {
	k := uintContentSize(n)
	dst = append(dst, tag, byte(k))
	for i := k - 1; i >= 0; i-- {
		if i >= 8 {
			dst = append(dst, 0)
			continue
		}
		dst = append(dst, byte(n>>(8*i)))
	}
	return dst
}

// appendBase128 appends one sub-identifier in base 128.
func appendBase128(dst []byte, n uint64) []byte {
	k := base128Size(n)
	for i := k - 1; i > 0; i-- {
		dst = append(dst, byte(n>>(7*i))|0x80)
	}
	return append(dst, byte(n&0x7f))
}

// appendOID appends an OBJECT IDENTIFIER element.
func appendOID(dst []byte, o OID) []byte {
	dst = appendHeader(dst, byte(gosnmp.ObjectIdentifier), oidContentSize(o))
	switch len(o) {
	case 0:
		return dst
	case 1:
		return appendBase128(dst, uint64(o[0])*40)
	}
	dst = appendBase128(dst, uint64(o[0])*40+uint64(o[1]))
	for _, n := range o[2:] {
		dst = appendBase128(dst, uint64(n))
	}
	return dst
}

// appendVarbind appends one varbind.
func appendVarbind(dst []byte, vb varbind) []byte {
	dst = appendHeader(dst, tagSequence, tlvSize(oidContentSize(vb.name))+tlvSize(vb.val.contentSize()))
	return vb.val.appendTo(appendOID(dst, vb.name))
}

// varbindsSize is the encoded size of a varbind list's contents.
func varbindsSize(vbs []varbind) int {
	n := 0
	for _, vb := range vbs {
		n += vbSize(vb.name, vb.val)
	}
	return n
}

// appendCommunityResponse appends a whole SNMPv1/v2c Response message.
func appendCommunityResponse(dst []byte, p *pdu, out *outcome) []byte {
	vbl := varbindsSize(out.vars)
	body := intTLVSize(int64(p.reqID)) + intTLVSize(int64(out.status)) + intTLVSize(int64(out.index)) + tlvSize(vbl)
	msg := intTLVSize(int64(p.version)) + tlvSize(len(p.community)) + tlvSize(body)
	dst = appendHeader(dst, tagSequence, msg)
	dst = appendInt(dst, tagInteger, int64(p.version))
	dst = append(appendHeader(dst, tagOctets, len(p.community)), p.community...)
	dst = appendHeader(dst, byte(gosnmp.GetResponse), body)
	dst = appendInt(dst, tagInteger, int64(p.reqID))
	dst = appendInt(dst, tagInteger, int64(out.status))
	dst = appendInt(dst, tagInteger, int64(out.index))
	dst = appendHeader(dst, tagSequence, vbl)
	for _, vb := range out.vars {
		dst = appendVarbind(dst, vb)
	}
	return dst
}

// intTLVSize is the size of an encoded INTEGER element.
func intTLVSize(n int64) int { return 2 + intContentSize(n) }
