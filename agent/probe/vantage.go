package probe

import (
	"cmp"
	"context"
	"sync"
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
