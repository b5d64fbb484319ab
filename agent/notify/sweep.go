package notify

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/mib"
)

// Sweeps (hiadsd.Grouper.Swept). A fault waits the group window in case
// others of the same cause follow; the agent that will send it, the owner,
// asks every other node once, at once, when faults start collecting. The
// nodes that answer were up after the cause; when every one that did not
// is among the faults, they are due: a node alone is told about a round
// trip after it is known instead of a window later, and a switch's nodes
// once the last of them is known. A sweep costs one question (an SNMP GET,
// probe.Prober.Ask) to each node the agent holds fault-free, two to one
// whose reply did not come, once per cause, at the owner only.

// sweepLocked starts a sweep of the faults collecting, if none is out and
// none has reported on them; whether this agent owns them is decided by
// the sweep, from the snapshot. c.mu is held (p.mu may be too: the sweep
// runs on its own goroutine).
func (c *causes) sweepLocked(p *Policy) {
	if c.closed {
		return
	}
	if c.sweeping {
		c.again = true // the faults changed while a sweep was out: look again after it
		return
	}
	opened, in, ok := c.g.Unswept()
	if !ok {
		return
	}
	if c.stopSweeps == nil {
		c.sweepCtx, c.stopSweeps = context.WithCancel(context.Background())
	}
	c.sweeping = true
	ctx := c.sweepCtx
	c.sweeps.Go(func() { p.sweep(ctx, opened, in) })
}

// stopSweepsLocked ends a sweep under way; the daemon is stopping. c.mu
// is held.
func (c *causes) stopSweepsLocked() {
	if c.stopSweeps != nil {
		c.stopSweeps()
	}
}

// sweep asks, when this agent owns the faults that started collecting at
// opened (nodes in), every other node it does not know to be out whether
// it is up, and reports the ones that did not answer to the grouper.
func (p *Policy) sweep(ctx context.Context, opened time.Duration, in []int) {
	c := &p.causes
	began := p.host.Now()
	silent, asked, owner := p.sweepTargets(in)
	if owner {
		silent = append(silent, p.askAll(ctx, asked)...)
	}
	now := p.host.Now()
	c.mu.Lock()
	c.sweeping = false
	if owner {
		c.g.Swept(opened, p.since(now), silent)
		c.armLocked(p, now)
	}
	if c.again { // faults that opened meanwhile, or owned now that the batch grew
		c.again = false
		c.sweepLocked(p)
	}
	c.mu.Unlock()
	if !owner {
		return
	}
	result := "answered"
	if len(silent) > 0 {
		result = "silent"
	}
	p.met.sweeps.WithLabelValues(result).Inc()
	p.log.WithFields(logrus.Fields{"faults": rangesOf(in), "asked": len(asked), "silent": rangesOf(silent),
		"took": now.Sub(began).String()}).Info("swept the nodes up: the faults are due once every silent node is among them")
}

// sweepTargets reads the snapshot: whether this agent owns the nodes in
// (the agent of the lowest id held fault-free outside them), the nodes to
// ask (every other node not removed and not known out: held faulty or
// partial, in maintenance or flapping, as the snapshot says) and those
// silent already without a question (held faulty or partial, but not yet
// among the faults: a partial verdict still held back, or told before).
// A node known out and told is never part of a later cause, so it is not
// waited for: outstanding says which.
func (p *Policy) sweepTargets(in []int) (silent []int, ask []board.Row, owner bool) {
	s := p.host.Snapshot()
	if s == nil || ownerOutside(s, in) != p.view.Self() {
		return nil, nil, false
	}
	now := p.host.Now()
	for _, r := range s.Nodes {
		id := int(r.ID) - 1
		if id == p.view.Self() || r.Removed || slices.Contains(in, id) || r.Flapping || r.Maint.Active(now) {
			continue
		}
		switch {
		case r.Status.Up():
			ask = append(ask, r)
		case !p.recoveries.outstanding(id):
			silent = append(silent, id)
		}
	}
	return silent, ask, true
}

// rangesOf names core ids as NodeID ranges, "3,9,12-14".
func rangesOf(ids []int) string {
	out := make([]uint32, 0, len(ids))
	for _, id := range ids {
		out = append(out, uint32(id+1))
	}
	slices.Sort(out)
	return mib.NodeRanges(slices.Compact(out), 255)
}

// asking is a Prober that asks a peer whether it is up apart from its
// tests (probe.Prober.Ask), which a sweep uses when it can.
type asking interface {
	Ask(ctx context.Context, t probe.Target) bool
}

// askAll asks every row at once and returns the ids of those that did
// not answer fault-free within half an interval (a test's budget if that
// is shorter), asked twice at most. A node up answers in a round trip;
// one that does not is waited for by the faults until it is among them or
// the window closes, so a slow answer costs a node alone the window, not a
// wrong cause, and the faults of a cut need not wait for its tests to time
// out.
func (p *Policy) askAll(ctx context.Context, rows []board.Row) []int {
	ctx, cancel := context.WithTimeout(ctx, min(p.cfg.Interval/2, p.cfg.TestBudget))
	defer cancel()
	var (
		mu     sync.Mutex
		silent []int
		wg     sync.WaitGroup
	)
	ask := func(r board.Row) bool { return p.prober.Probe(ctx, r.Member).Status.Up() }
	if a, ok := p.prober.(asking); ok {
		// A question is one round trip's wait: one whose reply was lost,
		// or late on a loaded host, is asked once more within the sweep's
		// wait rather than cost the cause the whole window.
		ask = func(r board.Row) bool { return a.Ask(ctx, r.Member) || ctx.Err() == nil && a.Ask(ctx, r.Member) }
	}
	next := make(chan board.Row)
	for range min(len(rows), sweepWorkers) {
		wg.Go(func() {
			for r := range next {
				if !ask(r) {
					mu.Lock()
					silent = append(silent, int(r.ID)-1)
					mu.Unlock()
				}
			}
		})
	}
	for _, r := range rows {
		next <- r
	}
	close(next)
	wg.Wait()
	return silent
}

// sweepWorkers bounds the questions of a sweep under way at once, as the
// prober's own slots for them do (probe.Prober.Ask).
const sweepWorkers = 32
