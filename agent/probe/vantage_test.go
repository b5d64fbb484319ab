package probe

import (
	"context"
	"math"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// TestDegradedRowsAndDigests: a diagTree row of status degraded(4) reads,
// one of 5 does not; a nine-octet digest ending in 1 is a peer that doubts
// its own tests.
func TestDegradedRowsAndDigests(t *testing.T) {
	if st, err := statusValue(gosnmp.SnmpPDU{Name: mib.NodeStatus + ".6", Type: gosnmp.Integer, Value: 4}); err != nil || st != hiadsd.Degraded {
		t.Fatalf("nodeStatus 4: %v, %v", st, err)
	}
	if _, err := statusValue(gosnmp.SnmpPDU{Name: mib.NodeStatus + ".6", Type: gosnmp.Integer, Value: 5}); err == nil {
		t.Fatal("nodeStatus 5 read")
	}
	d := []byte{0, 0, 0, 0, 0, 0, 0, 7, 1}
	if got := digestValue(gosnmp.SnmpPDU{Name: mib.DiagViewDigest0, Type: gosnmp.OctetString, Value: d}); got != (served{digest: 7, doubts: true}) {
		t.Fatalf("nine octets ending in 1: %+v", got)
	}
	if got := digestValue(gosnmp.SnmpPDU{Name: mib.DiagViewDigest0, Type: gosnmp.OctetString, Value: d[:8]}); got != (served{digest: 7}) {
		t.Fatalf("eight octets: %+v", got)
	}
	d[8] = 2
	if got := digestValue(gosnmp.SnmpPDU{Name: mib.DiagViewDigest0, Type: gosnmp.OctetString, Value: d}); got != (served{digest: 7, seesLoss: true}) {
		t.Fatalf("nine octets ending in 2: %+v", got)
	}
	d[8] = 3
	if got := digestValue(gosnmp.SnmpPDU{Name: mib.DiagViewDigest0, Type: gosnmp.OctetString, Value: d}); got != (served{}) {
		t.Fatalf("nine octets ending in 3: %+v, want no digest", got)
	}
}

// TestConfirmMeasuresTheLink: a peer that answers none of a test's own
// requests and one in five of the burst's (the others lost, as on a link
// losing 80% each way) fails its first try, and the re-test's burst
// (View.Confirm) finds it alive, and ends the re-test: fault-free, the burst's loss counted
// (hiadsd.Heavy). A silent peer stays down (partial: loopback answers
// the echo) with every request of the burst lost; a clean one costs no
// burst unless it is held degraded or the test answers another agent's
// question; one whose answer lost two requests, or that says it sees
// loss on its own tests, is measured whole (TestLoneLossIsAHint: one lost).
func TestConfirmMeasuresTheLink(t *testing.T) {
	up := []gosnmp.SnmpPDU{{Name: mib.HiADSDisUP0, Type: gosnmp.OctetString, Value: []byte("1")},
		{Name: mib.DiagViewDigest0, Type: gosnmp.OctetString, Value: make([]byte, 8)}}
	seesLoss := []gosnmp.SnmpPDU{up[0], {Name: mib.DiagViewDigest0, Type: gosnmp.OctetString, Value: []byte{0, 0, 0, 0, 0, 0, 0, 0, 2}}}
	oneInFive := func() func(req *gosnmp.SnmpPacket) bool {
		n := 0 // the burst's requests ask for hiADSDisUP alone
		return func(req *gosnmp.SnmpPacket) bool {
			n += len(req.Variables) % 2
			return len(req.Variables) == 1 && n%5 == 1
		}
	}
	never := func() func(*gosnmp.SnmpPacket) bool { return func(*gosnmp.SnmpPacket) bool { return false } }
	always := func() func(*gosnmp.SnmpPacket) bool { return nil }
	twoLost := func() func(*gosnmp.SnmpPacket) bool {
		n := 0 // the test's own requests ask for two objects
		return func(req *gosnmp.SnmpPacket) bool {
			n += len(req.Variables) / 2
			return n > 2 || len(req.Variables) != 2
		}
	}
	confirm := hiadsd.ConfirmRequests
	cases := []struct {
		name        string
		keep        func() func(*gosnmp.SnmpPacket) bool
		view        View
		status      hiadsd.Status
		burst, lost int // the burst's requests, and those lost
		heavy       bool
		hint        bool // the peer says it sees loss on its own tests
	}{
		{"one in five, held fault-free", oneInFive, View{Held: hiadsd.FaultFree, Confirm: confirm}, hiadsd.FaultFree, confirm, confirm * 4 / 5, true, false},
		{"silent", never, View{Held: hiadsd.FaultFree, Confirm: confirm}, hiadsd.Partial, confirm, confirm, true, false},
		{"clean, held fault-free", always, View{Held: hiadsd.FaultFree, Confirm: confirm}, hiadsd.FaultFree, 0, 0, false, false},
		{"two requests lost, held fault-free", twoLost, View{Held: hiadsd.FaultFree, Confirm: confirm}, hiadsd.FaultFree, confirm, 0, false, false},
		{"clean, says it sees loss", always, View{Held: hiadsd.FaultFree, Confirm: confirm}, hiadsd.FaultFree, confirm, 0, false, true},
		{"clean, held degraded", always, View{Held: hiadsd.Degraded, Confirm: confirm}, hiadsd.FaultFree, confirm, 0, false, false},
		{"clean, asked", always, View{Held: hiadsd.FaultFree, Confirm: confirm, Asked: true}, hiadsd.FaultFree, confirm, 0, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			answer := func(req *gosnmp.SnmpPacket) []gosnmp.SnmpPDU {
				if c.hint {
					return seesLoss[:len(req.Variables)]
				}
				return up[:len(req.Variables)]
			}
			p := newTestProber(t, func(c *Config) { c.PingTimeout, c.PingCount, c.Retries = 50*time.Millisecond, 1, 3 })
			p.starvedBy = 0 // counts asserted exactly: a loaded machine must not void the burst (TestStarvedBurstCountsNothing)
			without := c.view
			without.Confirm = 0
			base := p.ProbeInView(probeContext(t), startLossyPeer(t, c.keep(), answer).target(), without)
			res := p.ProbeInView(probeContext(t), startLossyPeer(t, c.keep(), answer).target(), c.view)
			if c.name == "one in five, held fault-free" {
				// The burst's answers prove the peer alive and cut the re-test
				// short: of the test's own requests (all lost), fewer are sent.
				own := res.Sent - c.burst
				if own < 1 || own > base.Sent {
					t.Fatalf("%d requests beside the burst; want 1 to %d", own, base.Sent)
				}
				base.Sent, base.Unanswered = own, own
			}
			if res.Status != c.status || res.Sent-base.Sent != c.burst || res.Unanswered-base.Unanswered != c.lost {
				t.Fatalf("status %v, %d sent, %d unanswered; without the burst %v, %d, %d; want %v and a burst of %d, %d lost",
					res.Status, res.Sent, res.Unanswered, base.Status, base.Sent, base.Unanswered, c.status, c.burst, c.lost)
			}
			if heavy := hiadsd.Heavy(res.Sent, res.Unanswered); heavy != c.heavy {
				t.Fatalf("Heavy(%d, %d) = %v", res.Sent, res.Unanswered, heavy)
			}
		})
	}
}

