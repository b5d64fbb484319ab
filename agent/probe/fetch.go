package probe

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// ErrBadRange is returned by FetchRows for a NodeID range outside 1..65535 or reversed.
var ErrBadRange = errors.New("probe: bad NodeID range")

// Row is one peer's diagTree entry as FetchRows reads it.
type Row struct {
	// ID is the NodeID (core id plus one).
	ID uint32
	// Status is the peer's nodeStatus for that node.
	Status hiadsd.Status
	// Counter is the peer's nodeEventCounter for that node.
	Counter uint32
}

// FetchRows reads nodeStatus and nodeEventCounter of NodeIDs lo..hi from a
// peer, walking both columns together with GETBULK until past hi. Rows the
// peer does not have are absent; a reply of the wrong shape is an error.
func (p *Prober) FetchRows(ctx context.Context, t Target, lo, hi int) ([]Row, error) {
	return p.fetchRows(ctx, t, lo, hi, nil)
}

// fetchRows is FetchRows whose first request also reads pre.
func (p *Prober) fetchRows(ctx context.Context, t Target, lo, hi int, pre *nonRepeaters) ([]Row, error) {
	if lo < 1 || hi < lo || hi > mib.MaxNodeID {
		return nil, fmt.Errorf("%w: %d..%d", ErrBadRange, lo, hi)
	}
	var rows []Row
	err := p.walkWith(ctx, t, pre, []string{mib.NodeStatus, mib.NodeEventCounter}, uint32(lo-1),
		func(remaining int) int { return min(hi-int(lastID(rows, lo-1)), remaining) },
		func(idx uint32, vbs []gosnmp.SnmpPDU) (bool, error) {
			if idx > uint32(hi) {
				return true, nil
			}
			row, err := decodeRow(idx, vbs)
			if err != nil {
				return true, err
			}
			rows = append(rows, row)
			return idx == uint32(hi), nil
		})
	if err != nil {
		return nil, fmt.Errorf("fetch rows %d..%d from %s: %w", lo, hi, t.Addr, err)
	}
	return rows, nil
}

// lastID is the NodeID of the last row read, or from when there is none.
func lastID(rows []Row, from int) uint32 {
	if len(rows) == 0 {
		return uint32(from)
	}
	return rows[len(rows)-1].ID
}

// decodeRow reads one (nodeStatus, nodeEventCounter) pair.
func decodeRow(idx uint32, vbs []gosnmp.SnmpPDU) (Row, error) {
	st, err := statusValue(vbs[0])
	if err != nil {
		return Row{}, err
	}
	ctr, err := unsignedValue(vbs[1])
	if err != nil {
		return Row{}, err
	}
	return Row{ID: idx, Status: st, Counter: ctr}, nil
}

// Fetched is what one read of a peer's diagnosis brings: the station it
// holds and its rows.
type Fetched struct {
	Station hiadsd.Station
	// NodeListHash is the peer's diagNodeListHash; nil from a peer that
	// serves none (an older agent).
	NodeListHash []byte
	// ListVersion is the peer's diagNodeListVersion; 0 from a peer that
	// serves none, whose list is the file it started from.
	ListVersion uint32
	Rows        []Row
}

// FetchDiagnosis reads a peer's station (nmsID.0 and nmsIDCounter.0), the
// fingerprint of its node list (diagNodeListHash.0) and its rows lo..hi in
// the same walk: the first GETBULK carries the three objects as
// non-repeaters, so they cost no round trip of their own.
func (p *Prober) FetchDiagnosis(ctx context.Context, t Target, lo, hi int) (Fetched, error) {
	var f Fetched
	pre := &nonRepeaters{oids: []string{mib.NMSID, mib.NMSIDCounter, mib.DiagNodeListHash, mib.DiagNodeListVersion}, fn: func(vbs []gosnmp.SnmpPDU) error {
		if !sameOID(vbs[0].Name, mib.NMSID0) || !sameOID(vbs[1].Name, mib.NMSIDCounter0) {
			return fmt.Errorf("%w: station objects answered as %s and %s", ErrMalformedReply, vbs[0].Name, vbs[1].Name)
		}
		var err error
		if f.Station.Addr, err = ipValue(vbs[0]); err != nil {
			return err
		}
		if f.Station.Counter, err = unsignedValue(vbs[1]); err != nil {
			return err
		}
		f.NodeListHash, f.ListVersion, err = listFingerprint(vbs[2:])
		return err
	}}
	rows, err := p.fetchRows(ctx, t, lo, hi, pre)
	f.Rows = rows
	return f, err
}

// listFingerprint reads the answers to diagNodeListHash and
// diagNodeListVersion sent as non-repeaters: nil and 0 from a peer that
// serves neither, a version only beside a fingerprint.
func listFingerprint(vbs []gosnmp.SnmpPDU) ([]byte, uint32, error) {
	if !sameOID(vbs[0].Name, mib.DiagNodeListHash0) {
		return nil, 0, nil
	}
	b, ok := vbs[0].Value.([]byte)
	if vbs[0].Type != gosnmp.OctetString || !ok || len(b) != 8 {
		return nil, 0, fmt.Errorf("%w: diagNodeListHash.0 is not 8 octets: %v", ErrMalformedReply, vbs[0].Value)
	}
	if !sameOID(vbs[1].Name, mib.DiagNodeListVersion0) {
		return b, 0, nil
	}
	v, err := unsignedValue(vbs[1])
	return b, v, err
}

// columnIndex returns the single-arc index of name under column col.
func columnIndex(name, col string) (uint32, bool, error) {
	rest, ok := strings.CutPrefix(strings.TrimPrefix(name, "."), strings.TrimPrefix(col, ".")+".")
	if !ok {
		return 0, false, nil
	}
	idx, err := strconv.ParseUint(rest, 10, 32)
	if err != nil {
		return 0, true, fmt.Errorf("%w: %s: index is not one unsigned arc", ErrMalformedReply, name)
	}
	return uint32(idx), true, nil
}
