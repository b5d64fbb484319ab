package probe

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/agent/usm"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// Errors a probe reports in Result.SNMPErr and Result.PingErr.
var (
	// ErrLoopStalled means the peer's SNMP agent answered but hiADSDisUP was "0":
	// its diagnosis loop has not begun or finished an interval recently, so the node is
	// alive but not diagnosing, and the probe calls it partial without pinging.
	ErrLoopStalled = errors.New("probe: peer answers SNMP but its diagnosis loop is stalled")
	// ErrUnexpectedValue means the reply carried an error status, an exception
	// (noSuchObject, ...) or a value the probe cannot accept.
	ErrUnexpectedValue = errors.New("probe: unexpected SNMP value")
	// ErrMalformedReply means a reply did not have the shape its request asks for.
	ErrMalformedReply = errors.New("probe: malformed SNMP reply")
	// ErrNoEchoReply means no ICMP echo reply came back within the ping timeout.
	ErrNoEchoReply = errors.New("probe: no ICMP echo reply")
	// ErrBadTarget means the Target has no IPv4 address; nothing is sent.
	ErrBadTarget = errors.New("probe: target needs an IPv4 address")
)

// Target is one peer to test: a member of the node list, reached at its
// address and port (0 means 161). A tested-only member (a printer) is tested
// by reading its OID (empty means sysUpTime.0) with its community (empty
// means Config.Community), and any value means fault-free; an agent is
// tested with its community, else the V3 user, else Config.Community.
type Target = nodelist.Member

// DefaultOID is the object a tested-only target is tested by unless its
// entry names another: sysUpTime.0.
const DefaultOID = mib.SysUpTime0

// Result is the outcome of one test of a peer.
type Result struct {
	// Status is fault-free, faulty or partial; unknown only when ctx ended
	// first or the target has no usable address.
	Status hiadsd.Status
	// RTT is the round-trip time of the answer that decided (SNMP or ICMP),
	// 0 when nothing answered.
	RTT time.Duration
	// Digest is the peer's diagViewDigest, read with hiADSDisUP by a test
	// that found it fault-free; 0 from a peer that serves none (an older
	// agent, a tested-only device) or a value not 8 octets long.
	Digest uint64
	// Withheld says the peer served an empty diagViewDigest: it is up, but
	// its view holds verdicts made while it was cut off and must not be read.
	Withheld bool
	// SeesLoss says the peer sees loss on its own tests (diagViewDigest's
	// ninth octet 2): a test with View.Confirm measures its link.
	SeesLoss bool
	// SNMPErr says why step 1 did not find the peer fault-free (nil if it did).
	SNMPErr error
	// PingErr says why step 2 found no echo (nil if it was not needed or answered).
	PingErr error
	// Wait is how long the test waited for each SNMP reply: the peer's
	// round-trip timeout, or the ceiling for a re-test.
	Wait time.Duration
	// Retested says a first test found the peer faulty or partial where the
	// previous verdict said otherwise, and this is the verdict of a second
	// test made at once with the longest wait (test.timeout): a suspicion
	// that the peer refutes by answering it. Suspected is the first verdict.
	Retested  bool
	Suspected hiadsd.Status
	// Corroborated says the re-test of a new faulty or partial verdict was
	// cut short because a peer's own direct test (pushed to this agent)
	// reached the same verdict meanwhile: the result is the first test's.
	Corroborated bool
	// Seen is what other vantage points found of a new faulty or partial
	// verdict while it was re-tested (View.Second), and the corroborating
	// verdict; NoneAsked says every agent asked refused the question (an
	// older agent), so none could be asked (hiadsd.Result).
	Seen      []hiadsd.Status
	NoneAsked bool
	// Sent and Unanswered count the SNMP requests of the test (first and
	// re-test) and those no reply came to.
	Sent, Unanswered int
	// Starved says a burst of the test (a measurement) ran on a host
	// starved of CPU, its requests leaving late: none of them is counted.
	Starved bool
	// Duration is the whole probe, waiting for a concurrency slot included.
	Duration time.Duration
}

// check rejects a target the prober cannot address: it needs a unicast
// IPv4 or IPv6 address (an IPv4-mapped one counts as IPv4).
func check(t Target) error {
	if a := t.Addr.Unmap(); !a.IsValid() || a.IsUnspecified() || a.IsMulticast() {
		return fmt.Errorf("%w: got %q", ErrBadTarget, t.Addr)
	}
	return nil
}

