package probe

import (
	"context"
	"math"
	"net"
	"net/netip"
	"slices"
	"sync"
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
// (View.Confirm) finds it alive, and ends the re-test: fault-free, the
// burst's loss counted (hiadsd.Heavy). A silent peer stays down (partial:
// loopback answers the echo) with every request of the burst lost; a clean
// one costs no burst unless it is held degraded or the test answers
// another agent's question; one whose answer lost two requests, or that
// says it sees loss on its own tests, is measured (TestLoneLossIsAHint:
// one lost). Each burst ends once its verdict is settled (hiadsd.Settled):
// the lossy ones once 40% of its 48 requests are lost, the clean ones once
// 80% are answered, a few requests under way then not counted.
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
	oneInThreeLost := func() func(req *gosnmp.SnmpPacket) bool {
		n := 0
		return func(req *gosnmp.SnmpPacket) bool {
			n += len(req.Variables) % 2
			return len(req.Variables) != 1 || n%3 != 0
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
	settledLossy := confirm * 2 / 5 // lost when a lossy burst is settled
	settledClean := confirm*4/5 + 1 // answered when a clean one is
	lossy := [2]int{settledLossy, confirm}
	// A clean measurement stops once its first CleanRequests are answered;
	// the rest of the spread (48 over 300 ms) goes out meanwhile, so how many
	// more leave depends on how soon the answers are read: two more at rest,
	// 30 more on a loaded host (2026-11-30). Fewer than the whole burst is
	// what stopping early guarantees.
	cleanStop := [2]int{hiadsd.CleanRequests, confirm - 1}
	cases := []struct {
		name   string
		keep   func() func(*gosnmp.SnmpPacket) bool
		view   View
		status hiadsd.Status
		burst  [2]int // the burst's requests counted, at least and at most
		lost   [2]int // those lost
		heavy  bool
		hint   bool // the peer says it sees loss on its own tests
	}{
		{"one in five, held fault-free", oneInFive, View{Held: hiadsd.FaultFree, Confirm: confirm}, hiadsd.FaultFree, lossy, lossy, true, false},
		{"silent", never, View{Held: hiadsd.FaultFree, Confirm: confirm}, hiadsd.Partial, lossy, lossy, true, false},
		{"clean, held fault-free", always, View{Held: hiadsd.FaultFree, Confirm: confirm}, hiadsd.FaultFree, [2]int{}, [2]int{}, false, false},
		{"two requests lost, held fault-free", twoLost, View{Held: hiadsd.FaultFree, Confirm: confirm}, hiadsd.FaultFree, [2]int{settledClean, confirm}, [2]int{}, false, false},
		{"clean, says it sees loss", always, View{Held: hiadsd.FaultFree, Confirm: confirm}, hiadsd.FaultFree, [2]int{settledClean, confirm}, [2]int{}, false, true},
		{"clean, held degraded", always, View{Held: hiadsd.Degraded, Confirm: confirm}, hiadsd.FaultFree, [2]int{settledClean, confirm}, [2]int{}, false, false},
		{"clean, asked", always, View{Held: hiadsd.FaultFree, Confirm: confirm, Asked: true}, hiadsd.FaultFree, cleanStop, [2]int{}, false, false},
		{"clean, hinted (a hello)", always, View{Held: hiadsd.FaultFree, Confirm: confirm, Hinted: true}, hiadsd.FaultFree, cleanStop, [2]int{}, false, false},
		{"one in three lost, hinted: unsure, measured twice", oneInThreeLost, View{Held: hiadsd.FaultFree, Confirm: confirm, Hinted: true}, hiadsd.FaultFree, [2]int{2*confirm - 2, 2 * confirm}, [2]int{2*confirm/3 - 2, 2*confirm/3 + 1}, false, false},
		{"clean, asked, held degraded", always, View{Held: hiadsd.Degraded, Confirm: confirm, Asked: true}, hiadsd.FaultFree, [2]int{settledClean, confirm}, [2]int{}, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			answer := func(req *gosnmp.SnmpPacket) []gosnmp.SnmpPDU {
				if c.hint {
					return seesLoss[:len(req.Variables)]
				}
				return up[:len(req.Variables)]
			}
			// The echo on loopback is read within 500 ms on a loaded host;
			// 50 ms made the silent peer faulty under a load average of 50.
			p := newTestProber(t, func(c *Config) { c.PingTimeout, c.PingCount, c.Retries = 500*time.Millisecond, 1, 3 })
			p.starvedBy = 0 // counts asserted exactly: a loaded machine must not void the burst (TestStarvedBurstCountsNothing)
			without := c.view
			without.Confirm = 0
			base := p.ProbeInView(probeContext(t), startLossyPeer(t, c.keep(), answer).target(), without)
			res := p.ProbeInView(probeContext(t), startLossyPeer(t, c.keep(), answer).target(), c.view)
			burst, lost := res.Sent-base.Sent, res.Unanswered-base.Unanswered
			if c.name == "one in five, held fault-free" {
				// The burst's answers prove the peer alive and cut the re-test
				// short: of the test's own requests (all lost), 1 to base.Sent
				// are sent. The burst is what is left; only its loss's bounds
				// are known.
				if answered := res.Sent - res.Unanswered; answered < 1 || res.Sent-1 < c.burst[0] || res.Sent-base.Sent > c.burst[1] {
					t.Fatalf("%d sent, %d answered, the test alone %d: want a burst of %d to %d, beside 1 to %d of the test's own",
						res.Sent, answered, base.Sent, c.burst[0], c.burst[1], base.Sent)
				}
				burst, lost = max(res.Sent-base.Sent, c.burst[0]), max(res.Unanswered-base.Sent, c.lost[0])
			}
			if res.Status != c.status || burst < c.burst[0] || burst > c.burst[1] || lost < c.lost[0] || lost > c.lost[1] {
				t.Fatalf("status %v, %d sent, %d unanswered; without the burst %v, %d, %d; want %v and a burst of %d to %d, %d to %d lost",
					res.Status, res.Sent, res.Unanswered, base.Status, base.Sent, base.Unanswered, c.status, c.burst[0], c.burst[1], c.lost[0], c.lost[1])
			}
			if heavy := hiadsd.Heavy(res.Sent, res.Unanswered); heavy != c.heavy {
				t.Fatalf("Heavy(%d, %d) = %v", res.Sent, res.Unanswered, heavy)
			}
		})
	}
}

// TestLoneLossIsAHint: a peer held fault-free whose test lost one request
// (a reply late on a busy host, or a lossy link) is measured: a clean link
// ends the burst once its first hiadsd.CleanRequests are answered, and no other
// agent is asked; a lossy one runs the burst until 40% of it is lost
// (hiadsd.Settled), and the other agents are asked once a request of it is,
// View.Lossy called before them (the tester's own testers measure it
// meanwhile), and never on a clean one.
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
		asked, said, saidFirst := 0, 0, false
		second := func(context.Context) <-chan hiadsd.Status {
			asked++
			saidFirst = said == 1
			ch := make(chan hiadsd.Status)
			close(ch)
			return ch
		}
		// The burst's requests leave spread over the wait: a 1 s wait puts
		// 42 ms between them, so a loaded host reading the eighth answer a
		// little late sends none more (at 300 ms, 12.5 ms apart, 12 left
		// in a clean-clone run beside the LAN tests).
		p := newTestProber(t, func(c *Config) {
			c.Timeout, c.PingTimeout, c.PingCount, c.Retries = time.Second, 50*time.Millisecond, 1, 3
		})
		p.starvedBy = 0
		res := p.ProbeInView(probeContext(t), startLossyPeer(t, oneLost(lossy), answer).target(),
			View{Held: hiadsd.FaultFree, Confirm: hiadsd.ConfirmRequests, Second: second, Lossy: func() { said++ }})
		burst, lost := res.Sent-2, res.Unanswered-1 // the test: one request lost, one answered
		switch {
		case res.Status != hiadsd.FaultFree:
			t.Fatalf("lossy %v: %v", lossy, res.Status)
		case lossy != (said == 1) || lossy && !saidFirst:
			t.Fatalf("lossy %v: View.Lossy called %d times, before the question: %v; want once before it on a lossy link, never on a clean one",
				lossy, said, saidFirst)
		case !lossy && (burst < hiadsd.CleanRequests || burst > hiadsd.CleanRequests+2 || lost != 0 || asked != 0):
			t.Fatalf("clean link: a burst of %d, %d lost, %d questions; want %d or a little more, none lost, none asked",
				burst, lost, asked, hiadsd.CleanRequests)
		case lossy && (lost < hiadsd.ConfirmRequests*2/5 || lost > burst/2+1 || asked != 1):
			t.Fatalf("lossy link: a burst of %d, %d lost, %d questions; want it settled (%d lost or more), about half lost, one question",
				burst, lost, asked, hiadsd.ConfirmRequests*2/5)
		}
	}
}

