package probe

import (
	"testing"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/mib"
)

// FuzzProbeReplyDecoding feeds arbitrary datagrams, decoded by gosnmp, to
// every reply check of the prober: none may panic, whatever the peer sends.
func FuzzProbeReplyDecoding(f *testing.F) {
	seed := &gosnmp.SnmpPacket{Version: gosnmp.Version2c, Community: "public", PDUType: gosnmp.GetResponse,
		RequestID: 7, Variables: []gosnmp.SnmpPDU{
			{Name: mib.TreeCell(mib.ColNodeStatus, 1), Type: gosnmp.Integer, Value: 1},
			{Name: mib.TreeCell(mib.ColNodeEventCounter, 1), Type: gosnmp.Gauge32, Value: uint32(3)},
		}}
	b, err := seed.MarshalMsg()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte{0x30, 0x03, 0x02, 0x01, 0x01})
	codec := &gosnmp.GoSNMP{Version: gosnmp.Version2c, Community: "public"}
	f.Fuzz(func(t *testing.T, data []byte) {
		pkt, err := codec.SnmpDecodePacket(data)
		if err != nil {
			return
		}
		rows := []string{mib.NodeStatus, mib.NodeEventCounter}
		_, _, _ = walkReply(pkt, rows, 0, func(idx uint32, vbs []gosnmp.SnmpPDU) (bool, error) {
			_, err := decodeRow(idx, vbs)
			return false, err
		})
		_, _, _ = walkReply(pkt, eventColumns(), 0, func(seq uint32, vbs []gosnmp.SnmpPDU) (bool, error) {
			_, err := decodeEvent(seq, vbs)
			return false, err
		})
		if vb, err := firstValue(pkt, []string{mib.HiADSDisUP0, mib.DiagViewDigest0}); err == nil {
			_ = upValue(vb)
			_ = digestValue(pkt.Variables[1])
		}
		for _, vb := range pkt.Variables {
			_, _ = ipValue(vb)
			_, _ = dateAndTimeValue(vb)
			_, _ = unsignedValue(vb)
		}
	})
}

// discoverySeed is a peer's report to the discovery of message 42, as RFC
// 3414 section 4 has it: engine ID, boots and time, usmStatsUnknownEngineIDs.
func discoverySeed(tb testing.TB, engineID string) []byte {
	tb.Helper()
	pkt := &gosnmp.SnmpPacket{Version: gosnmp.Version3, MsgFlags: gosnmp.NoAuthNoPriv, SecurityModel: gosnmp.UserSecurityModel,
		SecurityParameters: &gosnmp.UsmSecurityParameters{AuthoritativeEngineID: engineID, AuthoritativeEngineBoots: 3, AuthoritativeEngineTime: 100},
		PDUType:            gosnmp.Report, MsgID: 42, RequestID: 42,
		Variables: []gosnmp.SnmpPDU{{Name: ".1.3.6.1.6.3.15.1.1.4.0", Type: gosnmp.Counter32, Value: uint32(1)}}}
	b, err := pkt.MarshalMsg()
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// TestDiscoveryReport: a report answering the discovery is read for its
// engine; an answer to another message is not this discovery's; a report
// whose engine ID RFC 3411 does not allow is an error.
func TestDiscoveryReport(t *testing.T) {
	e, ours, err := discoveryReport(discoverySeed(t, "\x80\x00\x00\xc8\x04peer-1"), 42)
	if !ours || err != nil || e.id != "\x80\x00\x00\xc8\x04peer-1" || e.boots != 3 || e.time != 100 {
		t.Fatalf("the report: %+v, ours %v, %v", e, ours, err)
	}
	if _, ours, _ := discoveryReport(discoverySeed(t, "\x80\x00\x00\xc8\x04peer-1"), 43); ours {
		t.Fatal("a report to message 42 taken for the discovery of 43")
	}
	if _, ours, err := discoveryReport(discoverySeed(t, "\x80\x00"), 42); !ours || err == nil {
		t.Fatalf("an engine ID of 2 octets: ours %v, %v; want an error", ours, err)
	}
}

// FuzzDiscoveryReport: whatever a peer sends back to a discovery, reading
// it never panics, and an engine taken from it has an ID of 5 to 32 octets.
func FuzzDiscoveryReport(f *testing.F) {
	f.Add(discoverySeed(f, "\x80\x00\x00\xc8\x04peer-1"))
	f.Add([]byte{0x30, 0x03, 0x02, 0x01, 0x03})
	f.Fuzz(func(t *testing.T, data []byte) {
		e, ours, err := discoveryReport(data, 42)
		if ours && err == nil && (len(e.id) < 5 || len(e.id) > 32) {
			t.Fatalf("engine ID of %d octets taken", len(e.id))
		}
	})
}
