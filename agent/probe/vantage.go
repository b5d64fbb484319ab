package probe

import (
	"cmp"
	"context"
	"errors"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// vantages gathers the verdicts other agents send about a peer while the
// re-test of a new fault runs (View.Second).
type vantages struct {
	mu       sync.Mutex
	seen     []hiadsd.Status
	answered int  // answers and refusals
	closed   bool // every agent asked answered, refused or could not be reached
	done     chan struct{}
	stop     chan struct{}
	news     chan struct{} // a verdict came: end's decided may hold now
}

// collect gathers from in until in closes or end.
func collect(in <-chan hiadsd.Status) *vantages {
	v := &vantages{done: make(chan struct{}), stop: make(chan struct{}), news: make(chan struct{}, 1)}
	go func() {
		defer close(v.done)
		for {
			select {
			case st, ok := <-in:
				v.mu.Lock()
				if !ok {
					v.closed = true
					v.mu.Unlock()
					return
				}
				v.answered++
				if st != hiadsd.Unknown {
					v.seen = append(v.seen, st)
				}
				v.mu.Unlock()
				select {
				case v.news <- struct{}{}:
				default:
				}
			case <-v.stop:
				return
			}
		}
	}()
	return v
}

// end waits up to wait for every agent asked to be done (one that reached
// the peer answers fast; one that did not answers once its own re-test
// ends, and the first answer must not cut the others short), or, with
// decided, until the verdicts so far settle what the test says (more could
// not change it); then stops gathering and returns the verdicts, and
// whether every agent asked refused the question.
func (v *vantages) end(ctx context.Context, wait time.Duration, decided func([]hiadsd.Status) bool) (seen []hiadsd.Status, noneAsked bool) {
	if wait > 0 {
		t := time.NewTimer(wait)
	waiting:
		for !v.settles(decided) {
			select {
			case <-v.done:
				break waiting
			case <-v.news:
			case <-t.C:
				break waiting
			case <-ctx.Done():
				break waiting
			}
		}
		t.Stop()
	}
	close(v.stop)
	<-v.done
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.seen, v.closed && len(v.seen) == 0 && v.answered > 0
}

// settles reports whether decided holds for the verdicts so far.
func (v *vantages) settles(decided func([]hiadsd.Status) bool) bool {
	if decided == nil {
		return false
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	return decided(v.seen)
}

// Vantage writes value (a board.MarshalVantage) to diagVantage.0 of the
// agent at t, as Push writes a push.
func (p *Prober) Vantage(ctx context.Context, t Target, value []byte) error {
	return p.send(ctx, t, mib.DiagVantage0, value, "diagVantage of")
}

// measure sends n requests to t as a paced burst (startBurst: each once
// the one before is answered, or at its turn of the spread over the
// re-test's wait), and counts those unanswered; none of a starved burst's
// (starved). Sent one after the other, each awaiting twice t's round-trip
// timeout, the 24 requests of a lossy agent's test took up to 48 s at 50%
// loss, its loop stalled, and its doubt came after 20 to 50 s; spread
// alone, a clean link's took 80% of the wait (1.6 s while doubting), four
// such tests an interval stretched the doubting agent's intervals to 8 s,
// and its doubt outlived the loss by a minute.
func (p *Prober) measure(ctx context.Context, t Target, n int) (sent, unanswered int, starved bool) {
	b := p.startBurst(ctx, t, n, p.retry().wait, burstOpts{paced: true})
	sent, answered, _ := b.end()
	if b.starved {
		return 0, 0, true
	}
	return sent, sent - answered, false
}

// burst is a measurement of a peer's link under way (View.Confirm): n
// GETs of hiADSDisUP, spread evenly over wait, awaited for wait and never
// resent, each on the socket of a request answered before it when one is
// free (else the one kept for t, else a new one): on a clean link one
// socket serves the whole burst, and it is kept for the next test of t.
// A socket for every request cost a gosnmp client, a connect and a 64 KiB
// receive buffer each, and at N = 64 on two cores such bursts took an
// eighth of the CPU while the host was starved.
// A late reply on a reused socket is not taken for a later request's
// (gosnmp matches request IDs). A refused request (no agent
// listens) ends it. One that comes back "1" proves the peer alive and
// diagnosing; the share unanswered is the link's loss.
//
// A request is lost when its wait runs out, or, sooner, once it is
// overtaken: a request sent after it was answered, and it has waited
// twice the longest round trip of the burst's answers and a twentieth of
// wait more (RACK's rule, RFC 8985: a reply late on a busy host comes in
// order, behind the others, and is not overtaken). The burst ends as soon
// as its verdict is settled (hiadsd.Settled): on a link losing half its
// packets, about half a second after its first request, not two seconds.
// Requests under way when it ends, or cut short by the context, are not
// counted.
type burst struct {
	n, clean int
	reqs     []request
	rtt      time.Duration // the first answer's round trip
	longest  time.Duration // the longest answer's round trip
	first    int           // answers to the first burstOpts.clean requests
	starved  bool          // a request left late: this host is starved of CPU, the share lost says nothing of the link
	settled  bool          // ended by hiadsd.Settled: the requests' states hold still
	mu       sync.Mutex
	wg       sync.WaitGroup
	stop     context.CancelFunc
	idle     []*gosnmp.GoSNMP // clients of answered requests, free for the next ones; closed once all have ended
}

// request is one request of a burst.
type request struct {
	state reqState
	at    time.Time // when it left
}

// reqState is how a request of a burst stands.
type reqState uint8

const (
	reqUnsent    reqState = iota // not sent yet, or cut short
	reqUnderWay                  // sent, not answered yet
	reqAnswered                  // answered
	reqLost                      // its wait ran out, or it was overtaken
	reqOvertaken                 // a later request answered: lost once it has waited the reorder window
)

// burstOpts shapes a burst begun on a hint of loss alone (a test that
// lost one request: perhaps a reply late on a busy host, perhaps a lossy
// link).
type burstOpts struct {
	// clean, when set, ends the burst once its first clean requests are
	// all answered: the link is clean, the hint was a late reply.
	clean int
	// paced sends each request once the one before it is answered, or
	// at its turn of the spread if that comes first: on a clean link the
	// burst takes a few round trips, not most of its wait.
	paced bool
}

// starvedShare: a burst whose request leaves a tenth of its wait late (100
// ms at the shipped test.timeout) ran on a host starved of CPU, whose
// late reads lose replies as a lossy link would: its share lost is not
// counted (a host so loaded that every agent on it lags said otherwise:
// healthy peers named degraded).
const starvedShare = 10

// Refused reports whether the test found the peer partial because its host
// refused the requests (no agent listens): the host's word, which no late
// read of a starved tester makes, unlike a request gone unanswered.
func (r Result) Refused() bool {
	return r.Status == hiadsd.Partial && r.SNMPErr != nil && refusedPort(r.SNMPErr)
}

// refusedPort reports whether err says the peer's host refused the
// request (an ICMP port unreachable: no agent listens on the port).
func refusedPort(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || strings.Contains(err.Error(), "connection refused")
}

// startBurst begins a burst of n requests to t within ctx.
func (p *Prober) startBurst(ctx context.Context, t Target, n int, wait time.Duration, o burstOpts) *burst {
	b := &burst{n: n, clean: o.clean, reqs: make([]request, n)}
	oids := []string{mib.HiADSDisUP0}
	if t.TestedOnly {
		oids[0] = cmp.Or(t.OID, DefaultOID)
	}
	ctx, stop := context.WithCancel(ctx)
	b.stop = stop
	begun := time.Now()
	var answered []chan struct{} // paced: closed once request k is answered
	if o.paced {
		answered = make([]chan struct{}, n)
		for k := range answered {
			answered[k] = make(chan struct{})
		}
	}
	for k := range n {
		b.wg.Go(func() {
			due := wait * time.Duration(k) / time.Duration(n)
			at := time.NewTimer(due)
			defer at.Stop()
			var before <-chan struct{}
			if o.paced && k > 0 {
				before = answered[k-1]
			}
			select {
			case <-at.C:
			case <-before:
			case <-ctx.Done():
				return
			}
			b.mu.Lock()
			if p.starvedBy > 0 && time.Since(begun)-due > wait/time.Duration(p.starvedBy) {
				b.starved = true
			}
			if !b.settled {
				b.reqs[k] = request{state: reqUnderWay, at: time.Now()}
			}
			b.mu.Unlock()
			var rtt time.Duration
			intact := false
			get := func(g *gosnmp.GoSNMP) error {
				// A request under way ends with ctx (a corroborated re-test, a
				// refusal, a settled verdict).
				stop := closeOnDone(ctx, g)
				defer func() { intact = stop() }()
				g.Timeout, g.Retries = wait, 0
				start := time.Now()
				pkt, err := g.Get(oids)
				if err != nil {
					return err
				}
				rtt = time.Since(start)
				vb, err := firstValue(pkt, oids)
				if err == nil && !t.TestedOnly {
					err = upValue(vb)
				}
				return err
			}
			var err error
			g := b.reuse()
			if g != nil {
				if err = get(g); err != nil {
					p.close(g, t)
				}
			} else {
				g, err = p.open(ctx, t, get)
			}
			switch {
			case err == nil && intact:
				b.release(g)
			case err == nil:
				p.close(g, t)
			}
			switch {
			case err == nil:
				b.answer(k, rtt)
				if o.paced {
					close(answered[k])
				}
			case refusedPort(err):
				stop() // no agent listens: no loss explains that, and the rest would only wait out the spread
			case ctx.Err() == nil:
				b.mark(k, reqLost)
			}
		})
	}
	go b.watch(ctx, wait)
	go func() {
		b.wg.Wait()
		b.mu.Lock()
		idle := b.idle
		b.idle = nil
		b.mu.Unlock()
		for k, g := range idle {
			if k == 0 {
				p.keep(g, t) // for the next test of t
			} else {
				p.close(g, t)
			}
		}
	}()
	return b
}

// reuse takes a free client of the burst, nil if none.
func (b *burst) reuse() *gosnmp.GoSNMP {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := len(b.idle) - 1
	if k < 0 {
		return nil
	}
	g := b.idle[k]
	b.idle = b.idle[:k]
	return g
}

// release gives back the client of an answered request, free for the
// next request; a request's goroutine calls it, so before idle is closed.
func (b *burst) release(g *gosnmp.GoSNMP) {
	b.mu.Lock()
	b.idle = append(b.idle, g)
	b.mu.Unlock()
}

// answer notes request k's answer, after rtt.
func (b *burst) answer(k int, rtt time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.settled {
		return
	}
	b.reqs[k].state = reqAnswered
	if b.rtt == 0 {
		b.rtt = rtt
	}
	b.longest = max(b.longest, rtt)
	if k < b.clean {
		if b.first++; b.first == b.clean {
			b.stop() // the link is clean: the rest would only load it
		}
	}
	for j := range k { // the requests sent before k and still under way are overtaken
		if b.reqs[j].state == reqUnderWay {
			b.reqs[j].state = reqOvertaken
		}
	}
}

// mark notes that request k ended as st.
func (b *burst) mark(k int, st reqState) {
	b.mu.Lock()
	if !b.settled {
		b.reqs[k].state = st
	}
	b.mu.Unlock()
	b.judge(time.Time{}, 0)
}

// watch judges the burst every twentieth of wait until ctx ends (the
// burst ended, settled or cut short): overtaken requests become lost once
// they have waited the reorder window.
func (b *burst) watch(ctx context.Context, wait time.Duration) {
	tick := time.NewTicker(wait / 20)
	defer tick.Stop()
	done := make(chan struct{})
	go func() { b.wg.Wait(); close(done) }()
	for {
		select {
		case now := <-tick.C:
			b.judge(now, wait/20)
		case <-done:
			return
		case <-ctx.Done():
			return
		}
	}
}

// judge makes lost the overtaken requests that have waited 2·longest +
// window by now (none with a zero now), and ends the burst once its verdict
// is settled.
func (b *burst) judge(now time.Time, window time.Duration) {
	b.mu.Lock()
	if b.settled {
		b.mu.Unlock()
		return
	}
	var nAnswered, nLost int
	for k := range b.reqs {
		r := &b.reqs[k]
		if r.state == reqOvertaken && !now.IsZero() && now.Sub(r.at) >= 2*b.longest+window {
			r.state = reqLost
		}
		switch r.state {
		case reqAnswered:
			nAnswered++
		case reqLost:
			nLost++
		}
	}
	if hiadsd.Settled(b.n, nAnswered, nLost) {
		b.settled = true
		b.stop()
	}
	b.mu.Unlock()
}

// alive waits for every request of the burst and reports whether any was
// answered.
func (b *burst) alive() bool {
	_, answered, _ := b.end()
	return answered > 0
}

// end waits for every request of the burst and returns how many were
// sent (answered or lost: those cut short under way are not counted) and
// answered, and the first answer's round trip.
func (b *burst) end() (sent, answered int, rtt time.Duration) {
	b.wg.Wait()
	b.stop()
	b.judge(time.Time{}, 0)
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, r := range b.reqs {
		switch r.state {
		case reqAnswered:
			sent++
			answered++
		case reqLost:
			sent++
		}
	}
	return sent, answered, b.rtt
}

// add counts the burst's requests into res, once it has ended (none of a
// starved burst's), and makes a peer that answered none of res's own
// requests, but answered the burst, fault-free: alive, its replies lost.
// A test cut short stays as it was.
func (b *burst) add(res Result) Result {
	sent, answered, rtt := b.end()
	if res.Status == hiadsd.Unknown {
		return res
	}
	if b.starved {
		res.Starved = true
	} else {
		res.Sent, res.Unanswered = res.Sent+sent, res.Unanswered+sent-answered
	}
	if answered > 0 && (res.Status == hiadsd.Faulty || res.Status == hiadsd.Partial && res.SNMPErr != nil && !errors.Is(res.SNMPErr, ErrLoopStalled)) {
		res.Status, res.RTT = hiadsd.FaultFree, rtt
	}
	return res
}

// measureLink is View.Confirm's measurement of a peer that answered a test
// needing no re-test: held degraded; held fault-free, its answer lost a
// request, or it says it sees loss on its own tests; or the test answers
// another agent's question. Each request waits the re-test's wait
// (test.timeout): a reply late on a busy host is no loss. A lone request lost
// is only a hint: the burst ends once its first hiadsd.CleanRequests are
// answered (a late reply on a loaded host costs 8 requests). The same holds
// for a test asked by another agent about a peer it holds fault-free: its
// burst ends once its first 8 are answered, as the link's loss is then no
// heavy loss from here. A measurement too close to call (hiadsd.Unsure:
// 20 to 40% lost) is made once more and the two judged together: a link
// losing half its round trips measured under 40% about one time in ten,
// and the lossy member went unnamed for another interval or more. A
// return (a peer held down that answers) is not measured: a link coming
// back, and a host catching up, lose requests for a moment; nor is a peer
// that did not answer and is held down already: an agent asked about it
// answers at once, within the asker's wait.
//
// Other agents are asked to measure a peer held fault-free (a second vantage
// point names a lossy peer, a tester's word does not) once this burst has
// found heavy loss, not before: what they say cannot change a measurement
// that did not (hiadsd.Decided), and each of them makes a whole test with a
// burst of its own. Asked at the burst's first lost request instead,
// the agents of a loaded host (192 processes on two cores) answered 50 to 60
// such questions every ten seconds, nearly all of them fault-free, and the
// work kept the host starved.
func (p *Prober) measureLink(ctx context.Context, t Target, v View, held hiadsd.Status, res Result) Result {
	wait := p.retry().wait
	var o burstOpts
	if held == hiadsd.FaultFree && res.Unanswered < 2 && !res.SeesLoss {
		o.clean = hiadsd.CleanRequests
	}
	res = p.startBurst(ctx, t, v.Confirm, wait, o).add(res)
	if res.Status.Up() && hiadsd.Unsure(res.Sent, res.Unanswered) {
		res = p.startBurst(ctx, t, v.Confirm, wait, burstOpts{}).add(res) // once more, judged together
	}
	if held == hiadsd.FaultFree && !v.Asked && v.Lossy != nil && res.Status.Up() && hiadsd.Heavy(res.Sent, res.Unanswered) {
		v.Lossy()
	}
	if held != hiadsd.FaultFree || v.Asked || v.Second == nil || !res.Status.Up() || !hiadsd.Heavy(res.Sent, res.Unanswered) {
		return res
	}
	// Once the answers so far settle what the core makes of the
	// measurement, the rest are not waited for: a lossy member's vantage
	// points answer over a second or two, the first one that measured it
	// degraded as well as the last.
	seen, _ := collect(v.Second(ctx)).end(ctx, 2*wait, func(seen []hiadsd.Status) bool {
		return hiadsd.Decided(res.Status, res.Sent, res.Unanswered, seen)
	})
	res.Seen = append(res.Seen, seen...)
	return res
}
