package snmp

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ErrBadOID is returned when a dotted object identifier cannot be parsed.
var ErrBadOID = errors.New("snmp: malformed object identifier")

// OID is an object identifier as a slice of sub-identifiers; order is the
// lexicographic order SNMP walks in (slices.Compare).
type OID []uint32

// ParseOID parses the dotted form ("1.3.6" or ".1.3.6") that gosnmp uses.
func ParseOID(s string) (OID, error) {
	s = strings.TrimPrefix(s, ".")
	if s == "" {
		return OID{}, nil
	}
	o := make(OID, 0, strings.Count(s, ".")+1)
	for part := range strings.SplitSeq(s, ".") {
		n, err := strconv.ParseUint(part, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("%w: %q", ErrBadOID, s)
		}
		o = append(o, uint32(n))
	}
	return o, nil
}

// mustOID parses a constant OID; it panics on a programming error only.
func mustOID(s string) OID {
	o, err := ParseOID(s)
	if err != nil {
		panic(err)
	}
	return o
}

// String returns the dotted form with a leading dot, as gosnmp expects.
func (o OID) String() string {
	b := make([]byte, 0, len(o)*4)
	for _, n := range o {
		b = append(b, '.')
		b = strconv.AppendUint(b, uint64(n), 10)
	}
	return string(b)
}

// Child returns a new OID made of o followed by sub.
func (o OID) Child(sub ...uint32) OID {
	c := make(OID, 0, len(o)+len(sub))
	return append(append(c, o...), sub...)
}

// HasPrefix reports whether p is a prefix of o (or equal to it).
func (o OID) HasPrefix(p OID) bool {
	return len(o) >= len(p) && slices.Equal(o[:len(p)], p)
}

// Compare orders o and p lexicographically: -1, 0 or +1.
func (o OID) Compare(p OID) int {
	return slices.Compare(o, p)
}