// TestLoneLossIsAHint: a peer held fault-free whose test lost one request
// (a reply late on a busy host, or a lossy link) is measured: a clean link
// ends the burst once its first cleanRequests are answered, and no other
// agent is asked; a lossy one runs the whole burst, and the other agents
// are asked once a request of it goes unanswered.
func TestLoneLossIsAHint(t *testing.T) {
	up := []gosnmp.SnmpPDU{{Name: mib.HiADSDisUP0, Type: gosnmp.OctetString, Value: []byte("1")},
		{Name: mib.DiagViewDigest0, Type: gosnmp.OctetString, Value: make([]byte, 8)}}
	answer := func(req *gosnmp.SnmpPacket) []gosnmp.SnmpPDU { return up[:len(req.Variables)] }
	oneLost := func(lossy bool) func(*gosnmp.SnmpPacket) bool {
		tests, burst := 0, 0 // the test's own requests ask for two objects, the burst's for one
		return func(req *gosnmp.SnmpPacket) bool {
			if len(req.Variables) == 2 {
				tests++
				return tests > 1
			}
			burst++
			return !lossy || burst%2 == 0
		}
	}
	for _, lossy := range []bool{false, true} {
		asked := 0
		second := func(context.Context) <-chan hiadsd.Status {
			asked++
			ch := make(chan hiadsd.Status)
			close(ch)
			return ch
		}
		p := newTestProber(t, func(c *Config) { c.PingTimeout, c.PingCount, c.Retries = 50*time.Millisecond, 1, 3 })
		p.starvedBy = 0
		res := p.ProbeInView(probeContext(t), startLossyPeer(t, oneLost(lossy), answer).target(),
			View{Held: hiadsd.FaultFree, Confirm: hiadsd.ConfirmRequests, Second: second})
		burst, lost := res.Sent-2, res.Unanswered-1 // the test: one request lost, one answered
		switch {
		case res.Status != hiadsd.FaultFree:
			t.Fatalf("lossy %v: %v", lossy, res.Status)
		case !lossy && (burst < cleanRequests || burst > cleanRequests+2 || lost != 0 || asked != 0):
			t.Fatalf("clean link: a burst of %d, %d lost, %d questions; want %d or a little more, none lost, none asked",
				burst, lost, asked, cleanRequests)
		case lossy && (burst != hiadsd.ConfirmRequests || lost != burst/2 || asked != 1):
			t.Fatalf("lossy link: a burst of %d, %d lost, %d questions; want %d, half lost, one question",
				burst, lost, asked, hiadsd.ConfirmRequests)
		}
	}
}

