package mib

import (
	"encoding/binary"
	"fmt"
)

// EncodeNodeIDs is a list of NodeIDs as diagUnreached carries it: two
// octets each, in network byte order.
func EncodeNodeIDs(ids []uint32) []byte {
	b := make([]byte, 0, 2*len(ids))
	for _, id := range ids {
		b = binary.BigEndian.AppendUint16(b, uint16(id))
	}
	return b
}

// ParseNodeIDs reads a list EncodeNodeIDs wrote: an even length, NodeIDs
// from 1 up, ascending.
func ParseNodeIDs(b []byte) ([]uint32, error) {
	if len(b)%2 != 0 {
		return nil, fmt.Errorf("a list of NodeIDs of %d octets: want two octets each", len(b))
	}
	out := make([]uint32, 0, len(b)/2)
	for k := 0; k < len(b); k += 2 {
		id := uint32(binary.BigEndian.Uint16(b[k:]))
		if id == 0 || len(out) > 0 && id <= out[len(out)-1] {
			return nil, fmt.Errorf("a list of NodeIDs holding %d after %v: want NodeIDs from 1, ascending", id, out)
		}
		out = append(out, id)
	}
	return out, nil
}
