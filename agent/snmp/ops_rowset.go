package snmp

import (
	"errors"
	"net/netip"
	"strings"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/mib"
)

// RowChange is a manager's change of the node list: a diagTree row created
// (createAndGo) or destroyed, as one SetRequest asks for it.
type RowChange struct {
	// ID is the row's nodeID (the core id plus one).
	ID uint32
	// Destroy removes the node; otherwise Member (its address, port and
	// role) is added.
	Destroy bool
	nodelist.Member
}

// Errors OnRowChange returns to choose the SET's error status (RFC 3416):
// anything else is commitFailed.
var (
	// ErrRowNoCreation: a row cannot be created at that index (noCreation).
	ErrRowNoCreation = errors.New("no row can be created there")
	// ErrRowInconsistent: the change contradicts the list (inconsistentValue).
	ErrRowInconsistent = errors.New("the change contradicts the node list")
)

// rowSet reports whether a SetRequest's first varbind names a diagTree
// column, in which case the whole request is one row change.
func (r *Responder) rowSet(p *pdu) bool {
	return r.cfg.OnRowChange != nil && len(p.vbs) > 0 && p.vbs[0].name.HasPrefix(r.treeEntry)
}

// opRowSet answers a SetRequest that creates or destroys one diagTree row:
// every varbind must be a writable column of the same row, nodeRowStatus
// must be among them, and a creation needs nodeAddrType and nodeAddr. The
// daemon checks the change against its list (OnRowChange) before the
// response, so an accepted change is queued for its next interval.
func (r *Responder) opRowSet(req *request) outcome {
	p := req.p
	out := outcome{}
	if r.readOnly(req, &out) {
		return out
	}
	if !r.agentsMay(req) {
		out.fail(p, gosnmp.NoAccess, 1)
		return out
	}
	ch, st, at := r.parseRow(p.vbs)
	if st == gosnmp.NoError {
		if err := r.cfg.OnRowChange(ch); err != nil {
			st, at = rowError(err), 1
		}
	}
	if st != gosnmp.NoError {
		out.fail(p, st, at)
		return out
	}
	out.vars = p.vbs
	return out
}

// readOnly fails a SET on diagTree made with a community or user that may
// not write (noAccess, counted as snmpInBadCommunityUses for a community)
// and reports it.
func (r *Responder) readOnly(req *request, out *outcome) bool {
	if req.write {
		return false
	}
	if req.v3 == nil {
		r.stats.inc(cInBadCommunityUses)
	}
	out.fail(req.p, gosnmp.NoAccess, 1)
	return true
}

// parseRow reads the row change a request's varbinds ask for, or the
// error status and 1-based index of the first varbind at fault.
func (r *Responder) parseRow(vbs []varbind) (RowChange, gosnmp.SNMPError, int) {
	var ch RowChange
	var addrType, status int
	var addr []byte
	host := ""
	for i, vb := range vbs {
		rest := vb.name[len(r.treeEntry):]
		if !vb.name.HasPrefix(r.treeEntry) || len(rest) != 2 || (ch.ID != 0 && rest[1] != ch.ID) {
			return ch, gosnmp.InconsistentName, i + 1
		}
		ch.ID = rest[1]
		st := gosnmp.NoError
		switch rest[0] {
		case mib.ColNodeRowStatus:
			st = wantType(vb.val, gosnmp.Integer)
			status = vb.val.int()
		case mib.ColNodeAddrType:
			st = wantType(vb.val, gosnmp.Integer)
			addrType = vb.val.int()
		case mib.ColNodeAddr:
			st = wantType(vb.val, gosnmp.OctetString)
			addr = vb.val.octetString()
		case mib.ColNodePort:
			st = wantType(vb.val, gosnmp.Gauge32)
			if n := vb.val.num; st == gosnmp.NoError && (n < 1 || n > 65535) {
				st = gosnmp.WrongValue
			}
			ch.Port = uint16(vb.val.num)
		case mib.ColNodeTestedOnly:
			st = wantType(vb.val, gosnmp.Integer)
			if t := vb.val.int(); st == gosnmp.NoError && t != mib.TruthTrue && t != mib.TruthFalse {
				st = gosnmp.WrongValue
			}
			ch.TestedOnly = vb.val.int() == mib.TruthTrue
		case mib.ColNodeName:
			st = wantText(vb.val, 0, 64)
			ch.Name = string(vb.val.octetString())
		case mib.ColNodeHost:
			st = wantText(vb.val, 1, 255)
			host = string(vb.val.octetString())
		case mib.ColNodeCommunity:
			st = wantText(vb.val, 0, 127)
			ch.Community = string(vb.val.octetString())
		case mib.ColNodeMaintUntil, mib.ColNodeMaintFor:
			st = gosnmp.InconsistentValue // a window is set in a request of its own
		default:
			st = gosnmp.NotWritable
		}
		if st != gosnmp.NoError {
			return ch, st, i + 1
		}
	}
	return r.finishRow(ch, status, addrType, addr, host, vbs)
}

