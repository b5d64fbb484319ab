package probe

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

func TestRTTFollowsRFC6298(t *testing.T) {
	const floor, ceiling = 10 * time.Millisecond, time.Second
	var r rtt
	if got := r.timeout(floor, ceiling); got != ceiling {
		t.Fatalf("before any sample: %s, want the ceiling", got)
	}
	r.sample(20 * time.Millisecond) // SRTT = R, RTTVAR = R/2
	if r.srtt != 20*time.Millisecond || r.rttvar != 10*time.Millisecond || r.timeout(floor, ceiling) != 60*time.Millisecond {
		t.Fatalf("first sample: srtt %s rttvar %s timeout %s, want 20ms 10ms 60ms", r.srtt, r.rttvar, r.timeout(floor, ceiling))
	}
	r.sample(36 * time.Millisecond) // RTTVAR = 3/4·10 + 1/4·16 = 11.5, SRTT = 7/8·20 + 1/8·36 = 22
	if r.srtt != 22*time.Millisecond || r.rttvar != 11500*time.Microsecond {
		t.Fatalf("second sample: srtt %s rttvar %s, want 22ms 11.5ms", r.srtt, r.rttvar)
	}
	if got := r.timeout(floor, ceiling); got != 68*time.Millisecond {
		t.Fatalf("timeout %s, want SRTT + 4·RTTVAR = 68ms", got)
	}
	r.ambiguous() // Karn: the estimate stays, the wait doubles until a clean sample
	r.ambiguous()
	if r.srtt != 22*time.Millisecond || r.timeout(floor, ceiling) != 272*time.Millisecond {
		t.Fatalf("after two ambiguous replies: srtt %s timeout %s, want 22ms and 4·68ms", r.srtt, r.timeout(floor, ceiling))
	}
	for range 40 {
		r.ambiguous()
	}
	if got := r.timeout(floor, ceiling); got != ceiling {
		t.Fatalf("backed off past the ceiling: %s", got)
	}
	for range 50 {
		r.sample(100 * time.Microsecond) // a LAN round trip: the floor holds
	}
	if got := r.timeout(floor, ceiling); got != floor {
		t.Fatalf("after LAN round trips: %s, want the floor", got)
	}
}

// TestRTTFollowsADrop: round trips measured while the machine was starved
// (hundreds of milliseconds) no longer hold the wait at the ceiling once a
// LAN round trip comes: a sample eight times below the smoothed one
// restarts the estimate. Smoothing it at 1/8 (RFC 6298 alone) kept the
// ceiling for 13 more samples here, minutes under the rotating plan.
func TestRTTFollowsADrop(t *testing.T) {
	const floor, ceiling = 50 * time.Millisecond, time.Second
	var r rtt
	r.sample(700 * time.Millisecond) // a start-up under load
	r.sample(900 * time.Millisecond)
	if got := r.timeout(floor, ceiling); got != ceiling {
		t.Fatalf("after starved samples: %s, want the ceiling", got)
	}
	r.sample(700 * time.Microsecond) // the LAN again
	if r.srtt != 700*time.Microsecond || r.timeout(floor, ceiling) != floor {
		t.Fatalf("after one LAN round trip: srtt %s timeout %s, want 700µs and the floor", r.srtt, r.timeout(floor, ceiling))
	}
	// Jitter within the factor is smoothed as before: a rise, then half of it.
	r.sample(20 * time.Millisecond)
	r.sample(10 * time.Millisecond)
	if r.srtt >= 10*time.Millisecond || r.srtt <= 700*time.Microsecond {
		t.Fatalf("after 20 ms and 10 ms samples: srtt %s, want it smoothed between 0.7 and 10 ms", r.srtt)
	}
}

// upAnswer is a diagagent's answer to a test: hiADSDisUP "1" and a digest.
func upAnswer(req *gosnmp.SnmpPacket) []gosnmp.SnmpPDU {
	out := []gosnmp.SnmpPDU{{Name: mib.HiADSDisUP0, Type: gosnmp.OctetString, Value: []byte("1")}}
	if len(req.Variables) == 2 {
		out = append(out, gosnmp.SnmpPDU{Name: mib.DiagViewDigest0, Type: gosnmp.OctetString, Value: []byte("digest!!")})
	}
	return out
}

// okPinger answers every echo at once.
type okPinger struct{}

func (okPinger) Ping(context.Context, netip.Addr) (time.Duration, error) {
	return time.Microsecond, nil
}

