package daemon

import (
	"context"

	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/hiadsd"
)

// learner is a Prober that learns peers' SNMPv3 engines ahead of need
// (probe.Prober.LearnEngine).
type learner interface {
	KnowsEngine(t probe.Target) bool
	LearnEngine(ctx context.Context, t probe.Target) error
}

// learnEngines learns in the background, unless a discovery is under way,
// the SNMPv3 engine of one agent of the list that the view holds fault-free
// and whose engine is not known yet: the first such after this agent's own
// id, so that agents started together begin with different peers. With the
// cluster key, the first exchange with a peer costs a discovery round trip;
// the rotating plan tests only log2 N peers from here, so a question to
// another agent (a second vantage point), a push or a hello would pay it
// when it matters. Once each engine is known, every exchange is one
// request, and the call finds nothing to do.
//
// One engine an interval: each discovery costs gosnmp a key localization
// of 4 ms of CPU with the cluster key (SHA-256 and AES; agent/usm), and 64
// agents that learned every engine at once when they started spent 16 s of
// CPU on it. With 192 processes on two cores that start-up never settled
// within three minutes, while without the discoveries it settled in 51 s.
// Nor does it learn while the agent is starved of CPU (starve.go). It runs
// on the loop, which owns the list and the view.
func (d *Daemon) learnEngines(ctx context.Context) {
	l, ok := d.prober.(learner)
	if !ok || d.starved() || !d.learning.CompareAndSwap(false, true) {
		return
	}
	n := len(d.list.Members)
	for k := 1; k < n; k++ {
		id := (d.id + k) % n
		m := d.list.Members[id]
		if m.Removed || m.TestedOnly || d.view[id].Status != hiadsd.FaultFree || l.KnowsEngine(m) {
			continue
		}
		d.push.sends.Go(func() {
			defer d.learning.Store(false)
			if err := l.LearnEngine(ctx, m); err != nil {
				d.log.WithField("address", m.Addr.String()).WithError(err).Debug("engine not learned ahead: its next exchange discovers it")
			}
		})
		return
	}
	d.learning.Store(false)
}