// wantText is wrongType unless val is an OCTET STRING, wrongLength unless
// it has lo to hi octets, and wrongValue unless they are printable ASCII
// (DisplayString, and what a community or host name can be).
func wantText(val value, lo, hi int) gosnmp.SNMPError {
	if st := wantType(val, gosnmp.OctetString); st != gosnmp.NoError {
		return st
	}
	b := val.octetString()
	if len(b) < lo || len(b) > hi {
		return gosnmp.WrongLength
	}
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return gosnmp.WrongValue
		}
	}
	return gosnmp.NoError
}

// finishRow checks the row status and the address a change names: by
// nodeAddrType and nodeAddr, or by nodeHost (an address as text, or a host
// name the daemon resolves), not both.
func (r *Responder) finishRow(ch RowChange, status, addrType int, addr []byte, host string, vbs []varbind) (RowChange, gosnmp.SNMPError, int) {
	at := indexOfColumn(vbs, r.treeEntry, mib.ColNodeRowStatus)
	switch status {
	case mib.RowDestroy:
		ch.Destroy = true
		if len(vbs) > 1 {
			return ch, gosnmp.InconsistentValue, 1
		}
		return ch, gosnmp.NoError, 0
	case mib.RowCreateAndGo:
	case 0:
		return ch, gosnmp.InconsistentName, 1 // no nodeRowStatus: columns of a row cannot be changed
	default:
		return ch, gosnmp.WrongValue, at
	}
	if host != "" {
		hostAt := indexOfColumn(vbs, r.treeEntry, mib.ColNodeHost)
		if addr != nil || addrType != 0 {
			return ch, gosnmp.InconsistentValue, hostAt
		}
		if a, err := netip.ParseAddr(host); err == nil && a.Zone() == "" {
			addr, addrType = a.Unmap().AsSlice(), mib.InetIPv4
			if a.Unmap().Is6() {
				addrType = mib.InetIPv6
			}
		} else if !hostName(host) {
			return ch, gosnmp.WrongValue, hostAt
		} else {
			ch.Host = host
			if ch.Port == 0 {
				ch.Port = nodelist.DefaultPort
			}
			return ch, gosnmp.NoError, 0
		}
	}
	a, ok := netip.AddrFromSlice(addr)
	switch {
	case addr == nil || addrType == 0:
		return ch, gosnmp.InconsistentValue, at
	case !ok || (addrType == mib.InetIPv4 && !a.Is4()) || (addrType == mib.InetIPv6 && !a.Is6()) ||
		(addrType != mib.InetIPv4 && addrType != mib.InetIPv6) || a.IsUnspecified():
		return ch, gosnmp.WrongValue, indexOfColumn(vbs, r.treeEntry, mib.ColNodeAddr)
	}
	ch.Addr = a
	if ch.Port == 0 {
		ch.Port = nodelist.DefaultPort
	}
	return ch, gosnmp.NoError, 0
}

// hostName reports whether s is a host name (RFC 1123: labels of letters,
// digits and hyphens, dot-separated).
func hostName(s string) bool {
	if len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(strings.TrimSuffix(s, "."), ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// wantType is wrongType unless val has type typ (wrongLength for a value
// whose length its type does not allow).
func wantType(val value, typ gosnmp.Asn1BER) gosnmp.SNMPError {
	switch {
	case val.typ != typ:
		return gosnmp.WrongType
	case val.bad:
		return gosnmp.WrongLength
	}
	return gosnmp.NoError
}

// indexOfColumn returns the 1-based index of the varbind naming col, or 1.
func indexOfColumn(vbs []varbind, entry OID, col uint32) int {
	for i, vb := range vbs {
		if len(vb.name) > len(entry) && vb.name[len(entry)] == col {
			return i + 1
		}
	}
	return 1
}

// rowError maps the daemon's refusal to the SET's error status.
func rowError(err error) gosnmp.SNMPError {
	switch {
	case errors.Is(err, ErrRowNoCreation):
		return gosnmp.NoCreation
	case errors.Is(err, ErrRowInconsistent):
		return gosnmp.InconsistentValue
	}
	return gosnmp.CommitFailed
}
