package daemon

import (
	"context"
	"time"

	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/hiadsd"
)

// learner is a Prober that learns peers' SNMPv3 engines ahead of need
// (probe.Prober.LearnEngine).
type learner interface {
	KnowsEngine(t probe.Target) bool
	LearnEngine(ctx context.Context, t probe.Target) error
}

// engineGap spaces the discoveries of one pass of learnEngines: 64 peers
// take about 1.3 s, and agents that start together do not all speak at once.
const engineGap = 20 * time.Millisecond

// learnEngines starts, unless one runs, a background pass that learns the
// SNMPv3 engine of every agent of the list the view holds fault-free and
// whose engine is not known yet, one at a time. With the cluster key, the
// first exchange with a peer costs a discovery round trip; the rotating
// plan tests only log2 N peers from here, so a question to another agent
// (a second vantage point), a push or a hello would pay it when it
// matters. Once each engine is known, every exchange is one request; a
// pass finds nothing to do and sends nothing. It runs on the loop, which
// owns the list and the view.
func (d *Daemon) learnEngines(ctx context.Context) {
	l, ok := d.prober.(learner)
	if !ok || !d.learning.CompareAndSwap(false, true) {
		return
	}
	var todo []probe.Target
	for k, m := range d.list.Members {
		if k != d.id && !m.Removed && !m.TestedOnly && d.view[k].Status == hiadsd.FaultFree && !l.KnowsEngine(m) {
			todo = append(todo, m)
		}
	}
	if len(todo) == 0 {
		d.learning.Store(false)
		return
	}
	d.push.sends.Go(func() {
		defer d.learning.Store(false)
		for _, t := range todo {
			if err := l.LearnEngine(ctx, t); err != nil {
				d.log.WithField("address", t.Addr.String()).WithError(err).Debug("engine not learned ahead: its next exchange discovers it")
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(engineGap):
			}
		}
	})
}
