package probe

import (
	"cmp"
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
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
}

// collect gathers from in until in closes or end.
func collect(in <-chan hiadsd.Status) *vantages {
	v := &vantages{done: make(chan struct{}), stop: make(chan struct{})}
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
			case <-v.stop:
				return
			}
		}
	}()
	return v
}

// end waits up to wait for every agent asked to be done (one that reached
// the peer answers fast; one that did not answers once its own re-test
// ends, and the first answer must not cut the others short), then stops
// gathering and returns the verdicts, and whether every agent asked
// refused the question.
func (v *vantages) end(ctx context.Context, wait time.Duration) (seen []hiadsd.Status, noneAsked bool) {
	if wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-v.done:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	close(v.stop)
	<-v.done
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.seen, v.closed && len(v.seen) == 0 && v.answered > 0
}

// Vantage writes value (a board.MarshalVantage) to diagVantage.0 of the
// agent at t, as Push writes a push.
func (p *Prober) Vantage(ctx context.Context, t Target, value []byte) error {
	return p.send(ctx, t, mib.DiagVantage0, value, "diagVantage of")
}

// measure sends n requests to t one after the other, each awaited for
// twice t's round-trip timeout (a reply late on a busy host is no loss)
// and never resent, and counts those unanswered.
func (p *Prober) measure(ctx context.Context, t Target, n int) (sent, unanswered int) {
	oids := []string{mib.HiADSDisUP0}
	if t.TestedOnly {
		oids[0] = cmp.Or(t.OID, DefaultOID)
	}
	wait := 2 * p.book.estimate(t).timeout(p.cfg.TimeoutMin, p.cfg.Timeout) * p.stretch()
	for range n {
		if ctx.Err() != nil {
			break
		}
		sent++
		g, err := p.open(ctx, t, func(g *gosnmp.GoSNMP) error {
			g.Timeout, g.Retries = wait, 0
			_, err := g.Get(oids)
			return err
		})
		if err != nil {
			unanswered++
			continue
		}
		p.close(g, t)
	}
	return sent, unanswered
}

// burst is a measurement of a peer's link under way (View.Confirm): n
// GETs of hiADSDisUP, spread evenly over wait, each on a socket of its
// own, awaited for wait and never resent (those the context cuts short
// are not counted). A refused request (no agent listens) ends it. One that comes back "1" proves
// the peer alive and diagnosing; the share unanswered is the link's loss.
type burst struct {
	sent, answered int
	rtt            time.Duration // the first answer's round trip
	first          int           // answers to the first burstOpts.clean requests
	starved        bool          // a request left late: this host is starved of CPU, the share lost says nothing of the link
	mu             sync.Mutex
	wg             sync.WaitGroup
	stop           context.CancelFunc
	lost           sync.Once // burstOpts.onLoss
}

// burstOpts shapes a burst begun on a hint of loss alone (a test that
// lost one request: perhaps a reply late on a busy host, perhaps a lossy
// link).
type burstOpts struct {
	// clean, when set, ends the burst once its first clean requests are
	// all answered: the link is clean, the hint was a late reply.
	clean int
	// onLoss, when set, runs once, at the first request unanswered.
	onLoss func()
}

// starvedShare: a burst whose request leaves a tenth of its wait late (100
// ms at the shipped test.timeout) ran on a host starved of CPU, whose
// late reads lose replies as a lossy link would: its share lost is not
// counted (a host so loaded that every agent on it lags said otherwise:
// healthy peers named degraded).
const starvedShare = 10

// cleanRequests is burstOpts.clean for a hint of loss: 8 requests, the
// first sixth of the spread. A link losing 40% of its round trips
// (hiadsd.Heavy) answers all 8 about once in 60 bursts.
const cleanRequests = 8

// refusedPort reports whether err says the peer's host refused the
// request (an ICMP port unreachable: no agent listens on the port).
func refusedPort(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || strings.Contains(err.Error(), "connection refused")
}