// key names the peer in the Prober's book.
func key(t Target) netip.AddrPort {
	return netip.AddrPortFrom(t.Addr.Unmap(), t.Port)
}

// sameFamily reports whether source can send to addr: set, and of its family.
func sameFamily(source, addr netip.Addr) bool {
	return source.IsValid() && source.Unmap().Is4() == addr.Unmap().Is4()
}

// Prober tests peers as in seed 002 section 5.3: SNMP first, ICMP echo second.
// It is safe for concurrent use; at most Concurrency operations run at once.
type Prober struct {
	cfg    Config
	users  atomic.Pointer[[]usm.User] // V3 then Others, as SetUsers last set them; nil for v2c
	pinger Pinger
	slots  chan struct{} // the tests' and fetches' (and a key change's)
	sends  chan struct{} // the pushes' and hellos', pushSlots
	asks   chan struct{} // the sweeps', askSlots
	book   peerBook
	idle   idle // the sockets of clean exchanges, kept for the next
	met    probeMetrics
	// stretched doubles the tests' waits (Stretch).
	stretched atomic.Bool
	// starvedBy is a burst's starvation mark: a request leaving more than
	// wait/starvedBy late (starvedShare; 0, only in tests, never).
	starvedBy int
}

// New checks cfg and returns a Prober; a nil pinger means ICMP echo
// with pro-bing in the mode cfg.PingPrivileged selects.
func New(cfg Config, pinger Pinger) (*Prober, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if pinger == nil {
		pinger = &ICMPPinger{Privileged: cfg.PingPrivileged, Count: cfg.PingCount, Timeout: cfg.PingTimeout, Source: cfg.Source}
	}
	p := &Prober{cfg: cfg, pinger: pinger, slots: make(chan struct{}, cfg.Concurrency), sends: make(chan struct{}, pushSlots), asks: make(chan struct{}, askSlots),
		met: newMetrics(), starvedBy: starvedShare}
	if cfg.V3 != nil {
		p.SetUsers(append([]usm.User{*cfg.V3}, cfg.Others...))
	}
	return p, nil
}

// SetUsers replaces the SNMPv3 users peers are spoken to as: the first is
// tried first with a peer that has accepted none of them yet. A rotation
// of the cluster key calls it. Empty is ignored: a prober never goes from
// SNMPv3 to v2c.
func (p *Prober) SetUsers(users []usm.User) {
	if len(users) > 0 {
		users = slices.Clone(users)
		p.users.Store(&users)
	}
}

// pushSlots bounds the pushes and hellos under way at once, apart from
// the tests' slots (test.concurrency). A node passes each piece of news on
// once, to at most 2·log2 N - 1 peers (31 at N = 65,536): all of them
// leave at once, and none waits behind a test that awaits a silent peer.
// In the tests' eight slots, the root of a repair's tree at N = 256 sent
// its fifteen pushes in two waves, the last taken 367 ms after the first
// 17 ms.
const pushSlots = 32

// askSlots bounds the questions of a sweep (Ask) under way at once, apart
// from the tests' slots: during a cut the tests of the silent peers hold
// those for their whole budget, and a sweep queued behind them took
// fault-free peers for silent ones.
const askSlots = 32

// Ask reports whether t answers SNMP as a fault-free peer does, within
// ctx: one request awaited for the peer's round-trip timeout and resent
// test.retries times, no echo check and no re-test (a sweep: what is
// asked is only whether the peer is up now). Its answer is not a verdict
// and changes nothing the tests keep, but the round-trip estimate.
func (p *Prober) Ask(ctx context.Context, t Target) bool {
	if check(t) != nil || acquire(ctx, p.asks) != nil {
		return false
	}
	defer release(p.asks)
	a := p.firstTry(p.book.estimate(t))
	rtt, resent, _, err := p.snmpStep(ctx, t, a, func() {})
	if rtt > 0 && resent == 0 {
		p.book.sampled(t, rtt)
	}
	return err == nil
}

// acquire waits for a slot of slots (p.slots or p.sends) or for ctx to end.
func acquire(ctx context.Context, slots chan struct{}) error {
	select {
	case slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for a probe slot: %w", ctx.Err())
	}
}

