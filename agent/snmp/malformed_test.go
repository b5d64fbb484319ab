package snmp

import (
	"bytes"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/mib"
)

// marshal encodes a request with gosnmp, failing the test on error.
func marshal(t *testing.T, p *gosnmp.SnmpPacket) []byte {
	t.Helper()
	b, err := p.MarshalMsg()
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return b
}

func TestMalformedDatagramsAreDroppedAndCounted(t *testing.T) {
	h := startHarness(t, func(c *Config) { c.Workers = 1 }) // one worker: datagrams are handled in order
	get := marshal(t, &gosnmp.SnmpPacket{Version: gosnmp.Version2c, Community: roCommunity, PDUType: gosnmp.GetRequest,
		RequestID: 1, Variables: []gosnmp.SnmpPDU{{Name: mib.SysName0, Type: gosnmp.Null}}})
	v1bulk := marshal(t, &gosnmp.SnmpPacket{Version: gosnmp.Version1, Community: roCommunity, PDUType: gosnmp.GetBulkRequest,
		RequestID: 2, MaxRepetitions: 3, Variables: []gosnmp.SnmpPDU{{Name: ".1.3", Type: gosnmp.Null}}})
	badVersion := bytes.Clone(get)
	badVersion[4] = 7 // msgVersion's single content octet
	parseErrs := [][]byte{
		{},
		{0x30},
		[]byte("not an SNMP message at all"),
		get[:len(get)-3],                     // truncated
		append(bytes.Clone(get), 0, 0),       // trailing octets
		{0x30, 0x84, 0xff, 0xff, 0xff, 0xff}, // absurd length
		v1bulk,
	}
	conn, err := net.Dial("udp4", h.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, b := range parseErrs {
		mustWrite(t, conn, b)
	}
	mustWrite(t, conn, badVersion)
	mustWrite(t, conn, make([]byte, testConfig(h.clock).MaxMessageSize+1))
	mustWrite(t, conn, get)
	reply := readReply(t, conn)
	if !bytes.Contains(reply, []byte("node-under-test")) {
		t.Fatalf("no valid answer after the bad datagrams: %x", reply)
	}
	s := h.r.Stats()
	if s.InASNParseErrs != uint64(len(parseErrs))+1 || s.Oversized != 1 || s.InBadVersions != 1 || s.Panics != 0 {
		t.Errorf("InASNParseErrs %d (want %d), Oversized %d (want 1), InBadVersions %d (want 1), Panics %d",
			s.InASNParseErrs, len(parseErrs)+1, s.Oversized, s.InBadVersions, s.Panics)
	}
	if s.OutPkts != 1 {
		t.Errorf("OutPkts = %d, want 1 (only the valid request is answered)", s.OutPkts)
	}
}

func mustWrite(t *testing.T, c net.Conn, b []byte) {
	t.Helper()
	if _, err := c.Write(b); err != nil {
		t.Fatalf("write: %v", err)
	}
}

func readReply(t *testing.T, c net.Conn) []byte {
	t.Helper()
	if err := c.SetReadDeadline(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 65536)
	n, err := c.Read(buf)
	if err != nil {
		t.Fatalf("no reply: %v", err)
	}
	return buf[:n]
}

// rebuild re-encodes a message of short-form BER lengths, passing every
// primitive's contents through edit, so a test can shorten a value and keep
// every enclosing length right.
func rebuild(b []byte, edit func(tag byte, c []byte) []byte) []byte {
	tag, c := b[0], b[2:2+int(b[1])]
	if tag&0x20 == 0 {
		c = edit(tag, c)
	} else {
		var out []byte
		for rest := c; len(rest) > 0; rest = rest[2+int(rest[1]):] {
			out = append(out, rebuild(rest[:2+int(rest[1])], edit)...)
		}
		c = out
	}
	return append([]byte{tag, byte(len(c))}, c...)
}

// TestErrorReplyCarriesTheRequestValue is issue 13's defect 4: a SET of
// nmsID with a 3- or 5-octet IpAddress got wrongLength, as it should, but the
// reply named the value 0.0.0.0; RFC 3416 4.2.5 wants the request's varbinds.
func TestErrorReplyCarriesTheRequestValue(t *testing.T) {
	h := startHarness(t, func(c *Config) { c.OnSetNMS = func(netip.Addr) error { return nil } })
	set := marshal(t, &gosnmp.SnmpPacket{Version: gosnmp.Version2c, Community: rwCommunity, PDUType: gosnmp.SetRequest,
		RequestID: 7, Variables: []gosnmp.SnmpPDU{{Name: mib.NMSID0, Type: gosnmp.IPAddress, Value: "10.1.2.3"}}})
	conn, err := net.Dial("udp4", h.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, value := range [][]byte{{10, 1, 2}, {10, 1, 2, 3, 4}} {
		req := rebuild(set, func(tag byte, c []byte) []byte {
			if tag == byte(gosnmp.IPAddress) {
				return value
			}
			return c
		})
		mustWrite(t, conn, req)
		reply := readReply(t, conn)
		echoed := append([]byte{byte(gosnmp.IPAddress), byte(len(value))}, value...)
		if !bytes.Contains(reply, echoed) || !bytes.Contains(reply, []byte{0x02, 0x01, byte(gosnmp.WrongLength)}) {
			t.Errorf("%d-octet IpAddress: reply %x lacks wrongLength or the value %x", len(value), reply, echoed)
		}
	}
}

// editNth re-encodes msg with the contents of its n-th primitive of tag (from
// 0, in message order) replaced by c.
func editNth(msg []byte, tag byte, n int, c []byte) []byte {
	seen := 0
	return rebuild(msg, func(t byte, old []byte) []byte {
		if t != tag {
			return old
		}
		seen++
		if seen-1 == n {
			return c
		}
		return old
	})
}

// TestForbiddenEncodingsAreDropped is issue 13's defect 3: encodings X.690
// forbids (a sub-identifier padded with 0x80, INTEGERs with padding octets)
// and SNMPv3 fields outside RFC 3412/3414's ranges (a negative msgID, a
// 40-octet user name, a 40-octet engine ID) were answered; each is now
// dropped and counted in snmpInASNParseErrs.
func TestForbiddenEncodingsAreDropped(t *testing.T) {
	h := startHarness(t, nil)
	get := marshal(t, &gosnmp.SnmpPacket{Version: gosnmp.Version2c, Community: roCommunity, PDUType: gosnmp.GetRequest,
		RequestID: 7, Variables: []gosnmp.SnmpPDU{{Name: mib.SysName0, Type: gosnmp.Null}}})
	v3 := func(user, engine string, msgID uint32) []byte {
		return marshal(t, &gosnmp.SnmpPacket{Version: gosnmp.Version3, MsgFlags: gosnmp.NoAuthNoPriv | gosnmp.Reportable,
			SecurityModel: gosnmp.UserSecurityModel, MsgID: msgID, PDUType: gosnmp.GetRequest, RequestID: 9,
			SecurityParameters: &gosnmp.UsmSecurityParameters{UserName: user, AuthoritativeEngineID: engine},
			Variables:          []gosnmp.SnmpPDU{{Name: mib.SysName0, Type: gosnmp.Null}}})
	}
	negative := v3("noauth", string(h.r.EngineID()), 7)
	if i := bytes.Index(negative, []byte{0x02, 0x04, 0x00, 0x00, 0x00, 0x07}); i < 0 { // gosnmp writes msgID in four octets
		t.Fatalf("no msgID 7 in %x", negative)
	} else {
		negative[i+2] = 0x80 // -2147483641, same length
	}
	bad := map[string][]byte{
		"padded sub-identifier":   editNth(get, byte(gosnmp.ObjectIdentifier), 0, []byte{0x2b, 0x06, 0x01, 0x02, 0x01, 0x01, 0x80, 0x05, 0x00}),
		"version with padding":    editNth(get, byte(gosnmp.Integer), 0, []byte{0x00, 0x01}),
		"request-id with padding": editNth(get, byte(gosnmp.Integer), 1, []byte{0x00, 0x07}),
		"negative msgID":          negative,
		"user name of 40 octets":  v3(strings.Repeat("u", 40), string(h.r.EngineID()), 8),
		"engine ID of 40 octets":  v3("noauth", strings.Repeat("\x80", 40), 9),
	}
	conn, err := net.Dial("udp4", h.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	before := h.r.Stats()
	for _, b := range bad {
		mustWrite(t, conn, b)
	}
	mustWrite(t, conn, get)
	if reply := readReply(t, conn); !bytes.Contains(reply, []byte("node-under-test")) {
		t.Fatalf("the first reply is not the valid GET's: %x", reply)
	}
	// gosnmp pads msgID; its messages are still answered (here with the
	// report of a request outside the time window).
	mustWrite(t, conn, v3("noauth", string(h.r.EngineID()), 11))
	readReply(t, conn)
	deadline := time.After(5 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for h.r.Stats().InASNParseErrs-before.InASNParseErrs < uint64(len(bad)) {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("snmpInASNParseErrs rose by %d for %d forbidden messages", h.r.Stats().InASNParseErrs-before.InASNParseErrs, len(bad))
		}
	}
	if s := h.r.Stats(); s.OutPkts-before.OutPkts != 2 {
		t.Fatalf("%d replies, want only the valid GET's and the v3 report", s.OutPkts-before.OutPkts)
	}
}
