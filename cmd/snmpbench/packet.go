//go:build linux

package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/gosnmp/gosnmp"
)

// templateID is the request-id encoded into every template; it needs four
// content bytes, so any id in [0x01000000, 0x7fffffff] can be patched in place.
const templateID = 0x40000000

// Op names one kind of request the generator sends.
type Op string

// The operations of the benchmark; every cell uses exactly one.
const (
	OpGet     Op = "get"
	OpGetNext Op = "getnext"
	OpGetBulk Op = "getbulk"
	// OpDiagBulk is a GETBULK down the diagTree nodeStatus column, the table a
	// peer reads; snmpd serves the same rows through override lines.
	OpDiagBulk Op = "diagbulk"
)

// bulk reports whether op is sent as a GETBULK.
func (op Op) bulk() bool { return op == OpGetBulk || op == OpDiagBulk }

// ErrBadReply is returned when a datagram is not the SNMP response expected.
var ErrBadReply = errors.New("bad reply")

// Template is one pre-encoded request whose request-id can be rewritten.
type Template struct {
	Packet []byte // the encoded request
	idAt   int    // offset of the 4 request-id content bytes
}

// NewTemplate encodes op on oid with gosnmp (v2c) and locates the request-id.
func NewTemplate(op Op, community, oid string, maxRep uint32) (*Template, error) {
	g := &gosnmp.GoSNMP{Version: gosnmp.Version2c, Community: community}
	g.SetRequestID(templateID - 1)
	var pdu gosnmp.PDUType
	switch op {
	case OpGet:
		pdu = gosnmp.GetRequest
	case OpGetNext:
		pdu = gosnmp.GetNextRequest
	case OpGetBulk, OpDiagBulk:
		pdu = gosnmp.GetBulkRequest
	default:
		return nil, fmt.Errorf("op %q: want get, getnext, getbulk or diagbulk", op)
	}
	vb := []gosnmp.SnmpPDU{{Name: oid, Type: gosnmp.Null}}
	pkt, err := g.SnmpEncodePacket(pdu, vb, 0, maxRep)
	if err != nil {
		return nil, fmt.Errorf("encode %s %s: %w", op, oid, err)
	}
	marker := []byte{0x02, 0x04, 0x40, 0x00, 0x00, 0x00}
	at := bytes.Index(pkt, marker)
	if at < 0 {
		return nil, fmt.Errorf("encode %s %s: request-id not found", op, oid)
	}
	return &Template{Packet: pkt, idAt: at + 2}, nil
}

// SetID patches id (kept within the 4-byte form) into the packet.
func (t *Template) SetID(id uint32) uint32 {
	id = 0x01000000 | (id & 0x00ffffff)
	binary.BigEndian.PutUint32(t.Packet[t.idAt:], id)
	return id
}

// ReplyID reads the request-id and error-status of an SNMPv2c response
// without decoding the varbinds, so checking replies stays cheap.
func ReplyID(b []byte) (id uint32, errStatus int, err error) {
	r := berReader{b: b}
	if err = r.enter(0x30); err != nil {
		return 0, 0, err
	}
	if _, err = r.integer(); err != nil { // version
		return 0, 0, err
	}
	if err = r.skip(0x04); err != nil { // community
		return 0, 0, err
	}
	if err = r.enter(0xa2); err != nil { // Response-PDU
		return 0, 0, err
	}
	rid, err := r.integer()
	if err != nil {
		return 0, 0, err
	}
	es, err := r.integer()
	if err != nil {
		return 0, 0, err
	}
	return uint32(rid), int(es), nil
}