func TestProbeWaitFollowsRoundTrip(t *testing.T) {
	f := startFakePeer(t, upAnswer)
	cfg := Default()
	cfg.TimeoutMin, cfg.Timeout = 20*time.Millisecond, 2*time.Second
	p, err := New(cfg, okPinger{})
	if err != nil {
		t.Fatal(err)
	}
	first := p.Probe(probeContext(t), f.target())
	if first.Status != hiadsd.FaultFree || first.Wait != cfg.Timeout {
		t.Fatalf("first test: %+v, want fault-free waiting the ceiling (no round trip known)", first)
	}
	second := p.Probe(probeContext(t), f.target())
	// A loopback round trip is far below 20ms/5; only a stalled machine
	// could lift SRTT + 4·RTTVAR above the floor, and never to the ceiling.
	if second.Status != hiadsd.FaultFree || second.Wait >= cfg.Timeout || second.Wait < cfg.TimeoutMin {
		t.Fatalf("second test: %+v, want a wait from the measured round trip, within [%s, %s)", second, cfg.TimeoutMin, cfg.Timeout)
	}
}

func TestProbeRetestLetsSlowPeerRefute(t *testing.T) {
	var slow atomic.Bool
	f := startFakePeer(t, func(req *gosnmp.SnmpPacket) []gosnmp.SnmpPDU {
		if slow.Load() {
			time.Sleep(1500 * time.Millisecond) // a starved member: late, not silent
		}
		return upAnswer(req)
	})
	cfg := Default()
	cfg.TimeoutMin, cfg.Timeout, cfg.Retries = 20*time.Millisecond, 3*time.Second, 1
	p, err := New(cfg, okPinger{})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 { // learn the loopback round trip
		if r := p.Probe(probeContext(t), f.target()); r.Status != hiadsd.FaultFree {
			t.Fatalf("warm-up: %+v", r)
		}
	}
	slow.Store(true)
	r := p.Probe(probeContext(t), f.target())
	// The first test waits twice the learned loopback wait (far below the
	// stall even on a loaded machine) and finds only the echo: partial. The
	// re-test waits up to 3 s per reply and gets the late answer.
	if r.Status != hiadsd.FaultFree || !r.Retested || r.Suspected != hiadsd.Partial || r.Wait != cfg.Timeout {
		t.Fatalf("slow peer: %+v, want a partial suspicion refuted by a re-test waiting the ceiling", r)
	}
}

func TestProbeNoRetestOfHeldVerdict(t *testing.T) {
	dead := Target{Addr: netip.MustParseAddr("127.0.0.1"), Port: probeFreePort(t)}
	cfg := Default()
	cfg.Timeout, cfg.Retries = 200*time.Millisecond, 0
	p, err := New(cfg, okPinger{})
	if err != nil {
		t.Fatal(err)
	}
	if r := p.Probe(probeContext(t), dead); r.Status != hiadsd.Partial || !r.Retested {
		t.Fatalf("first verdict: %+v, want partial after a re-test", r)
	}
	if r := p.Probe(probeContext(t), dead); r.Status != hiadsd.Partial || r.Retested {
		t.Fatalf("same verdict again: %+v, want partial without a re-test", r)
	}
	// What the agent's view holds outranks the prober's own last verdict:
	// a view that learned the peer fault-free meanwhile makes partial new
	// again, and one that learned it partial from other testers does not.
	if r := p.ProbeInView(probeContext(t), dead, View{Held: hiadsd.FaultFree}); r.Status != hiadsd.Partial || !r.Retested {
		t.Fatalf("partial where the view holds fault-free: %+v, want a re-test", r)
	}
	other := Target{Addr: dead.Addr, Port: probeFreePort(t)} // never tested by this prober
	if r := p.ProbeInView(probeContext(t), other, View{Held: hiadsd.Partial}); r.Status != hiadsd.Partial || r.Retested {
		t.Fatalf("partial where the view holds partial: %+v, want no re-test", r)
	}
}

// silentPeer reads requests and answers none, signalling each one.
type silentPeer struct {
	conn net.PacketConn
	got  chan struct{}
}

func startSilentPeer(t *testing.T) *silentPeer {
	t.Helper()
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &silentPeer{conn: conn, got: make(chan struct{}, 64)}
	go func() {
		buf := make([]byte, 2048)
		for {
			if _, _, err := conn.ReadFrom(buf); err != nil {
				return
			}
			s.got <- struct{}{}
		}
	}()
	t.Cleanup(func() { conn.Close() })
	return s
}

// retryPinger answers only once the silent peer has received another SNMP
// request after the ping began: a ping sent after the last retry never does.
type retryPinger struct{ peer *silentPeer }

func (r retryPinger) Ping(ctx context.Context, _ netip.Addr) (time.Duration, error) {
	for len(r.peer.got) > 0 { // what came before the ping does not count
		<-r.peer.got
	}
	select {
	case <-r.peer.got:
		return time.Microsecond, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-time.After(10 * time.Second):
		return 0, errors.New("no SNMP retry came while the ping ran")
	}
}

