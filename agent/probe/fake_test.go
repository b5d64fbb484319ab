package probe

import (
	"errors"
	"net"
	"net/netip"
	"testing"

	"github.com/gosnmp/gosnmp"
)

// fakePeer is a loopback UDP server that answers each SNMPv2c request
// with the varbinds a test function chooses, to produce odd replies.
type fakePeer struct {
	conn net.PacketConn
}

// startFakePeer serves answer on 127.0.0.1:0 until the test ends.
func startFakePeer(t *testing.T, answer func(req *gosnmp.SnmpPacket) []gosnmp.SnmpPDU) *fakePeer {
	t.Helper()
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakePeer{conn: conn}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.serve(t, answer)
	}()
	t.Cleanup(func() { conn.Close(); <-done })
	return f
}

// serve decodes requests with gosnmp and encodes the chosen response.
func (f *fakePeer) serve(t *testing.T, answer func(req *gosnmp.SnmpPacket) []gosnmp.SnmpPDU) {
	codec := &gosnmp.GoSNMP{Version: gosnmp.Version2c, Community: "public"}
	buf := make([]byte, 65536)
	for {
		n, from, err := f.conn.ReadFrom(buf)
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			t.Errorf("fake agent read: %v", err)
			return
		}
		req, err := codec.SnmpDecodePacket(buf[:n])
		if err != nil {
			t.Errorf("fake agent decode: %v", err)
			continue
		}
		resp := &gosnmp.SnmpPacket{Version: gosnmp.Version2c, Community: "public",
			PDUType: gosnmp.GetResponse, RequestID: req.RequestID, Variables: answer(req)}
		out, err := resp.MarshalMsg()
		if err != nil {
			t.Errorf("fake agent encode: %v", err)
			continue
		}
		if _, err := f.conn.WriteTo(out, from); err != nil {
			t.Errorf("fake agent write: %v", err)
		}
	}
}

// target is the Target of the fake agent.
func (f *fakePeer) target() Target {
	return Target{Addr: netip.MustParseAddr("127.0.0.1"), Port: uint16(f.conn.LocalAddr().(*net.UDPAddr).Port)}
}
