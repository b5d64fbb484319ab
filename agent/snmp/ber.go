package snmp

import (
	"errors"
	"fmt"
)

// ErrMalformed is wrapped by every error about an undecodable datagram.
var ErrMalformed = errors.New("snmp: malformed SNMP message")

// BER tags the header reader needs.
const (
	tagInteger    = 0x02
	tagOctets     = 0x04
	tagSequence   = 0x30
	tagSetRequest = 0xa3
)

// tlv is one decoded BER element: its tag and the bounds of its contents in
// the datagram.
type tlv struct {
	tag        byte
	start, end int
}

// readTLV decodes the element starting at off in b, which must fit in b
// (definite lengths of up to four octets only).
func readTLV(b []byte, off int) (tlv, error) {
	if off+2 > len(b) {
		return tlv{}, fmt.Errorf("%w: truncated at offset %d", ErrMalformed, off)
	}
	t := tlv{tag: b[off]}
	n, pos := int(b[off+1]), off+2
	if n&0x80 != 0 {
		k := n & 0x7f
		if k == 0 || k > 4 || pos+k > len(b) {
			return tlv{}, fmt.Errorf("%w: bad length at offset %d", ErrMalformed, off)
		}
		n = 0
		for _, c := range b[pos : pos+k] {
			n = n<<8 | int(c)
		}
		pos += k
	}
	if n < 0 || n > len(b)-pos {
		return tlv{}, fmt.Errorf("%w: length %d overruns the datagram at offset %d", ErrMalformed, n, off)
	}
	t.start, t.end = pos, pos+n
	return t, nil
}

// expect reads the element at off and checks its tag.
func expect(b []byte, off int, tag byte) (tlv, error) {
	t, err := readTLV(b, off)
	if err != nil {
		return t, err
	}
	if t.tag != tag {
		return t, fmt.Errorf("%w: tag 0x%02x at offset %d, want 0x%02x", ErrMalformed, t.tag, off, tag)
	}
	return t, nil
}

// readInt reads an INTEGER at off that must fit in 32 bits signed.
func readInt(b []byte, off int) (int64, tlv, error) {
	v, t, err := readPaddedInt(b, off)
	if err == nil && !minimalInt(b[t.start:t.end]) {
		return 0, t, fmt.Errorf("%w: integer with padding octets at offset %d", ErrMalformed, off)
	}
	return v, t, err
}

// readPaddedInt is readInt that also takes INTEGER contents with padding
// octets, which X.690 forbids, for the one place a common client writes them:
// gosnmp, which most Go tools and our own prober use, writes an SNMPv3 msgID
// in four octets whatever its value, and refusing that would refuse them.
func readPaddedInt(b []byte, off int) (int64, tlv, error) {
	t, err := expect(b, off, tagInteger)
	if err != nil {
		return 0, t, err
	}
	if t.end == t.start || t.end-t.start > 5 {
		return 0, t, fmt.Errorf("%w: integer of %d octets at offset %d", ErrMalformed, t.end-t.start, off)
	}
	v := int64(int8(b[t.start]))
	for _, c := range b[t.start+1 : t.end] {
		v = v<<8 | int64(c)
	}
	if v < -1<<31 || v > 1<<31-1 {
		return 0, t, fmt.Errorf("%w: integer out of range at offset %d", ErrMalformed, off)
	}
	return v, t, nil
}

// messageVersion reads the msgVersion of a whole SNMP message; the outer
// sequence must span the datagram exactly.
func messageVersion(b []byte) (int64, int, error) {
	outer, err := expect(b, 0, tagSequence)
	if err != nil {
		return 0, 0, err
	}
	if outer.end != len(b) {
		return 0, 0, fmt.Errorf("%w: message is %d octets, datagram %d", ErrMalformed, outer.end, len(b))
	}
	v, t, err := readInt(b, outer.start)
	return v, t.end, err
}

// communitySet reports whether the SNMPv1/v2c message b, whose version ends
// at off, carries a SetRequest: its community is followed by the tag 0xa3.
// It decodes nothing else; a malformed message says false and is refused
// where it is answered.
func communitySet(b []byte, off int) bool {
	c, err := expect(b, off, tagOctets)
	return err == nil && c.end < len(b) && b[c.end] == tagSetRequest
}

// minimalInt reports whether INTEGER contents c use the fewest octets
// (X.690 8.3.2): the first nine bits are neither all zeros nor all ones.
func minimalInt(c []byte) bool {
	return len(c) < 2 || !(c[0] == 0x00 && c[1]&0x80 == 0 || c[0] == 0xff && c[1]&0x80 != 0)
}