// TestBurstEndsAtARefusal: a peer whose host refuses the requests (no
// agent listens: a crash) ends the re-test's burst at the first refusal,
// and no request of the burst counts as lost.
func TestBurstEndsAtARefusal(t *testing.T) {
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := Target{Addr: netip.MustParseAddr("127.0.0.1"), Port: uint16(conn.LocalAddr().(*net.UDPAddr).Port)}
	conn.Close()
	p := newTestProber(t, func(c *Config) { c.PingTimeout, c.PingCount = 50*time.Millisecond, 1 })
	base := p.ProbeInView(probeContext(t), closed, View{Held: hiadsd.FaultFree})
	p = newTestProber(t, func(c *Config) { c.PingTimeout, c.PingCount = 50*time.Millisecond, 1 })
	res := p.ProbeInView(probeContext(t), closed, View{Held: hiadsd.FaultFree, Confirm: hiadsd.ConfirmRequests})
	if res.Status.Up() || !res.Retested || res.Sent != base.Sent || res.Unanswered != base.Unanswered {
		t.Fatalf("a refused peer: %v (re-tested %v), %d sent, %d unanswered; without the burst %d and %d",
			res.Status, res.Retested, res.Sent, res.Unanswered, base.Sent, base.Unanswered)
	}
}

// TestStarvedBurstCountsNothing: a burst whose requests leave late (here
// any lateness at all counts) proves the peer alive but adds no request to
// the test's counts: on a host starved of CPU the share lost says nothing
// of the link.
func TestStarvedBurstCountsNothing(t *testing.T) {
	up := []gosnmp.SnmpPDU{{Name: mib.HiADSDisUP0, Type: gosnmp.OctetString, Value: []byte("1")},
		{Name: mib.DiagViewDigest0, Type: gosnmp.OctetString, Value: make([]byte, 8)}}
	answer := func(req *gosnmp.SnmpPacket) []gosnmp.SnmpPDU { return up[:len(req.Variables)] }
	burstOnly := func(req *gosnmp.SnmpPacket) bool { return len(req.Variables) == 1 } // the test's own requests are lost
	p := newTestProber(t, func(c *Config) { c.PingTimeout, c.PingCount, c.Retries = 50*time.Millisecond, 1, 1 })
	p.starvedBy = math.MaxInt // wait/starvedBy is 0: every request is late
	res := p.ProbeInView(probeContext(t), startLossyPeer(t, burstOnly, answer).target(),
		View{Held: hiadsd.FaultFree, Confirm: hiadsd.ConfirmRequests})
	if res.Status != hiadsd.FaultFree || res.Sent >= hiadsd.ConfirmRequests || res.Sent != res.Unanswered {
		t.Fatalf("%v, %d sent, %d unanswered; want fault-free (the burst answered) and only the test's own requests, all lost",
			res.Status, res.Sent, res.Unanswered)
	}
}