// TestBurstReusesSockets: a burst to a clean peer sends its requests on the
// sockets of requests answered before them, not a socket each; on a lossy
// one a lost request's socket is not reused, and every request is still
// counted.
func TestBurstReusesSockets(t *testing.T) {
	up := []gosnmp.SnmpPDU{{Name: mib.HiADSDisUP0, Type: gosnmp.OctetString, Value: []byte("1")}}
	answer := func(*gosnmp.SnmpPacket) []gosnmp.SnmpPDU { return up }
	for _, lossy := range []bool{false, true} {
		var keep func(*gosnmp.SnmpPacket) bool
		if lossy {
			n := 0
			keep = func(*gosnmp.SnmpPacket) bool { n++; return n%4 != 0 } // a quarter lost
		}
		peer := startLossyPeer(t, keep, answer)
		p := newTestProber(t, func(c *Config) { c.Timeout = 300 * time.Millisecond })
		p.starvedBy = 0
		const n = 24
		sent, unanswered, _ := p.measure(probeContext(t), peer.target(), n)
		switch {
		case sent != n:
			t.Fatalf("lossy %v: %d of %d requests counted", lossy, sent, n)
		case !lossy && (unanswered != 0 || peer.sources() > 2):
			t.Fatalf("clean: %d lost, requests from %d sockets; want none lost, one or two sockets", unanswered, peer.sources())
		case lossy && (unanswered != n/4 || peer.sources() < n/4 || peer.sources() > n/4+2):
			t.Fatalf("lossy: %d lost, requests from %d sockets; want %d lost, a socket for each lost request and one or two more", unanswered, peer.sources(), n/4)
		}
	}
}