// startBurst begins a burst of n requests to t within ctx.
func (p *Prober) startBurst(ctx context.Context, t Target, n int, wait time.Duration, o burstOpts) *burst {
	b := &burst{}
	oids := []string{mib.HiADSDisUP0}
	if t.TestedOnly {
		oids[0] = cmp.Or(t.OID, DefaultOID)
	}
	ctx, stop := context.WithCancel(ctx)
	b.stop = stop
	begun := time.Now()
	for k := range n {
		b.wg.Go(func() {
			due := wait * time.Duration(k) / time.Duration(n)
			at := time.NewTimer(due)
			defer at.Stop()
			select {
			case <-at.C:
			case <-ctx.Done():
				return
			}
			if p.starvedBy > 0 && time.Since(begun)-due > wait/time.Duration(p.starvedBy) {
				b.mu.Lock()
				b.starved = true
				b.mu.Unlock()
			}
			var rtt time.Duration
			g, err := p.open(ctx, t, func(g *gosnmp.GoSNMP) error {
				// A request under way ends with ctx (a corroborated re-test, a
				// refusal): gosnmp looks at its context only between resends.
				defer context.AfterFunc(ctx, func() { g.Conn.Close() })()
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
			})
			if err == nil {
				p.close(g, t)
			}
			lost := false
			b.mu.Lock()
			switch {
			case err == nil:
				b.sent++
				if b.answered++; b.rtt == 0 {
					b.rtt = rtt
				}
				if k < o.clean {
					if b.first++; b.first == o.clean {
						stop() // the link is clean: the rest would only load it
					}
				}
			case refusedPort(err):
				stop() // no agent listens: no loss explains that, and the rest would only wait out the spread
			case ctx.Err() == nil: // a request cut short is not sent
				b.sent++
				lost = true
			}
			b.mu.Unlock()
			if lost && o.onLoss != nil {
				b.lost.Do(o.onLoss)
			}
		})
	}
	return b
}

// alive waits for every request of the burst and reports whether any was
// answered.
func (b *burst) alive() bool {
	b.wg.Wait()
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.answered > 0
}

// end waits for every request of the burst and returns how many were
// sent and answered, and the first answer's round trip.
func (b *burst) end() (sent, answered int, rtt time.Duration) {
	b.wg.Wait()
	b.stop()
	return b.sent, b.answered, b.rtt
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
	if !b.starved {
		res.Sent, res.Unanswered = res.Sent+sent, res.Unanswered+sent-answered
	}
	if answered > 0 && (res.Status == hiadsd.Faulty || res.Status == hiadsd.Partial && res.SNMPErr != nil && !errors.Is(res.SNMPErr, ErrLoopStalled)) {
		res.Status, res.RTT = hiadsd.FaultFree, rtt
	}
	return res
}

// measureLink is View.Confirm's measurement of a peer that answered a
// test needing no re-test: held degraded; held fault-free, its answer
// lost a request, or it says it sees loss on its own tests (other agents
// are asked to measure it too, as for a new failure: a second vantage
// point names a lossy peer, a tester's word does not); or the test
// answers another agent's question. Each request waits the re-test's wait
// (test.timeout): a reply late on a busy host is no loss. A lone request
// lost is only a hint: the burst ends once its first cleanRequests are
// answered, and other agents are asked only once one of its own requests
// goes unanswered (a late reply on a loaded host costs 8 requests, not
// every vantage point's burst). A return (a peer held down that answers) is not measured: a link coming
// back, and a host catching up, lose requests for a moment; nor is a
// peer that did not answer and is held down already: an agent asked
// about it answers at once, within the asker's wait.
func (p *Prober) measureLink(ctx context.Context, t Target, v View, held hiadsd.Status, res Result) Result {
	wait := p.retry().wait
	ask := held == hiadsd.FaultFree && !v.Asked && v.Second != nil
	var o burstOpts
	var asked atomic.Pointer[vantages]
	if held == hiadsd.FaultFree && !v.Asked && res.Unanswered < 2 && !res.SeesLoss {
		o.clean = cleanRequests
		if ask {
			o.onLoss, ask = func() { asked.Store(collect(v.Second(ctx))) }, false
		}
	}
	if ask {
		asked.Store(collect(v.Second(ctx)))
	}
	res = p.startBurst(ctx, t, v.Confirm, wait, o).add(res)
	if others := asked.Load(); others != nil {
		seen, _ := others.end(ctx, 2*wait)
		res.Seen = append(res.Seen, seen...)
	}
	return res
}
