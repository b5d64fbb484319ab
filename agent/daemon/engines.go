package daemon

import (
	"context"

	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/hiadsd"
)

// learnEngines starts, unless one runs, a background pass that learns the
// SNMPv3 engine of every agent of the list the view holds fault-free and
// whose engine is not known yet (probe.LearnAhead), beginning after this
// agent's own id so that agents started together begin with different
// peers: with the cluster key, a question, a push or a hello to a peer the
// rotating plan does not test would pay the discovery round trip when it
// matters. No pass starts or goes on while the agent is starved. On the loop.
func (d *Daemon) learnEngines(ctx context.Context) {
	// Once every other agent's engine is known, the agent says so, once
	// until one is not: it ends the start-up's work (lanrun's steady window
	// waits for it).
	l, ok := d.prober.(probe.Learner)
	if !ok || d.lag.Starved() || !d.learning.CompareAndSwap(false, true) {
		return
	}
	var todo []probe.Target
	n, all := len(d.list.Members), true
	for k := 1; k < n; k++ {
		id := (d.id + k) % n
		m := d.list.Members[id]
		if m.Removed || m.TestedOnly || l.KnowsEngine(m) {
			continue
		}
		all = false
		if d.view[id].Status == hiadsd.FaultFree {
			todo = append(todo, m)
		}
	}
	if all && !d.enginesKnown {
		d.log.Info(enginesKnownLine)
	}
	d.enginesKnown = all
	if len(todo) == 0 {
		d.learning.Store(false)
		return
	}
	d.push.sends.Go(func() {
		defer d.learning.Store(false)
		probe.LearnAhead(ctx, l, todo, func() bool { return !d.lag.Starved() }, func(t probe.Target, err error) {
			d.log.WithField("address", t.Addr.String()).WithError(err).Debug("engine not learned ahead: its next exchange discovers it")
		})
	})
}

// enginesKnownLine is logged once the engine of every other agent is known
// (at the first pass with SNMPv2c, which needs none).
const enginesKnownLine = "a question to any other agent costs one request: its SNMPv3 engine is known, or it is spoken to in SNMPv2c"
