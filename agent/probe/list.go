package probe

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// ListMember is one row of a peer's node list as FetchList reads it.
type ListMember struct {
	ID         uint32 // nodeID
	Addr       netip.Addr
	Port       uint16
	TestedOnly bool
	// MaintUntil is the end of the node's maintenance window, zero when
	// it has none; MaintStatus the status it had when the window began.
	MaintUntil  time.Time
	MaintStatus hiadsd.Status
}

// List is a peer's node list: its version, fingerprint, the ids it has
// given (diagNodeListIDs) and its rows; an id below IDs with no row was
// removed.
type List struct {
	Version uint32
	Hash    []byte
	IDs     uint32
	Members []ListMember
	// Keys are the peer's diagKeyTable rows, read when this prober speaks
	// SNMPv3 (the table is served to the cluster's users only).
	Keys []Key
}

// Key is one row of a peer's diagKeyTable: a cluster key by its index.
type Key struct {
	Index   uint32
	Primary bool
	Value   []byte
}

// FetchList reads a peer's node list: diagNodeListHash, diagNodeListVersion
// and diagNodeListIDs as non-repeaters of the first GETBULK, then the
// address, port, tested-only and maintenance columns of every diagTree row.
func (p *Prober) FetchList(ctx context.Context, t Target) (List, error) {
	var l List
	pre := &nonRepeaters{oids: []string{mib.DiagNodeListHash, mib.DiagNodeListVersion, mib.DiagNodeListIDs}, fn: func(vbs []gosnmp.SnmpPDU) error {
		var err error
		if l.Hash, l.Version, err = listFingerprint(vbs); err != nil {
			return err
		}
		if l.Hash == nil || !sameOID(vbs[2].Name, mib.DiagNodeListIDs0) {
			return fmt.Errorf("%w: the peer serves no node list version", ErrMalformedReply)
		}
		l.IDs, err = unsignedValue(vbs[2])
		return err
	}}
	cols := []string{mib.NodeAddrType, mib.NodeAddr, mib.NodePort, mib.NodeTestedOnly, mib.NodeMaintenanceUntil, mib.NodeMaintenanceStatus}
	err := p.walkWith(ctx, t, pre, cols, 0, func(remaining int) int { return remaining },
		func(idx uint32, vbs []gosnmp.SnmpPDU) (bool, error) {
			m, err := decodeMember(idx, vbs)
			if err != nil {
				return true, err
			}
			l.Members = append(l.Members, m)
			return false, nil
		})
	if err == nil && p.users.Load() != nil && !t.TestedOnly && t.Community == "" {
		l.Keys, err = p.FetchKeys(ctx, t)
	}
	if err != nil {
		return List{}, fmt.Errorf("read the node list of %s: %w", t.Addr, err)
	}
	return l, nil
}

// FetchKeys reads a peer's diagKeyTable: the cluster keys it runs, which
// it serves to the cluster's users alone (none to anyone else).
func (p *Prober) FetchKeys(ctx context.Context, t Target) ([]Key, error) {
	var out []Key
	err := p.walk(ctx, t, []string{mib.DiagKeyPrimary, mib.DiagKeyValue}, 0, func(remaining int) int { return remaining },
		func(idx uint32, vbs []gosnmp.SnmpPDU) (bool, error) {
			primary, ok := vbs[0].Value.(int)
			v, ok2 := vbs[1].Value.([]byte)
			if !ok || !ok2 || (primary != mib.TruthTrue && primary != mib.TruthFalse) || len(v) != 32 || len(out) >= maxKeys {
				return true, fmt.Errorf("%w: diagKeyTable row %d: %v, %d octets", ErrMalformedReply, idx, vbs[0].Value, len(v))
			}
			out = append(out, Key{Index: idx, Primary: primary == mib.TruthTrue, Value: v})
			return false, nil
		})
	if err != nil {
		return nil, fmt.Errorf("read the keys of %s: %w", t.Addr, err)
	}
	return out, nil
}

// maxKeys bounds the keys a peer's table may list: a keyring is a few
// keys during a rotation, never hundreds.
const maxKeys = 64

// decodeMember reads one (nodeAddrType, nodeAddr, nodePort, nodeTestedOnly,
// nodeMaintenanceUntil, nodeMaintenanceStatus) row.
func decodeMember(idx uint32, vbs []gosnmp.SnmpPDU) (ListMember, error) {
	m := ListMember{ID: idx}
	b, ok := vbs[1].Value.([]byte)
	a, ok2 := netip.AddrFromSlice(b)
	if !ok || !ok2 {
		return m, fmt.Errorf("%w: nodeAddr.%d is not an address: %v", ErrMalformedReply, idx, vbs[1].Value)
	}
	port, err := unsignedValue(vbs[2])
	if err != nil || port < 1 || port > 65535 {
		return m, fmt.Errorf("%w: nodePort.%d: %v", ErrMalformedReply, idx, vbs[2].Value)
	}
	to, ok := vbs[3].Value.(int)
	if !ok || (to != mib.TruthTrue && to != mib.TruthFalse) {
		return m, fmt.Errorf("%w: nodeTestedOnly.%d: %v", ErrMalformedReply, idx, vbs[3].Value)
	}
	m.Addr, m.Port, m.TestedOnly = a.Unmap(), uint16(port), to == mib.TruthTrue
	if m.MaintUntil, err = dateAndTimeValue(vbs[4]); err != nil {
		return m, err
	}
	if !m.MaintUntil.IsZero() {
		if m.MaintStatus, err = statusValue(vbs[5]); err != nil {
			return m, err
		}
	}
	return m, nil
}
