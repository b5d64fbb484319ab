package traps

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"slices"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// SNMPv1 trap fields (RFC 3584, section 3.2): the DIAGNOSIS-MIB's
// notifications are enterprise-specific; coldStart and
// authenticationFailure are generic traps 0 and 4 of the agent's
// sysObjectID, the DIAGNOSIS-MIB root.
const (
	v1Enterprise        = mib.DiagNotifications
	v1SysObjectID       = ".1.3.6.1.4.1.200"
	v1GenericSpecific   = 6
	v1ColdStart         = 0
	v1AuthFailure       = 4
	specificStatus      = 1
	specificNMS         = 2
	specificList        = 3
	specificListChange  = 4
	specificKeyRefused  = 5
	specificFlapping    = 6
	specificMaintenance = 7
	specificConflict    = 8
	specificCause       = 9
)

// causeStatuses bounds the nodeStatus varbinds of one diagCauseChange:
// 32 of them and the cause's own objects make about 900 octets, within
// the 1,472 an Ethernet frame carries and the 484 every SNMP engine must
// accept only when fewer; diagCauseNodeList names every node anyway.
const causeStatuses = 32

// notification is a queued message: what to send, not yet where or when.
type notification struct {
	oid      string           // the NOTIFICATION-TYPE
	generic  int              // the v1 generic-trap: v1GenericSpecific unless a standard trap
	specific int              // the v1 specific-trap: its last arc, 0 for a standard trap
	vars     []gosnmp.SnmpPDU // the varbinds after sysUpTime.0 and snmpTrapOID.0
	label    string           // a short description for logs
}

// statusChange builds the diagNodeStatusChange notification of an event.
func statusChange(e mib.Event) notification {
	cell := func(col int) string { return mib.EventCell(col, e.Seq) }
	return notification{
		oid:      mib.DiagNodeStatusChange,
		generic:  v1GenericSpecific,
		specific: specificStatus,
		label:    fmt.Sprintf("diagNodeStatusChange seq=%d node=%d", e.Seq, e.NodeID),
		vars: slices.Concat([]gosnmp.SnmpPDU{
			{Name: cell(mib.ColEventNodeID), Type: gosnmp.Integer, Value: int(e.NodeID)},
			{Name: mib.TreeCell(mib.ColNodeAD, int(e.NodeID)), Type: gosnmp.IPAddress, Value: mib.NodeADOf(e.Addr).String()},
			{Name: cell(mib.ColEventStatus), Type: gosnmp.Integer, Value: mib.DiagStatus(e.Status)},
			{Name: cell(mib.ColEventPrevStatus), Type: gosnmp.Integer, Value: mib.DiagStatus(e.Prev)},
			{Name: cell(mib.ColEventCounter), Type: gosnmp.Gauge32, Value: uint(e.Counter)},
			{Name: cell(mib.ColEventHowLearned), Type: gosnmp.Integer, Value: int(e.How)},
			{Name: cell(mib.ColEventDetector), Type: gosnmp.Integer, Value: int(e.Detector)},
			{Name: cell(mib.ColEventSource), Type: gosnmp.Integer, Value: int(e.Source)},
		}, addrVars(e.NodeID, e.Addr), []gosnmp.SnmpPDU{
			{Name: cell(mib.ColEventTime), Type: gosnmp.OctetString, Value: dateAndTime(e.Time)},
		}),
	}
}

// nmsChange builds the diagNMSChange notification.
func nmsChange(c hiadsd.Station) notification {
	return notification{
		oid:      mib.DiagNMSChange,
		generic:  v1GenericSpecific,
		specific: specificNMS,
		label:    fmt.Sprintf("diagNMSChange station=%v counter=%d", c.Addr, c.Counter),
		vars: []gosnmp.SnmpPDU{
			{Name: mib.NMSID0, Type: gosnmp.IPAddress, Value: c.Addr.String()},
			{Name: mib.NMSIDCounter0, Type: gosnmp.Gauge32, Value: uint(c.Counter)},
		},
	}
}

// listMismatch builds the diagNodeListMismatch notification: this agent's
// fingerprint, and the peer's address under its NodeID.
func listMismatch(m ListMismatch) notification {
	return notification{
		oid:      mib.DiagNodeListMismatch,
		generic:  v1GenericSpecific,
		specific: specificList,
		label:    fmt.Sprintf("diagNodeListMismatch peer=%d", m.Peer),
		vars: append([]gosnmp.SnmpPDU{
			{Name: mib.DiagNodeListHash0, Type: gosnmp.OctetString, Value: m.Ours},
		}, addrVars(m.Peer, m.PeerAddr)...),
	}
}

