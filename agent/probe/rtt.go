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

// sample takes in the round trip of a reply to a request sent once.
func (r *rtt) sample(d time.Duration) {
	if r.samples == 0 {
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
func (r *rtt) timeout(floor, ceiling time.Duration) time.Duration {
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
}

// peerBook holds the state of every peer tested, keyed by address and port.
type peerBook struct {
	mu    sync.Mutex
	peers map[netip.AddrPort]*peerState
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
