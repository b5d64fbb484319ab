package snmp

import (
	"errors"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/mib"
)

// maintSet reports whether a SetRequest is a maintenance window's: one
// varbind naming nodeMaintenanceUntil or nodeMaintenanceFor of a row.
func (r *Responder) maintSet(p *pdu) bool {
	if r.cfg.OnMaintenance == nil || len(p.vbs) != 1 || !p.vbs[0].name.HasPrefix(r.treeEntry) {
		return false
	}
	rest := p.vbs[0].name[len(r.treeEntry):]
	return len(rest) == 2 && (rest[0] == mib.ColNodeMaintUntil || rest[0] == mib.ColNodeMaintFor)
}

// opMaintSet answers a SetRequest of a node's maintenance window: any
// write community or user may make it (it is an operator's, not only the
// agents'). nodeMaintenanceUntil takes a DateAndTime (8 octets are the
// agent's local time; the zero time or one past ends the window),
// nodeMaintenanceFor seconds from now (0 ends it), at most
// nodelist.MaxWindow either way. A row that is no member is noCreation.
func (r *Responder) opMaintSet(req *request, now time.Time) outcome {
	p := req.p
	out := outcome{}
	if r.readOnly(req, &out) {
		return out
	}
	vb := p.vbs[0]
	rest := vb.name[len(r.treeEntry):]
	until, st := maintUntil(rest[0], vb.val, now)
	if st == gosnmp.NoError {
		err := r.cfg.OnMaintenance(rest[1], until)
		switch {
		case errors.Is(err, nodelist.ErrNoMember):
			st = gosnmp.NoCreation
		case errors.Is(err, nodelist.ErrTooLong):
			st = gosnmp.WrongValue
		case err != nil:
			st = gosnmp.CommitFailed
		}
	}
	if st != gosnmp.NoError {
		out.fail(p, st, 1)
		return out
	}
	out.vars = p.vbs
	return out
}

// maintUntil reads the end of a window from a set of column col: the zero
// time ends it.
func maintUntil(col uint32, val value, now time.Time) (time.Time, gosnmp.SNMPError) {
	if col == mib.ColNodeMaintFor {
		if st := wantType(val, gosnmp.Gauge32); st != gosnmp.NoError {
			return time.Time{}, st
		}
		if time.Duration(val.num)*time.Second > nodelist.MaxWindow {
			return time.Time{}, gosnmp.WrongValue
		}
		if val.num == 0 {
			return time.Time{}, gosnmp.NoError
		}
		return now.Add(time.Duration(val.num) * time.Second), gosnmp.NoError
	}
	if st := wantType(val, gosnmp.OctetString); st != gosnmp.NoError {
		return time.Time{}, st
	}
	b := val.octetString()
	if len(b) != 8 && len(b) != 11 {
		return time.Time{}, gosnmp.WrongLength
	}
	t, err := mib.ParseDateAndTime(b, time.Local)
	if err != nil || t.Sub(now) > nodelist.MaxWindow {
		return time.Time{}, gosnmp.WrongValue
	}
	return t, gosnmp.NoError
}
