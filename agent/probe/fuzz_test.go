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
