package agentx

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"testing"
)

var diag = OID{1, 3, 6, 1, 4, 1, 200}

// samplePDUs are one PDU of every type a subagent sends or receives.
func samplePDUs() []*PDU {
	vbs := []VarBind{
		{Type: Integer, Name: append(diag, 1, 1, 1, 3, 2), Num: 0xFFFFFFFF},
		{Type: OctetString, Name: append(diag, 1, 4, 0), Bytes: []byte("1")},
		{Type: IPAddress, Name: append(diag, 1, 3, 0), Num: 0xC0000209},
		{Type: Gauge32, Name: append(diag, 1, 5, 0), Num: 7},
		{Type: Counter64, Name: OID{1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 6, 1}, Num: 1 << 40},
		{Type: ObjectID, Name: OID{1, 3, 6, 1, 2, 1, 1, 2, 0}, Value: diag},
		{Type: TimeTicks, Name: OID{1, 3, 6, 1, 2, 1, 1, 3, 0}, Num: 4321},
		{Type: Null, Name: OID{0, 0}},
		{Type: NoSuchInstance, Name: append(diag, 9)},
		{Type: EndOfMibView, Name: OID{2}},
		{Type: Opaque, Name: OID{1, 2}, Bytes: []byte{1, 2, 3, 4, 5}},
	}
	return []*PDU{
		{Type: TypeOpen, SessionID: 0, TransactionID: 1, PacketID: 2, Timeout: 5, ID: diag, Descr: []byte("diagagent node 3")},
		{Type: TypeClose, SessionID: 9, Reason: ReasonShutdown},
		{Type: TypeRegister, SessionID: 9, PacketID: 3, Priority: 127, Subtree: diag},
		{Type: TypeRegister, SessionID: 9, Context: []byte("lan"), Priority: 127, RangeSubID: 7, Subtree: append(diag, 1), UpperBound: 9},
		{Type: TypeUnregister, SessionID: 9, Priority: 127, Subtree: diag},
		{Type: TypeGet, SessionID: 9, Ranges: []SearchRange{{Start: append(diag, 1, 4, 0)}, {Start: OID{}}}},
		{Type: TypeGetNext, SessionID: 9, Ranges: []SearchRange{{Start: diag, Include: true, End: OID{1, 3, 6, 1, 4, 1, 201}}}},
		{Type: TypeGetBulk, SessionID: 9, NonRepeaters: 1, MaxRepetitions: 10,
			Ranges: []SearchRange{{Start: append(diag, 1, 4)}, {Start: append(diag, 1, 1, 1, 3), End: append(diag, 1, 1, 1, 4)}}},
		{Type: TypeTestSet, SessionID: 9, TransactionID: 77, VarBinds: vbs[:3]},
		{Type: TypeCommitSet, SessionID: 9, TransactionID: 77},
		{Type: TypeUndoSet, SessionID: 9, TransactionID: 77},
		{Type: TypeCleanupSet, SessionID: 9, TransactionID: 77},
		{Type: TypePing, SessionID: 9, PacketID: 12},
		{Type: TypeNotify, SessionID: 9, VarBinds: vbs[5:7]},
		{Type: TypeResponse, SessionID: 9, PacketID: 12, SysUpTime: 100, Error: NotWritable, Index: 2, VarBinds: vbs},
		{Type: TypeAddAgentCaps, SessionID: 9, ID: diag, Descr: []byte("caps")},
		{Type: TypeRemoveAgentCaps, SessionID: 9, ID: diag},
	}
}

// TestRoundTrip: every PDU decodes to what was encoded, in network byte order.
func TestRoundTrip(t *testing.T) {
	for _, p := range samplePDUs() {
		b, err := p.Encode()
		if err != nil {
			t.Fatalf("%s: %v", p.Type, err)
		}
		if len(b)%4 != 0 || b[2]&FlagNetworkByteOrder == 0 {
			t.Errorf("%s: %d bytes, flags %#x", p.Type, len(b), b[2])
		}
		got, err := Decode(b)
		if err != nil {
			t.Fatalf("%s: decode: %v\n% x", p.Type, err, b)
		}
		want := *p
		want.Flags = b[2]
		if !reflect.DeepEqual(normal(got), normal(&want)) {
			t.Errorf("%s:\n got %+v\nwant %+v", p.Type, got, &want)
		}
		r, err := ReadPDU(bytes.NewReader(b))
		if err != nil || !reflect.DeepEqual(r, got) {
			t.Errorf("%s: ReadPDU = %+v, %v", p.Type, r, err)
		}
	}
}

