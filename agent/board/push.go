package board

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// Push is the value of diagPush: entries of the sender's view pushed down
// the vCube tree (hiadsd.Push), with the sender, the cluster of its tree
// the receiver sits in, and the node list both must run.
//
// On the wire it is one OCTET STRING: a format octet (1), the sender's
// NodeID (2 octets), the cluster (1), diagNodeListVersion (4) and
// diagNodeListHash (8), then 7 octets per entry: NodeID (2), nodeStatus (1,
// the MIB's DiagStatus)
// and nodeEventCounter (4), every number big-endian.
type Push struct {
	From        uint32
	Cluster     uint8
	ListVersion uint32
	ListHash    [8]byte
	Entries     []PushEntry
}

// PushEntry is one diagTree row carried by a push.
type PushEntry struct {
	NodeID  uint32
	Status  hiadsd.Status
	Counter uint32
}

// Sizes of a push on the wire.
const (
	pushHeader = 16
	pushEntry  = 7
	// MaxPushEntries keeps a push within one 1,400-octet datagram.
	MaxPushEntries = (1400 - pushHeader) / pushEntry
)

// Errors ParsePush wraps: a length no push has, and a field out of range.
var (
	ErrPushLength = errors.New("diagPush: bad length")
	ErrPushValue  = errors.New("diagPush: bad value")
)

// MarshalPush encodes p; it fails for more than MaxPushEntries entries or a
// NodeID or status the MIB cannot carry.
func MarshalPush(p Push) ([]byte, error) {
	if len(p.Entries) > MaxPushEntries {
		return nil, fmt.Errorf("%w: %d entries, at most %d", ErrPushLength, len(p.Entries), MaxPushEntries)
	}
	if p.From < 1 || p.From > mib.MaxNodeID {
		return nil, fmt.Errorf("%w: sender %d", ErrPushValue, p.From)
	}
	b := make([]byte, pushHeader, pushHeader+pushEntry*len(p.Entries))
	b[0], b[3] = 1, p.Cluster
	binary.BigEndian.PutUint16(b[1:], uint16(p.From))
	binary.BigEndian.PutUint32(b[4:], p.ListVersion)
	copy(b[8:], p.ListHash[:])
	for _, e := range p.Entries {
		if e.NodeID < 1 || e.NodeID > mib.MaxNodeID || !e.Status.Valid() {
			return nil, fmt.Errorf("%w: entry %+v", ErrPushValue, e)
		}
		b = binary.BigEndian.AppendUint16(b, uint16(e.NodeID))
		b = append(b, byte(mib.DiagStatus(e.Status)))
		b = binary.BigEndian.AppendUint32(b, e.Counter)
	}
	return b, nil
}

// ParsePush decodes a diagPush value; the result shares nothing with b.
func ParsePush(b []byte) (Push, error) {
	if len(b) < pushHeader || (len(b)-pushHeader)%pushEntry != 0 || (len(b)-pushHeader)/pushEntry > MaxPushEntries {
		return Push{}, fmt.Errorf("%w: %d octets", ErrPushLength, len(b))
	}
	p := Push{From: uint32(binary.BigEndian.Uint16(b[1:])), Cluster: b[3], ListVersion: binary.BigEndian.Uint32(b[4:])}
	copy(p.ListHash[:], b[8:16])
	if b[0] != 1 || p.From == 0 || p.Cluster == 0 {
		return Push{}, fmt.Errorf("%w: format %d, sender %d, cluster %d", ErrPushValue, b[0], p.From, p.Cluster)
	}
	for rest := b[pushHeader:]; len(rest) > 0; rest = rest[pushEntry:] {
		st, err := mib.StatusOf(int(rest[2]))
		e := PushEntry{NodeID: uint32(binary.BigEndian.Uint16(rest)), Status: st, Counter: binary.BigEndian.Uint32(rest[3:])}
		if e.NodeID == 0 || err != nil {
			return Push{}, fmt.Errorf("%w: entry %+v, status %d", ErrPushValue, e, rest[2])
		}
		p.Entries = append(p.Entries, e)
	}
	return p, nil
}