func TestProbePingsBesideRetries(t *testing.T) {
	peer := startSilentPeer(t)
	cfg := Default()
	cfg.TimeoutMin, cfg.Timeout, cfg.Retries = 50*time.Millisecond, 300*time.Millisecond, 3
	p, err := New(cfg, retryPinger{peer})
	if err != nil {
		t.Fatal(err)
	}
	target := Target{Addr: netip.MustParseAddr("127.0.0.1"), Port: uint16(peer.conn.LocalAddr().(*net.UDPAddr).Port)}
	r := p.Probe(probeContext(t), target)
	if r.Status != hiadsd.Partial || r.PingErr != nil || r.SNMPErr == nil {
		t.Fatalf("got %+v, want partial: the echo answered while SNMP was still retrying", r)
	}
}

// secondPinger stands for an echo that is lost the first time: its first
// ping never answers (until its context ends), every later one does.
type secondPinger struct{ calls atomic.Int32 }

func (s *secondPinger) Ping(ctx context.Context, _ netip.Addr) (time.Duration, error) {
	if s.calls.Add(1) > 1 {
		return time.Microsecond, nil
	}
	select {
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-time.After(10 * time.Second):
		return 0, errors.New("the first ping was never stopped")
	}
}

// TestProbeFirstTestBoundsItsPing: a peer whose agent is silent and whose
// first echo is lost. The first test waits for the echo only one
// round-trip timeout past its SNMP resends, and says faulty; the re-test
// sends two requests at the ceiling with the echo check begun at once,
// gets the echo, and says partial.
func TestProbeFirstTestBoundsItsPing(t *testing.T) {
	peer := startSilentPeer(t)
	cfg := Default()
	cfg.TimeoutMin, cfg.Timeout, cfg.Retries = 20*time.Millisecond, 200*time.Millisecond, 3
	pinger := &secondPinger{}
	p, err := New(cfg, pinger)
	if err != nil {
		t.Fatal(err)
	}
	target := Target{Addr: netip.MustParseAddr("127.0.0.1"), Port: uint16(peer.conn.LocalAddr().(*net.UDPAddr).Port)}
	r := p.Probe(probeContext(t), target)
	if r.Status != hiadsd.Partial || !r.Retested || r.Suspected != hiadsd.Faulty || pinger.calls.Load() != 2 {
		t.Fatalf("got %+v after %d pings; want faulty at first (the echo cut short), partial after the re-test", r, pinger.calls.Load())
	}
	if got := len(peer.got); got != cfg.Retries+1+2 {
		t.Fatalf("the peer got %d requests; want %d from the first test and 2 from the re-test", got, cfg.Retries+1)
	}
	if r.Duration >= 2*time.Second {
		t.Fatalf("the test took %s: the first ping was not cut short", r.Duration)
	}
}

// TestProbeRetestCorroborated: a peer's pushed verdict equal to the first
// test's ends the re-test under way (here one that would wait 30 s per
// reply), and the first verdict stands; another verdict leaves the re-test
// to run.
func TestProbeRetestCorroborated(t *testing.T) {
	var silent atomic.Bool
	var gate atomic.Pointer[chan struct{}] // a silent request is answered once it closes
	got := make(chan struct{}, 64)
	f := startFakePeer(t, func(req *gosnmp.SnmpPacket) []gosnmp.SnmpPDU {
		if silent.Load() { // a frozen member: answers ping only, so partial
			g := *gate.Load()
			got <- struct{}{}
			<-g
		}
		return upAnswer(req)
	})
	first := make(chan struct{})
	gate.Store(&first)
	t.Cleanup(func() { close(first) }) // before the fake peer's own cleanup
	cfg := Default()
	cfg.TimeoutMin, cfg.Timeout, cfg.Retries = 20*time.Millisecond, 30*time.Second, 0
	p, err := New(cfg, okPinger{})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 { // learn the loopback round trip: the first test waits little
		if r := p.Probe(probeContext(t), f.target()); r.Status != hiadsd.FaultFree {
			t.Fatalf("warm-up: %+v", r)
		}
	}
	silent.Store(true)
	peer := make(chan hiadsd.Status, 1)
	go func() {
		<-got                 // the first test's request
		<-got                 // the re-test's: it now waits 30 s
		peer <- hiadsd.Faulty // another verdict changes nothing
		peer <- hiadsd.Partial
	}()
	r := p.ProbeInView(probeContext(t), f.target(), View{Peer: peer})
	if r.Status != hiadsd.Partial || !r.Corroborated || r.Retested {
		t.Fatalf("re-test with a peer's partial verdict: %+v, want partial, corroborated, not re-tested", r)
	}

	silent.Store(false)
	if r := p.Probe(probeContext(t), f.target()); r.Status != hiadsd.FaultFree {
		t.Fatalf("thawed: %+v", r)
	}
	second := make(chan struct{})
	var thaw sync.Once
	t.Cleanup(func() { thaw.Do(func() { close(second) }) })
	gate.Store(&second)
	silent.Store(true)
	peer = make(chan hiadsd.Status, 1)
	peer <- hiadsd.Faulty
	go func() {
		<-got // the first test's request, unanswered
		<-got // the re-test's: the member thaws and answers it
		silent.Store(false)
		thaw.Do(func() { close(second) })
	}()
	if r := p.ProbeInView(probeContext(t), f.target(), View{Peer: peer}); r.Status != hiadsd.FaultFree || r.Corroborated || !r.Retested {
		t.Fatalf("re-test with a peer's faulty verdict: %+v, want the re-test to run and find the peer up", r)
	}
}

