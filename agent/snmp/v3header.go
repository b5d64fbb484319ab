package snmp

import (
	"fmt"

	"github.com/gosnmp/gosnmp"
)

// v3Header is the plaintext part of an SNMPv3 message (RFC 3412 and the USM
// security parameters of RFC 3414), read before any key is chosen.
type v3Header struct {
	msgID     int64
	maxSize   int64
	flags     gosnmp.SnmpV3MsgFlags
	model     int64
	engineID  []byte
	boots     int64
	time      int64
	user      []byte
	authParam tlv // msgAuthenticationParameters, zeroed in place for the digest
	privParam []byte
	data      int // offset of msgData (the scoped PDU, plain or encrypted)
}

// parseV3Header reads the header of the message b whose msgVersion ends at off.
func parseV3Header(b []byte, off int) (*v3Header, error) {
	h := &v3Header{}
	hd, err := expect(b, off, tagSequence)
	if err != nil {
		return nil, err
	}
	var t tlv
	if h.msgID, t, err = readPaddedInt(b, hd.start); err != nil { // gosnmp pads it
		return nil, err
	}
	if h.maxSize, t, err = readInt(b, t.end); err != nil {
		return nil, err
	}
	if t, err = expect(b, t.end, tagOctets); err != nil {
		return nil, err
	}
	if t.end-t.start != 1 {
		return nil, fmt.Errorf("%w: msgFlags of %d octets", ErrMalformed, t.end-t.start)
	}
	h.flags = gosnmp.SnmpV3MsgFlags(b[t.start])
	if h.model, t, err = readInt(b, t.end); err != nil {
		return nil, err
	}
	if t.end != hd.end {
		return nil, fmt.Errorf("%w: trailing octets in msgGlobalData", ErrMalformed)
	}
	if h.msgID < 0 || h.model < 1 { // RFC 3412: msgID 0..2^31-1, msgSecurityModel 1..2^31-1
		return nil, fmt.Errorf("%w: msgID %d or msgSecurityModel %d out of range", ErrMalformed, h.msgID, h.model)
	}
	sp, err := expect(b, hd.end, tagOctets)
	if err != nil {
		return nil, err
	}
	h.data = sp.end
	return h, h.parseUSM(b, sp)
}

// parseUSM reads UsmSecurityParameters from the OCTET STRING sp.
func (h *v3Header) parseUSM(b []byte, sp tlv) error {
	seq, err := expect(b, sp.start, tagSequence)
	if err != nil {
		return err
	}
	if seq.end != sp.end {
		return fmt.Errorf("%w: trailing octets in msgSecurityParameters", ErrMalformed)
	}
	var t tlv
	if t, err = expect(b, seq.start, tagOctets); err != nil {
		return err
	}
	h.engineID = b[t.start:t.end]
	if h.boots, t, err = readInt(b, t.end); err != nil {
		return err
	}
	if h.time, t, err = readInt(b, t.end); err != nil {
		return err
	}
	if t, err = expect(b, t.end, tagOctets); err != nil {
		return err
	}
	h.user = b[t.start:t.end]
	if h.authParam, err = expect(b, t.end, tagOctets); err != nil {
		return err
	}
	if t, err = expect(b, h.authParam.end, tagOctets); err != nil {
		return err
	}
	h.privParam = b[t.start:t.end]
	if t.end != seq.end {
		return fmt.Errorf("%w: trailing octets in UsmSecurityParameters", ErrMalformed)
	}
	// RFC 3414 2.4: an engine ID of 5 to 32 octets (empty during discovery),
	// a user name of at most 32, boots and time 0..2^31-1.
	if n := len(h.engineID); n != 0 && (n < 5 || n > 32) || len(h.user) > 32 || h.boots < 0 || h.time < 0 {
		return fmt.Errorf("%w: USM field out of range (engine ID %d octets, user %d octets)", ErrMalformed, len(h.engineID), len(h.user))
	}
	return nil
}

// level is the message's security level (noAuthNoPriv, authNoPriv or authPriv).
func (h *v3Header) level() gosnmp.SnmpV3MsgFlags {
	return h.flags & gosnmp.AuthPriv
}

// plainRequestID reads the request-id of a plaintext scoped PDU, for reports;
// it returns 0 when the PDU is encrypted or unreadable (RFC 3412 7.1.3).
func (h *v3Header) plainRequestID(b []byte) uint32 {
	scoped, err := expect(b, h.data, tagSequence)
	if err != nil {
		return 0
	}
	t, err := expect(b, scoped.start, tagOctets)
	if err != nil {
		return 0
	}
	if t, err = expect(b, t.end, tagOctets); err != nil {
		return 0
	}
	pdu, err := readTLV(b, t.end)
	if err != nil || pdu.tag < 0xa0 || pdu.tag > 0xa8 {
		return 0
	}
	id, _, err := readInt(b, pdu.start)
	if err != nil {
		return 0
	}
	return uint32(id)
}