// closedPort is a loopback target whose port no socket holds: its host
// refuses every request (ICMP port unreachable), as a crashed agent's does.
func closedPort(t *testing.T) Target {
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	return Target{Addr: netip.MustParseAddr("127.0.0.1"), Port: uint16(conn.LocalAddr().(*net.UDPAddr).Port)}
}

// TestBurstEndsAtARefusal: a peer whose host refuses the requests (no
// agent listens: a crash) is re-tested without a burst, and no request
// counts as lost but the test's own.
func TestBurstEndsAtARefusal(t *testing.T) {
	closed := closedPort(t)
	p := newTestProber(t, func(c *Config) { c.PingTimeout, c.PingCount = 50*time.Millisecond, 1 })
	base := p.ProbeInView(probeContext(t), closed, View{Held: hiadsd.FaultFree})
	p = newTestProber(t, func(c *Config) { c.PingTimeout, c.PingCount = 50*time.Millisecond, 1 })
	res := p.ProbeInView(probeContext(t), closed, View{Held: hiadsd.FaultFree, Confirm: hiadsd.ConfirmRequests})
	if res.Status.Up() || !res.Retested || res.Sent != base.Sent || res.Unanswered != base.Unanswered {
		t.Fatalf("a refused peer: %v (re-tested %v), %d sent, %d unanswered; without the burst %d and %d",
			res.Status, res.Retested, res.Sent, res.Unanswered, base.Sent, base.Unanswered)
	}
}

