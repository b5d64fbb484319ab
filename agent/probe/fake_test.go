package probe

import (
	"errors"
	"net"
	"net/netip"
	"sync"
	"testing"

	"github.com/gosnmp/gosnmp"
)

// fakePeer is a loopback UDP server that answers each SNMPv2c request
// with the varbinds a test function chooses, to produce odd replies. Each
// request is answered on its own goroutine, so an answer that stalls (a
// starved member) delays only itself, as a process that resumes answers
// every request it queued at once.
type fakePeer struct {
	conn    net.PacketConn
	answers sync.WaitGroup
	// keep, when set, says whether a request is answered: the others are
	// lost, as on a lossy link. It is called from one goroutine.
	keep func(req *gosnmp.SnmpPacket) bool
	// ports counts the requests from each source port.
	mu    sync.Mutex
	ports map[int]int
}

// sources returns how many source ports the peer got requests from.
func (f *fakePeer) sources() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.ports)
}

// startFakePeer serves answer on 127.0.0.1:0 until the test ends.
func startFakePeer(t *testing.T, answer func(req *gosnmp.SnmpPacket) []gosnmp.SnmpPDU) *fakePeer {
	return startLossyPeer(t, nil, answer)
}

// startLossyPeer is startFakePeer for a peer that answers only the
// requests keep keeps.
func startLossyPeer(t *testing.T, keep func(req *gosnmp.SnmpPacket) bool, answer func(req *gosnmp.SnmpPacket) []gosnmp.SnmpPDU) *fakePeer {
	t.Helper()
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakePeer{conn: conn, keep: keep}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.serve(t, answer)
	}()
	t.Cleanup(func() { conn.Close(); <-done; f.answers.Wait() })
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
		f.mu.Lock()
		if f.ports == nil {
			f.ports = map[int]int{}
		}
		f.ports[from.(*net.UDPAddr).Port]++
		f.mu.Unlock()
		if f.keep != nil && !f.keep(req) {
			continue
		}
		f.answers.Add(1)
		go func() {
			defer f.answers.Done()
			f.reply(t, req, answer(req), from)
		}()
	}
}

// reply encodes and sends one response. A reply that finds the socket
// closed came after the test ended and is dropped, as a real peer's would be.
func (f *fakePeer) reply(t *testing.T, req *gosnmp.SnmpPacket, vars []gosnmp.SnmpPDU, to net.Addr) {
	resp := &gosnmp.SnmpPacket{Version: gosnmp.Version2c, Community: "public",
		PDUType: gosnmp.GetResponse, RequestID: req.RequestID, Variables: vars}
	out, err := resp.MarshalMsg()
	if err != nil {
		t.Errorf("fake agent encode: %v", err)
		return
	}
	if _, err := f.conn.WriteTo(out, to); err != nil && !errors.Is(err, net.ErrClosed) {
		t.Errorf("fake agent write: %v", err)
	}
}

// target is the Target of the fake agent.
func (f *fakePeer) target() Target {
	return Target{Addr: netip.MustParseAddr("127.0.0.1"), Port: uint16(f.conn.LocalAddr().(*net.UDPAddr).Port)}
}