// release gives a slot of slots back.
func release(slots chan struct{}) { <-slots }

// Probe tests t once and never panics or returns a bare verdict: the result
// carries the status, the deciding round-trip time and both steps' errors.
func (p *Prober) Probe(ctx context.Context, t Target) Result {
	return p.ProbeInView(ctx, t, View{})
}

// View is what the testing agent holds about a peer while it tests it.
type View struct {
	// Held is the status the agent's diagnosis holds for the peer, learned
	// or tested; with Unknown (the zero View) the prober's own last verdict
	// stands in. A faulty or partial verdict that differs from it is new,
	// and re-tested before it is announced; one the agent already holds
	// (learned from the peer's other testers) is not.
	Held hiadsd.Status
	// Peer delivers the verdicts other agents' direct tests reached about
	// the peer while this test runs (the pushes this agent receives). The
	// re-test guards against this agent's own lost replies; a peer that
	// reached the same verdict by its own test and re-test is that guard
	// already, so such a verdict ends the re-test at once and the first
	// test's verdict stands (Result.Corroborated). Any other changes nothing.
	Peer <-chan hiadsd.Status
	// Second, when set, is called as the re-test of a new faulty or
	// partial verdict starts: it asks other agents to test the peer, and
	// returns the channel on which their verdicts come, closed once every
	// agent asked has answered, refused the question, or could not be
	// reached; a lone Unknown says every one of them refused it. The re-test collects
	// them into Result.Seen until it ends, and waits up to as long as the
	// re-test more for the rest.
	Second func(ctx context.Context) <-chan hiadsd.Status
	// Measure is how many requests to add, as a paced burst, to a test that
	// finds the peer fault-free: the agent measures its own link while it
	// has seen loss (hiadsd.Doubt.Measure), into Result.Sent and Unanswered.
	Measure int
	// Confirm is how many requests to spread over the re-test's wait to
	// measure the peer's link (hiadsd.ConfirmRequests), into Result.Sent
	// and Unanswered: in the re-test of a new failure, where one answer
	// proves the peer alive and makes it fault-free (the re-test ends with
	// the burst then: its echoes would only wait); and, after a first
	// try that it answered, in a test of a peer held degraded, of one held
	// fault-free that lost requests or says it sees loss, and in a test
	// Asked by another agent, where the share lost says whether it still
	// loses its packets.
	Confirm int
	// Asked says the test answers another agent's question (measured).
	Asked bool
	// Hinted says the peer asked to be tested now (a hello): a test that
	// finds it fault-free measures its link, ended once
	// hiadsd.CleanRequests answers prove it clean.
	Hinted bool
	// Lossy, when set, is called as a measurement of a peer held
	// fault-free finds heavy loss (hiadsd.Heavy), before any agent asked
	// answers: the loss may be the tester's own, and its testers can
	// measure its link at once rather than once the answers are in.
	Lossy func()
}

// ProbeInView is Probe for an agent that holds v about t.
func (p *Prober) ProbeInView(ctx context.Context, t Target, v View) Result {
	start := time.Now()
	res := p.probe(ctx, t, v)
	res.Duration = time.Since(start)
	if ctx.Err() == nil { // a test cut short by the agent stopping is no test
		p.met.observe(res)
	}
	return res
}

