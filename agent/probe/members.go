package probe

import (
	"context"
	"fmt"
	"net/netip"
	"slices"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/mib"
)

// Member is one node as an agent's diagTree shows it to an operator
// (diagagent members): its status and since when, how the agent learned
// it, and, from the agent's newest event about it, who detected it and
// Member is what an agent says of one node: its diagTree row as the
// agent serves it (board.Row, the one type of a node's row), where its
// newest event came from, and the group it was notified lost with.
type Member struct {
	board.Row
	// Detector and Source are the NodeIDs of the newest event's detector
	// and of the agent it was read from; 0 when the table holds none.
	Detector, Source uint32
	// CauseGroup is nodeCauseGroup: the group the agent notified the node
	// lost with, 0 when it is out alone or not out.
	CauseGroup uint32
}

// Members is what an agent says of every node.
type Members struct {
	ListVersion uint32
	Uptime      uint32 // the agent's sysUpTime.0, in hundredths
	Nodes       []Member
}

// FetchMembers reads, for an operator, every diagTree row of the agent at
// t with sysUpTime.0 and diagNodeListVersion.0 in the first GETBULK, then
// its event table's node, detector and source columns, which say where
// each node's newest event came from.
func (p *Prober) FetchMembers(ctx context.Context, t Target) (Members, error) {
	var m Members
	pre := &nonRepeaters{oids: []string{mib.SysUpTime0[:len(mib.SysUpTime0)-2], mib.DiagNodeListVersion}, fn: func(vbs []gosnmp.SnmpPDU) error {
		up, ok := vbs[0].Value.(uint32)
		if vbs[0].Type != gosnmp.TimeTicks || !ok {
			return fmt.Errorf("%w: sysUpTime.0: %v", ErrMalformedReply, vbs[0].Value)
		}
		var err error
		m.Uptime = up
		m.ListVersion, err = unsignedValue(vbs[1])
		return err
	}}
	cols := []string{mib.NodeStatus, mib.NodeEventCounter, mib.NodeLastChange, mib.NodeHowLearned,
		mib.NodeAddrType, mib.NodeAddr, mib.NodePort, mib.NodeTestedOnly, mib.NodeMaintenanceUntil, mib.NodeMaintenanceStatus, mib.NodeFlapping}
	byID := map[uint32]int{}
	err := p.walkWith(ctx, t, pre, cols, 0, func(remaining int) int { return remaining },
		func(idx uint32, vbs []gosnmp.SnmpPDU) (bool, error) {
			n, err := decodeMember(idx, vbs[4:10])
			if err != nil {
				return true, err
			}
			row, err := decodeRow(idx, vbs[:2])
			if err != nil {
				return true, err
			}
			lc, ok := vbs[2].Value.(uint32)
			how, ok2 := vbs[3].Value.(int)
			if !ok || !ok2 {
				return true, fmt.Errorf("%w: node %d: nodeLastChange %v, nodeHowLearned %v", ErrMalformedReply, idx, vbs[2].Value, vbs[3].Value)
			}
			n.Status, n.Counter, n.LastChange, n.How, n.Flapping = row.Status, row.Counter, lc, mib.Source(how), vbs[10].Value == mib.TruthTrue
			byID[idx] = len(m.Nodes)
			m.Nodes = append(m.Nodes, Member{Row: n})
			return false, nil
		})
	if err != nil {
		return Members{}, fmt.Errorf("read the nodes of %s: %w", t.Addr, err)
	}
	err = p.walk(ctx, t, []string{mib.DiagEventNodeID, mib.DiagEventDetector, mib.DiagEventSource}, 0, func(remaining int) int { return remaining },
		func(_ uint32, vbs []gosnmp.SnmpPDU) (bool, error) {
			id, ok := vbs[0].Value.(int)
			det, ok2 := vbs[1].Value.(int)
			src, ok3 := vbs[2].Value.(int)
			if !ok || !ok2 || !ok3 {
				return true, fmt.Errorf("%w: event row: %v %v %v", ErrMalformedReply, vbs[0].Value, vbs[1].Value, vbs[2].Value)
			}
			if k, in := byID[uint32(id)]; in { // oldest first: the last one read is the newest
				m.Nodes[k].Detector, m.Nodes[k].Source = uint32(det), uint32(src)
			}
			return false, nil
		})
	if err != nil {
		return Members{}, fmt.Errorf("read the events of %s: %w", t.Addr, err)
	}
	p.fetchNames(ctx, t, func(idx uint32) *nodelist.Member {
		if k, in := byID[idx]; in {
			return &m.Nodes[k].Member
		}
		return nil
	})
	p.fetchCauses(ctx, t, func(idx, group uint32) {
		if k, in := byID[idx]; in {
			m.Nodes[k].CauseGroup = group
		}
	})
	return m, nil
}