// twoAgentsAndADevice are the peers of the estimate tests: two agents and
// a tested-only device.
func twoAgentsAndADevice() (Target, Target, Target) {
	return Target{Addr: netip.MustParseAddr("10.0.0.1"), Port: 161}, Target{Addr: netip.MustParseAddr("10.0.0.2"), Port: 161},
		Target{Addr: netip.MustParseAddr("10.0.0.3"), Port: 161, TestedOnly: true}
}

// TestLANEstimate: an agent never measured waits as the LAN's round trip
// says, not the ceiling; a tested-only device waits the ceiling until it
// answers once; a peer's own samples win over the LAN's, and its own
// backoff stays.
func TestLANEstimate(t *testing.T) {
	const floor, ceiling = 50 * time.Millisecond, time.Second
	var b peerBook
	a, fresh, printer := twoAgentsAndADevice()
	if w := b.estimate(fresh).timeout(floor, ceiling); w != ceiling {
		t.Fatalf("before any sample: %v, want the ceiling", w)
	}
	b.sampled(a, 20*time.Millisecond)
	if w := b.estimate(fresh).timeout(floor, ceiling); w != 60*time.Millisecond {
		t.Errorf("an agent never measured, after one sample of another: %v, want 60ms", w)
	}
	if w := b.estimate(printer).timeout(floor, ceiling); w != ceiling {
		t.Errorf("a tested-only device never measured: %v, want the ceiling", w)
	}
	b.sampled(printer, 400*time.Millisecond) // a slow device's answer is no LAN sample
	if w := b.estimate(fresh).timeout(floor, ceiling); w != 60*time.Millisecond {
		t.Errorf("after a device's sample: %v, want the agents' 60ms still", w)
	}
	b.update(key(fresh), func(s *peerState) { s.rtt.ambiguous() })
	if w := b.estimate(fresh).timeout(floor, ceiling); w != 120*time.Millisecond {
		t.Errorf("an agent with one ambiguous reply: %v, want the LAN's 60ms doubled", w)
	}
	b.sampled(fresh, 5*time.Millisecond)
	if w := b.estimate(fresh).timeout(floor, ceiling); w != floor {
		t.Errorf("an agent measured at 5ms: %v, want the floor (its own estimate)", w)
	}
}

// TestStaleEstimate: a peer whose last sample is older than staleRTT (one
// tested only when another agent asks) waits as the LAN's round trip says,
// its backoff too; a tested-only device keeps its own.
func TestStaleEstimate(t *testing.T) {
	const floor, ceiling = 50 * time.Millisecond, time.Second
	var b peerBook
	slow, other, printer := twoAgentsAndADevice()
	b.sampled(slow, 400*time.Millisecond) // a loaded start-up's round trip
	b.update(key(slow), func(s *peerState) { s.rtt.ambiguous() })
	b.sampled(printer, 400*time.Millisecond)
	b.sampled(other, 20*time.Millisecond)
	if w := b.estimate(slow).timeout(floor, ceiling); w != ceiling {
		t.Fatalf("a fresh 400ms sample, backed off: %v, want its own (the ceiling)", w)
	}
	long := time.Now().Add(-staleRTT - time.Second)
	b.update(key(slow), func(s *peerState) { s.sampled = long })
	b.update(key(printer), func(s *peerState) { s.sampled = long })
	b.sampled(other, 20*time.Millisecond)
	if w := b.estimate(slow).timeout(floor, ceiling); w >= 200*time.Millisecond {
		t.Errorf("a stale 400ms estimate beside a LAN at 20ms: %v, want the LAN's", w)
	}
	if w := b.estimate(printer).timeout(floor, ceiling); w != ceiling {
		t.Errorf("a tested-only device's stale estimate: %v, want its own (400ms + 4 x 200ms, the ceiling)", w)
	}
}