// probe runs one test inside one concurrency slot, and a second at once
// when the first would announce a fault the agent does not hold (v.Held,
// else the previous verdict).
func (p *Prober) probe(ctx context.Context, t Target, v View) Result {
	if err := check(t); err != nil {
		return Result{Status: hiadsd.Unknown, SNMPErr: err}
	}
	if err := acquire(ctx, p.slots); err != nil {
		return Result{Status: hiadsd.Unknown, SNMPErr: err}
	}
	defer release(p.slots)
	key := key(t)
	was := p.book.get(key)
	begun := time.Now()
	res := p.test(ctx, t, p.firstTry(p.book.estimate(t)))
	held := v.Held
	if held == hiadsd.Unknown {
		held = was.last
	}
	// A refusal (ICMP port unreachable) says no agent listens on a host
	// that is up: no loss makes one. Its re-test measures no link and waits
	// as a first try does, and an agent asked answers with it at once: the
	// asker re-tests the node itself, and each refusal a busy host does not
	// send (Linux sends a peer about one a second once a few went out) cost
	// a burst and a re-test their whole waits, seconds a crash was known
	// later.
	refused := res.Refused()
	if suspect(res.Status, held) && !(v.Asked && refused) {
		first := res
		var others *vantages
		if v.Second != nil {
			others = collect(v.Second(ctx))
		}
		rctx, cut := corroboration(ctx, v.Peer, first.Status)
		var b *burst
		retest := rctx
		if v.Confirm > 0 && !refused {
			b = p.startBurst(rctx, t, v.Confirm, p.retry().wait, burstOpts{})
			var proved context.CancelFunc
			retest, proved = context.WithCancel(rctx)
			defer proved()
			go func() {
				if b.alive() {
					proved() // an answer to the burst proves the peer alive: the re-test (its echoes, seconds on a lossy link) is moot
				}
			}()
		}
		again := p.retry()
		switch {
		case refused:
			// Only whether the agent came back (a restart) is asked: on the
			// round-trip timeout, as a first try waits. A busy host that no
			// longer sends refusals left the full waits to time out, a
			// second a crash was known later.
			again = p.firstTry(p.book.estimate(t))
			again.pingNow = true
		case v.Asked:
			again = again.after(time.Since(begun), p.cfg.PingTimeout)
		}
		res = p.test(retest, t, again)
		if res.Status == hiadsd.Unknown && retest.Err() != nil && rctx.Err() == nil {
			res = Result{Status: first.Status, SNMPErr: first.SNMPErr, Wait: first.Wait} // b.add makes it fault-free
		}
		res.Sent, res.Unanswered = res.Sent+first.Sent, res.Unanswered+first.Unanswered
		if b != nil {
			res = b.add(res)
		}
		if corroborated := cut(); res.Status == hiadsd.Unknown && corroborated && ctx.Err() == nil {
			sent, unanswered := res.Sent, res.Unanswered
			res = first
			res.Corroborated, res.Sent, res.Unanswered = true, sent, unanswered
			res.Seen = append(res.Seen, first.Status)
		} else {
			res.Retested, res.Suspected = true, first.Status
		}
		if others != nil {
			// An agent asked makes a whole test (its own re-test of a new
			// fault included), begun a little after this re-test: wait as long
			// again for every answer.
			wait := time.Duration(0)
			if (res.Status == hiadsd.Faulty || res.Status == hiadsd.Partial || hiadsd.Heavy(res.Sent, res.Unanswered)) &&
				!res.Corroborated {
				wait = p.retry().wait * 2 // a corroborated verdict has its second vantage point already
			}
			// A re-test that proved the peer alive is settled as a
			// measurement is (measureLink); a failure needs every answer.
			seen, noneAsked := others.end(ctx, wait, func(seen []hiadsd.Status) bool {
				return hiadsd.Decided(res.Status, res.Sent, res.Unanswered, append(res.Seen[:len(res.Seen):len(res.Seen)], seen...))
			})
			res.Seen, res.NoneAsked = append(res.Seen, seen...), noneAsked && len(res.Seen) == 0
		}
	}
	if !res.Retested && !res.Corroborated && res.Status.Up() && v.Confirm > 0 &&
		(v.Asked || held == hiadsd.Degraded || held == hiadsd.FaultFree && (res.Unanswered > 0 || res.SeesLoss || v.Hinted)) {
		res = p.measureLink(ctx, t, v, held, res)
	}
	if res.Status != hiadsd.Unknown {
		p.book.update(key, func(s *peerState) { s.last = res.Status })
	}
	if res.Status.Up() && v.Measure > 0 {
		sent, unanswered, starved := p.measure(ctx, t, v.Measure)
		res.Sent, res.Unanswered, res.Starved = res.Sent+sent, res.Unanswered+unanswered, res.Starved || starved
	}
	return res
}

// corroboration returns a context for the re-test of verdict that ends
// when peer delivers the same verdict, and cut, which reports, once the
// re-test is over, whether that is what ended it. A nil peer never does.
func corroboration(ctx context.Context, peer <-chan hiadsd.Status, verdict hiadsd.Status) (context.Context, func() bool) {
	if peer == nil {
		return ctx, func() bool { return false }
	}
	rctx, cancel := context.WithCancel(ctx)
	var matched atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case st := <-peer:
				if st == verdict {
					matched.Store(true)
					cancel()
					return
				}
			case <-rctx.Done():
				return
			}
		}
	}()
	return rctx, func() bool {
		cancel()
		<-done
		return matched.Load()
	}
}