// normal makes empty and nil slices alike, for comparison.
func normal(p *PDU) *PDU {
	q := *p
	if len(q.ID) == 0 {
		q.ID = nil
	}
	if len(q.Descr) == 0 {
		q.Descr = nil
	}
	if len(q.Subtree) == 0 {
		q.Subtree = nil
	}
	q.Ranges = nil
	for _, r := range p.Ranges {
		if len(r.Start) == 0 {
			r.Start = nil
		}
		if len(r.End) == 0 {
			r.End = nil
		}
		q.Ranges = append(q.Ranges, r)
	}
	return &q
}

// TestPrefixCompression: 1.3.6.1.4.1.200 is sent as prefix 4 and the two
// sub-identifiers after it, as RFC 2741 section 5.1's example does for
// 1.3.6.1.2.1.1.
func TestPrefixCompression(t *testing.T) {
	e := &encoder{}
	e.oid(diag, true)
	want := []byte{2, 4, 1, 0, 0, 0, 0, 1, 0, 0, 0, 200}
	if !bytes.Equal(e.b, want) {
		t.Errorf("encoded % x, want % x", e.b, want)
	}
	e = &encoder{}
	e.oid(OID{1, 3, 6, 1}, false) // nothing after the prefix: written in full
	if e.b[0] != 4 || e.b[1] != 0 {
		t.Errorf("1.3.6.1 encoded % x", e.b)
	}
}

// TestLittleEndian: a master may send in its own byte order (the flag says
// which); the decoder honours it.
func TestLittleEndian(t *testing.T) {
	b := make([]byte, 0, 40)
	b = append(b, 1, byte(TypeGet), 0, 0)
	b = binary.LittleEndian.AppendUint32(b, 7)  // session
	b = binary.LittleEndian.AppendUint32(b, 8)  // transaction
	b = binary.LittleEndian.AppendUint32(b, 9)  // packet
	b = binary.LittleEndian.AppendUint32(b, 20) // payload: wrong, the range is 16 bytes
	b = append(b, 2, 4, 0, 0)                   // start 1.3.6.1.4.1.200
	b = binary.LittleEndian.AppendUint32(b, 1)
	b = binary.LittleEndian.AppendUint32(b, 200)
	b = append(b, 0, 0, 0, 0) // no end
	p, err := Decode(b)
	if err == nil {
		t.Fatalf("a payload length that disagrees decoded: %+v", p)
	}
	binary.LittleEndian.PutUint32(b[16:20], 16)
	p, err = Decode(b)
	if err != nil || p.SessionID != 7 || p.PacketID != 9 || len(p.Ranges) != 1 || p.Ranges[0].Start.String() != ".1.3.6.1.4.1.200" {
		t.Fatalf("little-endian Get: %+v, %v", p, err)
	}
}

// TestMalformed: every way a PDU can be cut or stretched is an ErrParse.
func TestMalformed(t *testing.T) {
	good, _ := samplePDUs()[14].Encode() // the Response, with every value type
	cases := map[string][]byte{
		"empty":          {},
		"short header":   good[:10],
		"version 2":      append([]byte{2}, good[1:]...),
		"cut payload":    good[:len(good)-4],
		"unknown type":   append([]byte{1, 99}, good[2:]...),
		"length too big": func() []byte { b := bytes.Clone(good); binary.BigEndian.PutUint32(b[16:], 1<<30); return b }(),
	}
	for name, b := range cases {
		if _, err := Decode(b); !errors.Is(err, ErrParse) {
			t.Errorf("%s: %v, want ErrParse", name, err)
		}
	}
	huge := &PDU{Type: TypeGet, Ranges: []SearchRange{{Start: make(OID, 129)}}}
	if _, err := huge.Encode(); !errors.Is(err, ErrParse) {
		t.Errorf("an OID of 129 sub-identifiers encoded: %v", err)
	}
	if _, err := ReadPDU(bytes.NewReader(good[:HeaderSize])); err == nil {
		t.Error("ReadPDU of a header without its payload succeeded")
	}
}
