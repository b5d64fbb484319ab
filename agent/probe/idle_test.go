package probe

import (
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// upWithDigest is a healthy agent's answer to a test.
func upWithDigest(*gosnmp.SnmpPacket) []gosnmp.SnmpPDU {
	return []gosnmp.SnmpPDU{{Name: mib.HiADSDisUP0, Type: gosnmp.OctetString, Value: []byte("1")},
		{Name: mib.DiagViewDigest0, Type: gosnmp.OctetString, Value: make([]byte, 8)}}
}

// TestTestsKeepTheirSocket: the tests of a peer tested again and again
// (within KeepFor) go out on one socket while each is answered at once; the
// first test's socket, that of a peer last tested longer ago, that of a test
// that resent a request, or a kept socket closed meanwhile, leave the next
// test a new one; and a kept socket whose peer went away is refused as a
// new one would be.
func TestTestsKeepTheirSocket(t *testing.T) {
	n := 0
	peer := startLossyPeer(t, func(*gosnmp.SnmpPacket) bool { n++; return n != 4 }, upWithDigest) // the fourth request lost
	// Each reply awaited a second: only the lost request is resent.
	p := newTestProber(t, func(c *Config) { c.TimeoutMin, c.Timeout, c.KeepFor = time.Second, time.Second, time.Minute })
	p.pinger = okPinger{}
	ctx := probeContext(t)
	test := func(step string, sockets int) {
		t.Helper()
		if res := p.Probe(ctx, peer.target()); res.Status != hiadsd.FaultFree || peer.sources() != sockets {
			t.Fatalf("%s: %v (%v), requests from %d sockets; want fault-free from %d", step, res.Status, res.SNMPErr, peer.sources(), sockets)
		}
	}
	test("first test", 1)
	test("second test", 2)
	test("third test", 2)
	test("a request lost and resent", 2)
	test("after a resend", 3)
	test("after a clean test", 3)
	p.book.update(key(peer.target()), func(s *peerState) { s.clean = s.clean.Add(-2 * p.cfg.KeepFor) })
	test("after a test longer ago than KeepFor", 3)
	test("after a test not kept", 4)
	test("after a test kept", 4)
	p.idle.mu.Lock()
	p.idle.clients[key(peer.target())].g.Conn.Close()
	p.idle.mu.Unlock()
	test("after the kept socket closed", 5)

	peer.conn.Close() // the agent is gone: its host refuses
	if res := p.Probe(ctx, peer.target()); !res.Refused() {
		t.Fatalf("a gone agent on a kept socket: %v (%v); want partial, refused", res.Status, res.SNMPErr)
	}
}

// TestIdleKeepsFewAndFresh: idle keeps one socket a peer, idleCap at most
// (the oldest go), none idle longer than keepFor or open longer than
// socketLife, none at all with keepFor 0, and closes what it lets go.
func TestIdleKeepsFewAndFresh(t *testing.T) {
	peer := func(i int) netip.AddrPort {
		return netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(1000+i))
	}
	now := time.Now()
	opened := func(at time.Time) *gosnmp.GoSNMP {
		conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return &gosnmp.GoSNMP{Conn: &socket{Conn: conn, opened: at}}
	}
	client := func() *gosnmp.GoSNMP { return opened(now) }
	closed := func(g *gosnmp.GoSNMP) bool { return g.Conn.SetDeadline(time.Time{}) != nil }
	const keepFor = 30 * time.Second
	var c idle
	old := opened(now.Add(-socketLife - time.Second))
	if c.put(peer(0), old, now, keepFor); !closed(old) || len(c.clients) != 0 {
		t.Fatalf("a socket older than %v kept", socketLife)
	}
	gs := make([]*gosnmp.GoSNMP, idleCap+2)
	for i := range gs {
		gs[i] = client()
		c.put(peer(i), gs[i], now.Add(time.Duration(i)*time.Millisecond), keepFor)
	}
	for i, g := range gs {
		if closed(g) != (i < 2) {
			t.Fatalf("after %d puts, socket %d closed: %v; want the two oldest closed", len(gs), i, closed(g))
		}
	}
	again := client()
	c.put(peer(7), again, now.Add(time.Second), keepFor)
	if !closed(gs[7]) || closed(again) || len(c.clients) != idleCap {
		t.Fatalf("a second socket for one peer: the first closed %v, the second %v, %d kept", closed(gs[7]), closed(again), len(c.clients))
	}
	if g := c.take(peer(7), now.Add(2*time.Second), keepFor); g != again {
		t.Fatalf("take gave %p, want the socket kept last, %p", g, again)
	}
	if g := c.take(peer(7), now.Add(2*time.Second), keepFor); g != nil {
		t.Fatal("a socket taken twice")
	}
	if g := c.take(peer(5), now.Add(keepFor+time.Second), keepFor); g != nil || !closed(gs[5]) {
		t.Fatalf("a socket kept longer than %v: taken %v, closed %v", keepFor, g != nil, closed(gs[5]))
	}
	last := opened(now.Add(keepFor + time.Minute))
	c.put(peer(100), last, now.Add(keepFor+time.Minute), keepFor)
	if len(c.clients) != 1 || !closed(gs[6]) {
		t.Fatalf("after keepFor, %d kept; want only the newest", len(c.clients))
	}
	c.close()
	if !closed(last) || len(c.clients) != 0 {
		t.Fatal("close left a socket open")
	}
	var none idle
	g := client()
	if none.put(peer(1), g, now, 0); !closed(g) || len(none.clients) != 0 {
		t.Fatal("a socket kept with keepFor 0")
	}
}