// fetchCauses reads nodeCauseGroup into set, where the agent serves it; an
// agent of an older release has none, and that is no error.
func (p *Prober) fetchCauses(ctx context.Context, t Target, set func(idx, group uint32)) {
	_ = p.walk(ctx, t, []string{mib.NodeCauseGroup}, 0, func(remaining int) int { return remaining },
		func(idx uint32, vbs []gosnmp.SnmpPDU) (bool, error) {
			if g, err := unsignedValue(vbs[0]); err == nil {
				set(idx, g)
			}
			return false, nil
		})
}

// FetchNodes reads the agent's members alone, with their names: less than
// FetchMembers, for an operator's command waiting for a change to spread.
// The rows hold the node list's part of each row, no status.
func (p *Prober) FetchNodes(ctx context.Context, t Target) ([]board.Row, error) {
	var out []board.Row
	cols := []string{mib.NodeAddrType, mib.NodeAddr, mib.NodePort, mib.NodeTestedOnly, mib.NodeMaintenanceUntil, mib.NodeMaintenanceStatus}
	err := p.walk(ctx, t, cols, 0, func(remaining int) int { return remaining }, func(idx uint32, vbs []gosnmp.SnmpPDU) (bool, error) {
		n, err := decodeMember(idx, vbs)
		out = append(out, n)
		return err != nil, err
	})
	if err != nil {
		return nil, fmt.Errorf("read the nodes of %s: %w", t.Addr, err)
	}
	p.fetchNames(ctx, t, func(idx uint32) *nodelist.Member {
		k := slices.IndexFunc(out, func(n board.Row) bool { return n.ID == idx })
		if k < 0 {
			return nil
		}
		return &out[k].Member
	})
	return out, nil
}

// fetchNames reads the nodes' names and host names (nodeName, nodeHost)
// into the members of, where the agent serves them; an agent of an older
// format has none, and that is no error.
func (p *Prober) fetchNames(ctx context.Context, t Target, of func(idx uint32) *nodelist.Member) {
	_ = p.walk(ctx, t, []string{mib.NodeName, mib.NodeHost}, 0, func(remaining int) int { return remaining },
		func(idx uint32, vbs []gosnmp.SnmpPDU) (bool, error) {
			name, ok := vbs[0].Value.([]byte)
			host, ok2 := vbs[1].Value.([]byte)
			if n := of(idx); ok && ok2 && n != nil {
				n.Name = string(name)
				if _, err := netip.ParseAddr(string(host)); err != nil {
					n.Host = string(host)
				}
			}
			return false, nil
		})
}

// decodeMember reads one (nodeAddrType, nodeAddr, nodePort, nodeTestedOnly,
// nodeMaintenanceUntil, nodeMaintenanceStatus) row: the node list's part of
// the row.
func decodeMember(idx uint32, vbs []gosnmp.SnmpPDU) (board.Row, error) {
	m := board.Row{ID: idx}
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
	until, err := dateAndTimeValue(vbs[4])
	if err != nil || until.IsZero() {
		return m, err
	}
	w := &nodelist.Window{Until: until}
	if w.Status, err = statusValue(vbs[5]); err != nil {
		return m, err
	}
	m.Maint = w
	return m, nil
}
