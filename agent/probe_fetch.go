package agent

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/mib"
)

// ErrBadRange is returned by FetchRows for a NodeID range outside 1..65535 or reversed.
var ErrBadRange = errors.New("agent: bad NodeID range")

// Row is one peer's diagTree entry as FetchRows reads it.
type Row struct {
	// ID is the NodeID (core id plus one).
	ID uint32
	// Status is the peer's nodeStatus for that node.
	Status mib.Status
	// Counter is the peer's nodeEventCounter for that node.
	Counter uint32
}

// FetchRows reads nodeStatus and nodeEventCounter of NodeIDs lo..hi from a
// peer, walking both columns together with GETBULK until past hi. Rows the
// peer does not have are absent; a reply of the wrong shape is an error.
func (p *Prober) FetchRows(ctx context.Context, t Target, lo, hi int) ([]Row, error) {
	if lo < 1 || hi < lo || hi > mib.MaxNodeID {
		return nil, fmt.Errorf("%w: %d..%d", ErrBadRange, lo, hi)
	}
	var rows []Row
	err := p.walk(ctx, t, []string{mib.NodeStatus, mib.NodeEventCounter}, uint32(lo-1),
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

// FetchNMS reads nmsID.0 and nmsIDCounter.0 from a peer.
func (p *Prober) FetchNMS(ctx context.Context, t Target) (netip.Addr, uint32, error) {
	if err := p.acquire(ctx); err != nil {
		return netip.Addr{}, 0, err
	}
	defer p.release()
	g, err := p.client(ctx, t)
	if err != nil {
		return netip.Addr{}, 0, err
	}
	defer g.Conn.Close()
	pkt, err := g.Get([]string{mib.NMSID0, mib.NMSIDCounter0})
	if err != nil {
		return netip.Addr{}, 0, fmt.Errorf("fetch nms from %s: %w", t.Addr, err)
	}
	if pkt.Error != gosnmp.NoError || len(pkt.Variables) != 2 ||
		!sameOID(pkt.Variables[0].Name, mib.NMSID0) || !sameOID(pkt.Variables[1].Name, mib.NMSIDCounter0) {
		return netip.Addr{}, 0, fmt.Errorf("fetch nms from %s: %w: error-status %v, %d varbinds",
			t.Addr, ErrMalformedReply, pkt.Error, len(pkt.Variables))
	}
	addr, err := ipValue(pkt.Variables[0])
	if err != nil {
		return netip.Addr{}, 0, fmt.Errorf("fetch nms from %s: %w", t.Addr, err)
	}
	ctr, err := unsignedValue(pkt.Variables[1])
	if err != nil {
		return netip.Addr{}, 0, fmt.Errorf("fetch nms from %s: %w", t.Addr, err)
	}
	return addr, ctr, nil
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