// listChange builds the diagNodeListChange notification: the new version
// and fingerprint, and the node's row status (createAndGo or destroy) and
// address under its NodeID.
func listChange(c ListChange) notification {
	rs, what := mib.RowCreateAndGo, "added"
	if c.Removed {
		rs, what = mib.RowDestroy, "removed"
	}
	return notification{
		oid:      mib.DiagNodeListChange,
		generic:  v1GenericSpecific,
		specific: specificListChange,
		label:    fmt.Sprintf("diagNodeListChange node=%d %s version=%d", c.Node, what, c.Version),
		vars: append([]gosnmp.SnmpPDU{
			{Name: mib.DiagNodeListVersion0, Type: gosnmp.Gauge32, Value: uint(c.Version)},
			{Name: mib.DiagNodeListHash0, Type: gosnmp.OctetString, Value: c.Hash},
			{Name: mib.TreeCell(mib.ColNodeRowStatus, int(c.Node)), Type: gosnmp.Integer, Value: rs},
		}, addrVars(c.Node, c.Addr)...),
	}
}

// listConflict builds the diagNodeListConflict notification: the list's
// version and fingerprint after the merge, the node, the winner's agent
// and the reason.
func listConflict(c ListConflict) notification {
	reason := c.Reason
	if len(reason) > 255 {
		reason = reason[:255]
	}
	return notification{
		oid:      mib.DiagNodeListConflict,
		generic:  v1GenericSpecific,
		specific: specificConflict,
		label:    fmt.Sprintf("diagNodeListConflict node=%d winner=%d version=%d", c.Node, c.Winner, c.Version),
		vars: []gosnmp.SnmpPDU{
			{Name: mib.DiagNodeListVersion0, Type: gosnmp.Gauge32, Value: uint(c.Version)},
			{Name: mib.DiagNodeListHash0, Type: gosnmp.OctetString, Value: c.Hash},
			{Name: mib.DiagConflictNode0, Type: gosnmp.Integer, Value: int(c.Node)},
			{Name: mib.DiagConflictWinner0, Type: gosnmp.Integer, Value: int(c.Winner)},
			{Name: mib.DiagConflictReason0, Type: gosnmp.OctetString, Value: reason},
		},
	}
}

// causeChange builds the diagCauseChange notification: the cause's
// objects, then nodeStatus of its first nodes.
func causeChange(c Cause) notification {
	ids := make([]uint32, len(c.Nodes))
	for k, n := range c.Nodes {
		ids[k] = n.ID
	}
	list := mib.NodeRanges(ids, 255)
	vars := []gosnmp.SnmpPDU{
		{Name: mib.DiagCauseKind0, Type: gosnmp.Integer, Value: c.Kind},
		{Name: mib.DiagCauseGroup0, Type: gosnmp.Gauge32, Value: uint(c.Group)},
		{Name: mib.DiagCauseSplit0, Type: gosnmp.Gauge32, Value: uint(c.Split)},
		{Name: mib.DiagCauseNodes0, Type: gosnmp.Gauge32, Value: uint(len(c.Nodes))},
		{Name: mib.DiagCauseNodeList0, Type: gosnmp.OctetString, Value: list},
		{Name: mib.DiagCauseSubnet0, Type: gosnmp.OctetString, Value: c.Subnet},
		{Name: mib.DiagCauseLasted0, Type: gosnmp.Gauge32, Value: uint(c.Lasted / time.Second)},
	}
	for _, n := range c.Nodes[:min(len(c.Nodes), causeStatuses)] {
		vars = append(vars, gosnmp.SnmpPDU{Name: mib.TreeCell(mib.ColNodeStatus, int(n.ID)), Type: gosnmp.Integer, Value: mib.DiagStatus(n.Status)})
	}
	return notification{
		oid:      mib.DiagCauseChange,
		generic:  v1GenericSpecific,
		specific: specificCause,
		label:    fmt.Sprintf("diagCauseChange kind=%d group=%d nodes=%s", c.Kind, c.Group, list),
		vars:     vars,
	}
}

// keyRefused builds the diagNodeKeyRefused notification: the node's
// address under its NodeID.
func keyRefused(r KeyRefused) notification {
	return notification{
		oid:      mib.DiagNodeKeyRefused,
		generic:  v1GenericSpecific,
		specific: specificKeyRefused,
		label:    fmt.Sprintf("diagNodeKeyRefused node=%d", r.Node),
		vars:     addrVars(r.Node, r.Addr),
	}
}