// attempt is how one test waits: for each SNMP reply, how many requests
// it resends, and how it runs the echo check.
type attempt struct {
	wait    time.Duration
	retries int
	// pingNow starts the echo check with the first request instead of
	// after it goes unanswered; pingBound, when set, is how long the check
	// may go on once SNMP has failed (else test.ping_timeout bounds it).
	pingNow   bool
	pingBound time.Duration
	// pingBy, when set, ends the echo check that long after the test
	// began, whenever SNMP fails (pingBound counts from the failure).
	pingBy time.Duration
}

// firstTry is a peer's first test: each reply awaited for the peer's
// round-trip timeout, test.retries resends, and the echo check, begun
// beside the resends, allowed one more such wait after them. On a LAN
// a silent peer so costs a few round-trip timeouts, not seconds; its
// verdict, if new, is then re-tested with the full waits.
func (p *Prober) firstTry(r rtt) attempt {
	wait := r.timeout(p.cfg.TimeoutMin, p.cfg.Timeout) * p.stretch()
	return attempt{wait: wait, retries: p.cfg.Retries, pingBound: wait}
}

// Stretch doubles every wait of the tests while on: the agent doubts its
// own link (hiadsd.Doubt), so a late reply is likelier its fault.
func (p *Prober) Stretch(on bool) { p.stretched.Store(on) }

// stretch is the factor Stretch sets.
func (p *Prober) stretch() time.Duration {
	if p.stretched.Load() {
		return 2
	}
	return 1
}

// retry is the re-test of a new faulty or partial verdict, the suspicion
// a live peer refutes: two requests, each awaited for test.timeout, and the
// echo check at once, within test.ping_timeout. A replying peer refutes it
// whichever request it answers (a starved member answers all it queued
// when it runs again), so it outwaits a stall of up to twice test.timeout,
// and a frozen or cut-off peer costs max(2·test.timeout, ping_timeout).
func (p *Prober) retry() attempt {
	return attempt{wait: p.cfg.Timeout * p.stretch(), retries: 1, pingNow: true}
}

// after is the re-test a, in a test that answers another agent's
// question, begun spent after the question came (the test's first try):
// the asker re-tests the peer from the moment it asks and waits for the
// answer about as long as its own re-test, so this one ends with it. Each
// of its two waits is shortened by half of spent and the echo check by
// spent, to no less than half of each: the peer's silence is still
// watched for the re-test's whole length, counted from the question, and
// the first try's requests, sent within it, are answered by a peer that
// was only stalled. Without it, a frozen peer's verdict waited for the
// vantage points' first tries (0.16 s at the shipped settings).
func (a attempt) after(spent, ping time.Duration) attempt {
	a.wait = max(a.wait-spent/2, a.wait/2)
	a.pingBy = max(ping-spent, ping/2)
	return a
}

// suspect reports whether a verdict must be re-tested before it is
// returned: faulty or partial where the status held was something else.
func suspect(now, last hiadsd.Status) bool {
	return (now == hiadsd.Faulty || now == hiadsd.Partial) && now != last
}

// test is one test: SNMP as a says, and the ICMP echo check started
// beside the SNMP retries (or at once), so a silent peer costs the longer
// of the two, not the sum.
func (p *Prober) test(ctx context.Context, t Target, a attempt) (res Result) {
	begun := time.Now()
	pctx, stop := context.WithCancel(ctx)
	ping := &sidePing{done: make(chan struct{})}
	defer ping.cancel(stop)
	step := func() { ping.start(pctx, p.pinger, t.Addr) }
	if a.pingNow {
		step()
	}
	rtt, resent, view, err := p.snmpStep(ctx, t, a, step)
	defer func() { // the requests, for the tester's own health
		res.Sent, res.Unanswered = 1+resent, resent
		if rtt == 0 {
			res.Unanswered++
		}
	}()
	switch {
	case rtt > 0 && resent == 0: // a reply came, whatever it said
		p.book.sampled(t, rtt)
	case rtt > 0:
		p.book.update(key(t), func(s *peerState) { s.rtt.ambiguous() })
	}
	switch {
	case err == nil:
		st := hiadsd.FaultFree
		if view.doubts {
			st = hiadsd.Degraded
		}
		return Result{Status: st, RTT: rtt, Digest: view.digest, Withheld: view.withheld, SeesLoss: view.seesLoss, Wait: a.wait}
	case errors.Is(err, ErrLoopStalled):
		return Result{Status: hiadsd.Partial, RTT: rtt, SNMPErr: err, Wait: a.wait}
	case ctx.Err() != nil:
		return Result{Status: hiadsd.Unknown, SNMPErr: err, Wait: a.wait}
	}
	res = Result{Status: hiadsd.Partial, SNMPErr: err, Wait: a.wait}
	step() // a refused request ends SNMP before any retry
	bound := a.pingBound
	if a.pingBy > 0 {
		bound = max(a.pingBy-time.Since(begun), time.Millisecond)
	}
	res.RTT, res.PingErr = ping.waitWithin(bound, stop)
	switch {
	case res.PingErr == nil:
	case ctx.Err() != nil:
		res.Status = hiadsd.Unknown
	default:
		res.Status = hiadsd.Faulty
	}
	return res
}

