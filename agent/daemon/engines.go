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
// whose engine is not known yet, one at a time, beginning after this
// agent's own id so that agents started together begin with different
// peers. With the cluster key, the first exchange with a peer costs a
// discovery round trip; the rotating plan tests only log2 N peers from
// here, so a question to another agent (a second vantage point), a push or
// a hello would pay it when it matters. Once each engine is known, every
// exchange is one request; a pass finds nothing to do and sends nothing.
//
// A discovery is one unauthenticated request, and the keys are localized
// for a few microseconds (probe.Prober.LearnEngine). Through gosnmp's own
// discovery each engine cost 4 ms of CPU, 16 s for 64 agents started
// together, and 192 processes on two cores did not settle within three
// minutes. A pass neither starts nor goes on while the agent is starved of
// CPU (starve.go). It runs on the loop, which owns the list and the view.
func (d *Daemon) learnEngines(ctx context.Context) {
	l, ok := d.prober.(learner)
	if !ok || d.starved() || !d.learning.CompareAndSwap(false, true) {
		return
	}
	var todo []probe.Target
	n := len(d.list.Members)
	for k := 1; k < n; k++ {
		id := (d.id + k) % n
		m := d.list.Members[id]
		if !m.Removed && !m.TestedOnly && d.view[id].Status == hiadsd.FaultFree && !l.KnowsEngine(m) {
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
			if d.starved() {
				return // a later interval's pass goes on once the agent catches up
			}
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