// addrVars are nodeAddrType and nodeAddr of a node, under its NodeID, as
// most notifications carry them.
func addrVars(node uint32, a netip.Addr) []gosnmp.SnmpPDU {
	t, b := mib.InetAddress(a)
	return []gosnmp.SnmpPDU{
		{Name: mib.TreeCell(mib.ColNodeAddrType, int(node)), Type: gosnmp.Integer, Value: t},
		{Name: mib.TreeCell(mib.ColNodeAddr, int(node)), Type: gosnmp.OctetString, Value: b},
	}
}

// maintenanceEnded builds the diagNodeMaintenanceEnded notification:
// nodeStatus, nodeMaintenanceStatus and the node's address, under its
// NodeID.
func maintenanceEnded(m MaintenanceEnded) notification {
	return notification{
		oid:      mib.DiagNodeMaintenanceEnded,
		generic:  v1GenericSpecific,
		specific: specificMaintenance,
		label:    fmt.Sprintf("diagNodeMaintenanceEnded node=%d %v (was %v)", m.Node, m.Status, m.Began),
		vars: append([]gosnmp.SnmpPDU{
			{Name: mib.TreeCell(mib.ColNodeStatus, int(m.Node)), Type: gosnmp.Integer, Value: mib.DiagStatus(m.Status)},
			{Name: mib.TreeCell(mib.ColNodeMaintStatus, int(m.Node)), Type: gosnmp.Integer, Value: mib.DiagStatus(m.Began)},
		}, addrVars(m.Node, m.Addr)...),
	}
}

// flapping builds the diagNodeFlapping notification: nodeFlapping,
// nodeStatus and the node's address, under its NodeID.
func flapping(f Flapping) notification {
	what := map[bool]string{true: "started", false: "stopped"}[f.Flapping]
	return notification{
		oid:      mib.DiagNodeFlapping,
		generic:  v1GenericSpecific,
		specific: specificFlapping,
		label:    fmt.Sprintf("diagNodeFlapping node=%d %s", f.Node, what),
		vars: append([]gosnmp.SnmpPDU{
			{Name: mib.TreeCell(mib.ColNodeFlapping, int(f.Node)), Type: gosnmp.Integer, Value: map[bool]int{true: mib.TruthTrue, false: mib.TruthFalse}[f.Flapping]},
			{Name: mib.TreeCell(mib.ColNodeStatus, int(f.Node)), Type: gosnmp.Integer, Value: mib.DiagStatus(f.Status)},
		}, addrVars(f.Node, f.Addr)...),
	}
}

// coldStart builds the coldStart notification an agent sends when it starts.
func coldStart() notification {
	return notification{oid: mib.ColdStart, generic: v1ColdStart, label: "coldStart"}
}

// authenticationFailure builds the notification of a message that failed
// authentication; src is for the log only, as RFC 3418 defines no varbind.
func authenticationFailure(src netip.Addr) notification {
	return notification{oid: mib.AuthenticationFailure, generic: v1AuthFailure, label: "authenticationFailure from " + src.String()}
}

// v2Vars returns the full SNMPv2 varbind list: sysUpTime.0, snmpTrapOID.0, then the objects.
func (n notification) v2Vars(uptime uint32) []gosnmp.SnmpPDU {
	out := make([]gosnmp.SnmpPDU, 0, len(n.vars)+2)
	out = append(out,
		gosnmp.SnmpPDU{Name: mib.SysUpTime0, Type: gosnmp.TimeTicks, Value: uptime},
		gosnmp.SnmpPDU{Name: mib.SnmpTrapOID0, Type: gosnmp.ObjectIdentifier, Value: n.oid},
	)
	return append(out, n.vars...)
}

// trap returns the gosnmp trap for this notification in the given kind.
func (n notification) trap(kind Kind, uptime uint32, agent string) gosnmp.SnmpTrap {
	if kind == TrapV1 {
		enterprise := v1Enterprise
		if n.generic != v1GenericSpecific {
			enterprise = v1SysObjectID
		}
		return gosnmp.SnmpTrap{
			Variables:    n.vars,
			Enterprise:   enterprise,
			AgentAddress: agent,
			GenericTrap:  n.generic,
			SpecificTrap: n.specific,
			Timestamp:    uint(uptime),
		}
	}
	return gosnmp.SnmpTrap{Variables: n.v2Vars(uptime), IsInform: kind.acknowledged()}
}

// dateAndTime encodes t in UTC as the 8-octet DateAndTime of SNMPv2-TC.
func dateAndTime(t time.Time) []byte {
	t = t.UTC()
	b := make([]byte, 8)
	binary.BigEndian.PutUint16(b, uint16(t.Year()))
	b[2], b[3] = byte(t.Month()), byte(t.Day())
	b[4], b[5], b[6] = byte(t.Hour()), byte(t.Minute()), byte(t.Second())
	b[7] = byte(t.Nanosecond() / int(100*time.Millisecond))
	return b
}