// sidePing is the echo check of one test, started at most once.
type sidePing struct {
	once    sync.Once
	started bool
	done    chan struct{}
	rtt     time.Duration
	err     error
}

// start pings addr in the background, the first time only.
func (s *sidePing) start(ctx context.Context, p Pinger, addr netip.Addr) {
	s.once.Do(func() {
		s.started = true
		go func() {
			defer close(s.done)
			s.rtt, s.err = p.Ping(ctx, addr)
		}()
	})
}

// waitWithin returns the ping's outcome once it has ended, stopping it
// after bound if bound is set.
func (s *sidePing) waitWithin(bound time.Duration, stop context.CancelFunc) (time.Duration, error) {
	if bound > 0 {
		t := time.AfterFunc(bound, stop)
		defer t.Stop()
	}
	<-s.done
	return s.rtt, s.err
}

// cancel stops a ping still running and waits for it to end.
func (s *sidePing) cancel(stop context.CancelFunc) {
	stop()
	s.once.Do(func() {}) // none starts after this
	if s.started {
		<-s.done
	}
}

// snmpStep GETs hiADSDisUP.0 and diagViewDigest.0 (or a tested-only node's
// object), waiting a.wait for each reply, resending a.retries times and
// calling retry before each retransmission. It returns the round trip, how
// many requests were resent, what the digest says (served) and a nil error
// only for a reply that makes the peer fault-free (or degraded).
func (p *Prober) snmpStep(ctx context.Context, t Target, a attempt, retry func()) (time.Duration, int, served, error) {
	oids := []string{mib.HiADSDisUP0, mib.DiagViewDigest0}
	if t.TestedOnly {
		oids = []string{t.OID}
		if t.OID == "" {
			oids[0] = DefaultOID
		}
	}
	resent := 0
	var pkt *gosnmp.SnmpPacket
	var rtt time.Duration
	// The socket is kept for the next test if it was not closed by ctx's
	// end (a corroborated re-test) and nothing more can come to it: no
	// request resent, no report met (a second one may follow).
	intact, reported := false, false
	g, err := p.open(ctx, t, func(g *gosnmp.GoSNMP) error {
		stop := closeOnDone(ctx, g)
		defer func() { intact = stop() }()
		g.Timeout, g.Retries = a.wait, a.retries
		g.OnRetry = func(*gosnmp.GoSNMP) { resent++; retry() }
		start := time.Now()
		var err error
		pkt, err = g.Get(oids)
		for range 2 {
			if !engineReport(pkt, err) {
				break
			}
			// The peer's engine changed (a restart: new boots; a reinstall:
			// a new engine ID). gosnmp took the new one from the report, and
			// resent once; a second report, such as one answering a resend
			// made before it, comes back as the reply. Ask again.
			p.met.engineReports.Inc()
			reported = true
			start = time.Now()
			pkt, err = g.Get(oids)
		}
		rtt = time.Since(start)
		return err
	})
	if err != nil {
		return 0, resent, served{}, fmt.Errorf("get %s: %w", oids[0], err)
	}
	if intact && resent == 0 && !reported {
		defer p.keep(g, t)
	} else {
		defer p.close(g, t)
	}
	vb, err := firstValue(pkt, oids)
	if err != nil {
		return rtt, resent, served{}, err
	}
	if t.TestedOnly {
		return rtt, resent, served{}, nil
	}
	if err := upValue(vb); err != nil {
		return rtt, resent, served{}, err
	}
	return rtt, resent, digestValue(pkt.Variables[1]), nil
}

