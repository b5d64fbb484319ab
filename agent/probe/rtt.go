package probe

import (
	"net/netip"
	"sync"
	"time"

	"github.com/diagagent/diagagent/hiadsd"
)

// rtt is one peer's round-trip estimate, kept as TCP keeps it (RFC 6298,
// after Jacobson and Karels): a smoothed round trip and its mean
// deviation, from which a test's wait for each reply is derived.
type rtt struct {
	srtt, rttvar time.Duration
	// samples counts the round trips taken in; 0 means no estimate yet.
	samples int
	// backoff doubles the wait after a test whose reply came only after a
	// retransmission, until a clean sample comes (Karn's rule).
	backoff uint
}

// maxBackoff bounds the doublings; the ceiling bounds the wait anyway.
const maxBackoff = 10

// restartBelow is how many times smaller than the smoothed round trip a
// clean sample must be to restart the estimate from it: a regime change,
// not jitter. The round trips an agent measures while it, or the machine,
// is starved (a start-up beside many others, most often) are hundreds of
// milliseconds where the LAN's are one; a peer is tested by one agent
// only every few intervals under the rotating plan, so smoothing them
// away at 1/8 a sample held that agent's waits at the ceiling for
// minutes, and made it the last to know when that peer froze.
const restartBelow = 8

// sample takes in the round trip of a reply to a request sent once. It
// follows RFC 6298, but for a sample restartBelow times below the
// smoothed round trip, which restarts the estimate as the first one does:
// a drop is followed at once, a rise is smoothed. A wait too short for
// the peer costs a resend, and Karn's back-off, not a verdict (a new
// verdict is re-tested with the full waits); one too long costs seconds
// of detection.
func (r *rtt) sample(d time.Duration) {
	if r.samples == 0 || d*restartBelow < r.srtt {
		r.srtt, r.rttvar = d, d/2
	} else {
		diff := r.srtt - d
		if diff < 0 {
			diff = -diff
		}
		r.rttvar = (3*r.rttvar + diff) / 4
		r.srtt = (7*r.srtt + d) / 8
	}
	r.samples++
	r.backoff = 0
}

// ambiguous records a reply that came only after a retransmission: Karn's
// rule keeps its round trip out of the estimate (it is unknown which
// request it answers) and keeps the doubled wait until a clean sample.
func (r *rtt) ambiguous() {
	r.backoff = min(r.backoff+1, maxBackoff)
}

// timeout is the wait for each reply: SRTT + 4·RTTVAR, doubled per backoff,
// within [floor, ceiling]; the ceiling until the first sample.
func (r rtt) timeout(floor, ceiling time.Duration) time.Duration {
	if r.samples == 0 {
		return ceiling
	}
	t := (r.srtt + 4*r.rttvar) << r.backoff
	if t <= 0 || t > ceiling { // <= 0: shifted past the int64
		return ceiling
	}
	return max(t, floor)
}

// peerState is what a Prober remembers about one peer between tests.
type peerState struct {
	rtt rtt
	// last is the verdict of the latest test, hiadsd.Unknown before one.
	last hiadsd.Status
	// engine is the peer's SNMPv3 engine as its last answer told it.
	engine engine
	// user is the SNMPv3 user the peer last accepted, "" for the first.
	user string
	// sampled is when rtt last took a sample in.
	sampled time.Time
	// clean is when an exchange with the peer last ended answered at once
	// (Prober.keep).
	clean time.Time
}

// staleRTT is how old a peer's last round trip may be for its own estimate
// to stand; past it, the LAN's, which every peer's replies keep fresh,
// stands in. A peer this agent tests only when another agent asks about it
// kept the estimate a loaded start-up gave it: at N = 64, two vantage
// points asked about a frozen node waited up to the 1 s ceiling in their
// first tries, their tests taking 3.1 and 5.3 s, where the tester's whole
// test took 2.2 s. The tests of the rotating plan sample each peer they test
// every few intervals, well within it.
const staleRTT = 30 * time.Second

// peerBook holds the state of every peer tested, keyed by address and port,
// and one estimate of the LAN's round trip fed by every peer's samples.
type peerBook struct {
	mu    sync.Mutex
	peers map[netip.AddrPort]*peerState
	// lan is the round trip to any peer: the estimate a peer not measured
	// yet starts from. Under the rotating plan an agent tests a peer for
	// the first time long after it started, often the moment that peer
	// froze; waiting the ceiling for each of its tries (4 s at the
	// defaults) made that first tester the last to know (docs/accuracy.md).
	lan rtt
}

// get returns a copy of the state of the peer at ap.
func (b *peerBook) get(ap netip.AddrPort) peerState {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s := b.peers[ap]; s != nil {
		return *s
	}
	return peerState{}
}

// estimate is the round trip to t that its waits derive from: its own, or
// for an agent not measured yet the LAN's, with its own backoff, and for
// one last measured longer than staleRTT ago the LAN's. A
// tested-only device runs another SNMP agent, slower or faster than ours,
// so it waits the ceiling until it answers once.
func (b *peerBook) estimate(t Target) rtt {
	b.mu.Lock()
	defer b.mu.Unlock()
	var r rtt
	var at time.Time
	if s := b.peers[key(t)]; s != nil {
		r, at = s.rtt, s.sampled
	}
	switch {
	case t.TestedOnly:
	case r.samples == 0:
		backoff := r.backoff
		r = b.lan
		r.backoff = backoff
	case time.Since(at) > staleRTT && b.lan.samples > 0:
		r = b.lan
	}
	return r
}

// sampled takes in the round trip d of a reply from t to a request sent
// once, for t and, when t is an agent, for the LAN.
func (b *peerBook) sampled(t Target, d time.Duration) {
	b.update(key(t), func(s *peerState) { s.rtt.sample(d); s.sampled = time.Now() })
	if !t.TestedOnly {
		b.mu.Lock()
		b.lan.sample(d)
		b.mu.Unlock()
	}
}

// update applies f to the state of the peer at ap under the lock.
func (b *peerBook) update(ap netip.AddrPort, f func(*peerState)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.peers == nil {
		b.peers = map[netip.AddrPort]*peerState{}
	}
	s := b.peers[ap]
	if s == nil {
		s = &peerState{}
		b.peers[ap] = s
	}
	f(s)
}