// TestAskedRefusalAnswersAtOnce: a test that answers another agent's
// question about a peer whose host refuses the requests gives the refusal's
// verdict without a re-test or a burst (the asker re-tests it itself); a
// peer that is silent is still re-tested.
func TestAskedRefusalAnswersAtOnce(t *testing.T) {
	closed := closedPort(t)
	asked := View{Held: hiadsd.FaultFree, Confirm: hiadsd.ConfirmRequests, Asked: true}
	p := newTestProber(t, func(c *Config) { c.PingTimeout, c.PingCount = 50*time.Millisecond, 1 })
	res := p.ProbeInView(probeContext(t), closed, asked)
	base := p.ProbeInView(probeContext(t), closed, View{Held: hiadsd.FaultFree})
	if res.Status != hiadsd.Partial || res.Retested || res.Sent >= base.Sent {
		t.Fatalf("a refused peer, asked: %v (re-tested %v), %d sent; want partial at once, fewer requests than the %d of a test and its re-test",
			res.Status, res.Retested, res.Sent, base.Sent)
	}
	silent := startLossyPeer(t, func(*gosnmp.SnmpPacket) bool { return false }, nil).target()
	res = p.ProbeInView(probeContext(t), silent, asked)
	if res.Status != hiadsd.Partial || !res.Retested {
		t.Fatalf("a silent peer, asked: %v (re-tested %v); want partial, re-tested", res.Status, res.Retested)
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

// TestOvertakenRequestsAreLost: a request of a burst that a later one
// overtook (answered while it was still under way) is lost once it has
// waited twice the longest answer and the reorder window, and not before;
// one that nothing overtook waits its whole wait, however late (a reply
// late on a busy host comes in order). Once 40% of the burst is lost its verdict is settled: it stops, and
// nothing after that moves its counts.
func TestOvertakenRequestsAreLost(t *testing.T) {
	stops := 0
	b := &burst{n: hiadsd.ConfirmRequests, reqs: make([]request, hiadsd.ConfirmRequests), stop: func() { stops++ }}
	t0 := time.Unix(1000, 0)
	const window = 50 * time.Millisecond
	for k := range 4 {
		b.reqs[k] = request{state: reqUnderWay, at: t0.Add(time.Duration(k) * 20 * time.Millisecond)}
	}
	b.answer(2, 5*time.Millisecond) // 0 and 1 overtaken; 3 not
	b.judge(t0.Add(55*time.Millisecond), window)
	if b.reqs[0].state != reqOvertaken || b.reqs[1].state != reqOvertaken {
		t.Fatalf("55 ms after the first left (window 50 ms, answers 5 ms): %v; want both overtaken, not yet lost", b.reqs[:4])
	}
	b.judge(t0.Add(65*time.Millisecond), window) // 0 waited 65 ≥ 2·5+50; 1 waited 45
	if b.reqs[0].state != reqLost || b.reqs[1].state != reqOvertaken {
		t.Fatalf("65 ms on: %v; want the first lost, the second overtaken", b.reqs[:4])
	}
	b.judge(t0.Add(10*time.Second), window)
	if b.reqs[3].state != reqUnderWay || b.reqs[1].state != reqLost {
		t.Fatalf("10 s on: %v; want the request nothing overtook still under way, the overtaken one lost", b.reqs[:4])
	}
	if stops != 0 {
		t.Fatalf("stopped %d times with 2 of %d lost", stops, b.n)
	}
	for k := 4; k < 22; k++ {
		b.mark(k, reqLost)
	}
	b.mark(22, reqAnswered)
	b.mark(23, reqAnswered)
	if b.settled || stops != 0 {
		t.Fatalf("20 of %d lost, 23 counted: settled %v; want not yet (Heavy needs 24 counted)", b.n, b.settled)
	}
	b.mark(24, reqAnswered) // 20 lost, 4 answered: Heavy, and 40% of 48
	if !b.settled || stops != 1 {
		t.Fatalf("20 of %d lost, 24 counted: settled %v, %d stops; want settled once", b.n, b.settled, stops)
	}
	b.answer(3, time.Millisecond)
	if b.reqs[3].state != reqUnderWay {
		t.Fatal("an answer after the verdict was settled moved the burst's counts")
	}
}

// TestAskedRetestEndsWithTheAskers: a test that answers another agent's
// question about a peer held up, finding it silent, re-tests it with its
// waits shortened by half of what its first try took (attempt.after), so
// its answer comes as the asker's own re-test ends; a test of its own
// waits test.timeout in its re-test. The peer stays down either way
// (partial: loopback answers the echo).
func TestAskedRetestEndsWithTheAskers(t *testing.T) {
	for _, asked := range []bool{false, true} {
		p := newTestProber(t, func(c *Config) { c.Retries = 3 })
		p.starvedBy = 0
		silent := startLossyPeer(t, func(*gosnmp.SnmpPacket) bool { return false }, nil).target()
		res := p.ProbeInView(probeContext(t), silent, View{Held: hiadsd.FaultFree, Confirm: hiadsd.ConfirmRequests, Asked: asked})
		if res.Status != hiadsd.Partial || !res.Retested {
			t.Fatalf("asked %v: %v (re-tested %v), want partial after a re-test", asked, res.Status, res.Retested)
		}
		timeout := p.cfg.Timeout
		switch {
		case !asked && res.Wait != timeout:
			t.Errorf("own test: the re-test waited %v for each reply, want test.timeout %v", res.Wait, timeout)
		case asked && (res.Wait >= timeout || res.Wait < timeout/2):
			t.Errorf("asked: the re-test waited %v for each reply, want less than test.timeout %v by half the first try, no less than half", res.Wait, timeout)
		}
	}
}

// TestAfter: the shortened re-test's arithmetic, and its floors.
func TestAfter(t *testing.T) {
	a := attempt{wait: time.Second, retries: 1, pingNow: true}
	if got := a.after(160*time.Millisecond, 2*time.Second); got.wait != 920*time.Millisecond || got.pingBy != 1840*time.Millisecond || got.retries != 1 || !got.pingNow {
		t.Errorf("after 160ms: %+v", got)
	}
	if got := a.after(5*time.Second, 2*time.Second); got.wait != 500*time.Millisecond || got.pingBy != time.Second {
		t.Errorf("after 5s: %+v, want the floors", got)
	}
}

// TestAnswersEndOnceDecided: the wait for the agents asked ends as soon as
// the verdicts so far decide the test (hiadsd.Decided: a heavy loss that
// one of them measured too), not when the last one answers; without a
// decision it waits for every one. The wait is an hour and the context
// ends long before: only the decision can end it in time.
func TestAnswersEndOnceDecided(t *testing.T) {
	heavy := func(seen []hiadsd.Status) bool {
		return hiadsd.Decided(hiadsd.FaultFree, hiadsd.ConfirmRequests, hiadsd.ConfirmRequests/2, seen)
	}
	for _, c := range []struct {
		name    string
		decided func([]hiadsd.Status) bool
		close   bool // every agent asked answers
		want    []hiadsd.Status
	}{
		{"decided by a degraded answer", heavy, false, []hiadsd.Status{hiadsd.FaultFree, hiadsd.Degraded}},
		{"waits for every answer", nil, true, []hiadsd.Status{hiadsd.FaultFree, hiadsd.Degraded, hiadsd.FaultFree}},
	} {
		in := make(chan hiadsd.Status, 3)
		v := collect(in)
		in <- hiadsd.FaultFree
		in <- hiadsd.Degraded
		ctx := probeContext(t)
		if c.close {
			in <- hiadsd.FaultFree
			close(in)
		}
		seen, _ := v.end(ctx, time.Hour, c.decided)
		if ctx.Err() != nil || !slices.Equal(seen, c.want) {
			t.Errorf("%s: seen %v (context: %v); want %v before the context ends", c.name, seen, ctx.Err(), c.want)
		}
	}
}

// TestMeasureSpreadsItsRequests: the requests a test adds while the agent
// has seen loss (View.Measure) do not wait for each other's timeouts: one
// left unanswered, the next leaves at its turn of the spread over the
// re-test's wait. A peer that answers each of them only once the next has
// come loses none of them, where one after another, each awaiting the
// last, would lose every one (the agent's loop stalled up to 48 s a test
// at 50% loss).
func TestMeasureSpreadsItsRequests(t *testing.T) {
	up := []gosnmp.SnmpPDU{{Name: mib.HiADSDisUP0, Type: gosnmp.OctetString, Value: []byte("1")},
		{Name: mib.DiagViewDigest0, Type: gosnmp.OctetString, Value: make([]byte, 8)}}
	var mu sync.Mutex
	arrived, order := 0, map[uint32]int{} // the measurement's requests so far; each one's place
	note := func(req *gosnmp.SnmpPacket) bool {
		if len(req.Variables) == 1 { // the measurement's requests ask for hiADSDisUP alone
			mu.Lock()
			order[req.RequestID] = arrived
			arrived++
			mu.Unlock()
		}
		return true
	}
	answer := func(req *gosnmp.SnmpPacket) []gosnmp.SnmpPDU {
		if len(req.Variables) == 1 {
			mu.Lock()
			me := order[req.RequestID]
			mu.Unlock()
			for give := time.Now().Add(1500 * time.Millisecond); time.Now().Before(give); time.Sleep(time.Millisecond) {
				mu.Lock()
				next := arrived > me+1
				mu.Unlock()
				if next {
					break
				}
			}
		}
		return up[:len(req.Variables)]
	}
	p := newTestProber(t, func(c *Config) { c.Timeout = time.Second })
	p.starvedBy = 0 // counts asserted exactly: a loaded machine must not void the measurement
	res := p.ProbeInView(probeContext(t), startLossyPeer(t, note, answer).target(),
		View{Held: hiadsd.FaultFree, Measure: hiadsd.MeasureRequests})
	measured := res.Sent - 1 // the test's own request, answered at once
	if res.Status != hiadsd.FaultFree || measured < hiadsd.MeasureRequests*4/5 || measured > hiadsd.MeasureRequests || res.Unanswered != 0 {
		t.Fatalf("%v, %d sent, %d unanswered; want fault-free, the test's request and %d to %d of the measurement's sent, none lost",
			res.Status, res.Sent, res.Unanswered, hiadsd.MeasureRequests*4/5, hiadsd.MeasureRequests)
	}
}

// TestMeasureIsPacedOnACleanLink: on a clean link each request of the
// measurement leaves once the one before is answered, not at its turn of
// the spread: with a 20 s wait (a turn every 833 ms) the 24 requests are
// answered within a few round trips, long before a 5 s deadline.
func TestMeasureIsPacedOnACleanLink(t *testing.T) {
	up := []gosnmp.SnmpPDU{{Name: mib.HiADSDisUP0, Type: gosnmp.OctetString, Value: []byte("1")},
		{Name: mib.DiagViewDigest0, Type: gosnmp.OctetString, Value: make([]byte, 8)}}
	p := newTestProber(t, func(c *Config) { c.Timeout = 20 * time.Second })
	p.starvedBy = 0
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res := p.ProbeInView(ctx, startFakePeer(t, func(req *gosnmp.SnmpPacket) []gosnmp.SnmpPDU { return up[:len(req.Variables)] }).target(),
		View{Held: hiadsd.FaultFree, Measure: hiadsd.MeasureRequests})
	if measured := res.Sent - 1; res.Status != hiadsd.FaultFree || measured < hiadsd.MeasureRequests*4/5 || res.Unanswered != 0 || ctx.Err() != nil {
		t.Fatalf("%v, %d sent, %d unanswered, deadline passed: %v; want fault-free and %d or more of the measurement's answered before it",
			res.Status, res.Sent, res.Unanswered, ctx.Err() != nil, hiadsd.MeasureRequests*4/5)
	}
}
