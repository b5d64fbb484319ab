package traps

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/diagagent/diagagent/mib"
	"github.com/gosnmp/gosnmp"
)

// SNMPv1 trap fields for DIAGNOSIS-MIB notifications (RFC 3584, section 3.2).
const (
	v1Enterprise      = mib.DiagNotifications
	v1GenericSpecific = 6
	specificStatus    = 1
	specificNMS       = 2
)

// notification is a queued message: what to send, not yet where or when.
type notification struct {
	oid      string           // the NOTIFICATION-TYPE
	specific int              // its last arc, the v1 specific-trap
	vars     []gosnmp.SnmpPDU // the varbinds after sysUpTime.0 and snmpTrapOID.0
	label    string           // a short description for logs
}

// statusChange builds the diagNodeStatusChange notification of an event.
func statusChange(e mib.Event) notification {
	cell := func(col int) string { return mib.EventCell(col, e.Seq) }
	return notification{
		oid:      mib.DiagNodeStatusChange,
		specific: specificStatus,
		label:    fmt.Sprintf("diagNodeStatusChange seq=%d node=%d", e.Seq, e.NodeID),
		vars: []gosnmp.SnmpPDU{
			{Name: cell(mib.ColEventNodeID), Type: gosnmp.Integer, Value: int(e.NodeID)},
			{Name: mib.TreeCell(mib.ColNodeAD, int(e.NodeID)), Type: gosnmp.IPAddress, Value: e.Addr.String()},
			{Name: cell(mib.ColEventStatus), Type: gosnmp.Integer, Value: int(e.Status)},
			{Name: cell(mib.ColEventPrevStatus), Type: gosnmp.Integer, Value: int(e.Prev)},
			{Name: cell(mib.ColEventCounter), Type: gosnmp.Gauge32, Value: uint(e.Counter)},
			{Name: cell(mib.ColEventHowLearned), Type: gosnmp.Integer, Value: int(e.How)},
			{Name: cell(mib.ColEventDetector), Type: gosnmp.Integer, Value: int(e.Detector)},
			{Name: cell(mib.ColEventTime), Type: gosnmp.OctetString, Value: dateAndTime(e.Time)},
		},
	}
}

// nmsChange builds the diagNMSChange notification.
func nmsChange(c NMSChange) notification {
	return notification{
		oid:      mib.DiagNMSChange,
		specific: specificNMS,
		label:    fmt.Sprintf("diagNMSChange station=%v counter=%d", c.Station, c.Counter),
		vars: []gosnmp.SnmpPDU{
			{Name: mib.NMSID0, Type: gosnmp.IPAddress, Value: c.Station.String()},
			{Name: mib.NMSIDCounter0, Type: gosnmp.Gauge32, Value: uint(c.Counter)},
		},
	}
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
		return gosnmp.SnmpTrap{
			Variables:    n.vars,
			Enterprise:   v1Enterprise,
			AgentAddress: agent,
			GenericTrap:  v1GenericSpecific,
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