// engineReport reports whether a GET ended in an SNMPv3 report that a
// peer's new engine explains (RFC 3414 section 3.2 steps 3 and 7):
// unknownEngineID or notInTimeWindow, returned by gosnmp as its error or as
// the reply itself.
func engineReport(pkt *gosnmp.SnmpPacket, err error) bool {
	if errors.Is(err, gosnmp.ErrNotInTimeWindow) || errors.Is(err, gosnmp.ErrUnknownEngineID) {
		return true
	}
	if err != nil || pkt == nil || pkt.PDUType != gosnmp.Report || len(pkt.Variables) != 1 {
		return false
	}
	name := pkt.Variables[0].Name
	return sameOID(name, usmStatsNotInTimeWindows) || sameOID(name, usmStatsUnknownEngineIDs)
}

// The USM statistics a report names (RFC 3414 section 5).
const (
	usmStatsNotInTimeWindows = "1.3.6.1.6.3.15.1.1.2.0"
	usmStatsUnknownEngineIDs = "1.3.6.1.6.3.15.1.1.4.0"
)

// digestValue reads diagViewDigest: 8 octets are a digest, the empty
// string a view withheld; anything else (an older agent's noSuchObject) is
// no digest.
func digestValue(vb gosnmp.SnmpPDU) served {
	b, ok := vb.Value.([]byte)
	if vb.Type != gosnmp.OctetString || !sameOID(vb.Name, mib.DiagViewDigest0) {
		return served{}
	}
	switch {
	case ok && len(b) == 8:
		return served{digest: binary.BigEndian.Uint64(b)}
	case ok && len(b) == 9 && b[8] == 1:
		return served{digest: binary.BigEndian.Uint64(b), doubts: true}
	case ok && len(b) == 9 && b[8] == 2:
		return served{digest: binary.BigEndian.Uint64(b), seesLoss: true}
	case len(b) == 0: // gosnmp may decode an empty string as nil
		return served{withheld: true}
	}
	return served{}
}

// served is what a peer's diagViewDigest says: the digest (0 for none),
// whether it withholds its view (empty), whether it doubts its own tests
// (a ninth octet 1: diagSelfDoubt), so that its tester finds it degraded
// at no extra request, and whether it sees loss on them (2), so that its
// tester measures its link (View.Confirm).
type served struct {
	digest                     uint64
	withheld, doubts, seesLoss bool
}

// firstValue returns the first varbind of a GET reply for oids, rejecting
// errors, exceptions in the first, and replies not of the request's shape.
func firstValue(pkt *gosnmp.SnmpPacket, oids []string) (gosnmp.SnmpPDU, error) {
	oid := oids[0]
	if pkt.Error != gosnmp.NoError {
		return gosnmp.SnmpPDU{}, fmt.Errorf("%w: %s: error-status %v", ErrUnexpectedValue, oid, pkt.Error)
	}
	if len(pkt.Variables) != len(oids) || !sameOID(pkt.Variables[0].Name, oid) {
		return gosnmp.SnmpPDU{}, fmt.Errorf("%w: get %s: %d varbinds", ErrMalformedReply, oid, len(pkt.Variables))
	}
	vb := pkt.Variables[0]
	switch vb.Type {
	case gosnmp.NoSuchObject, gosnmp.NoSuchInstance, gosnmp.EndOfMibView, gosnmp.Null:
		return vb, fmt.Errorf("%w: %s is %v", ErrUnexpectedValue, oid, vb.Type)
	}
	return vb, nil
}

// upValue reads hiADSDisUP: "1" is fault-free, "0" a stalled loop.
func upValue(vb gosnmp.SnmpPDU) error {
	b, ok := vb.Value.([]byte)
	if vb.Type != gosnmp.OctetString || !ok {
		return fmt.Errorf("%w: hiADSDisUP has type %v, want OCTET STRING", ErrUnexpectedValue, vb.Type)
	}
	switch string(b) {
	case "1":
		return nil
	case "0":
		return ErrLoopStalled
	}
	return fmt.Errorf("%w: hiADSDisUP is %q, want \"1\" or \"0\"", ErrUnexpectedValue, b)
}
