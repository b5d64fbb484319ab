package snmp

// tlvSize is the size of a BER element with n content octets.
func tlvSize(n int) int {
	switch {
	case n < 0x80:
		return 2 + n
	case n < 0x100:
		return 3 + n
	case n < 0x10000:
		return 4 + n
	}
	return 5 + n
}

// base128Size is the number of octets of one OID sub-identifier.
func base128Size(n uint64) int {
	s := 1
	for n >= 0x80 {
		n >>= 7
		s++
	}
	return s
}

// oidContentSize is the content size of an encoded OBJECT IDENTIFIER.
func oidContentSize(o OID) int {
	switch len(o) {
	case 0:
		return 0
	case 1:
		return base128Size(uint64(o[0]) * 40)
	}
	s := base128Size(uint64(o[0])*40 + uint64(o[1]))
	for _, n := range o[2:] {
		s += base128Size(uint64(n))
	}
	return s
}

// intContentSize is the content size of a two's complement INTEGER.
func intContentSize(n int64) int {
	s := 1
	for n > 127 || n < -128 {
		n >>= 8
		s++
	}
	return s
}

// uintContentSize is the content size of an unsigned value (a leading zero
// octet keeps the top bit clear).
func uintContentSize(n uint64) int {
	s := 1
	for x := n; x > 0x7f; x >>= 8 {
		s++
	}
	return s
}

// vbSize is the encoded size of a varbind named name holding v.
func vbSize(name OID, v value) int {
	return tlvSize(tlvSize(oidContentSize(name)) + tlvSize(v.contentSize()))
}
