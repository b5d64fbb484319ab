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
// peers. With the cluster key, the first exchange with a peer costs a
// discovery round trip; the rotating plan tests only log2 N peers from
// here, so a question to another agent (a second vantage point), a push or
// a hello would pay it when it matters. A pass neither starts nor goes on
// while the agent is starved of CPU. It runs on the loop, which owns the
// list and the view.
func (d *Daemon) learnEngines(ctx context.Context) {
	l, ok := d.prober.(probe.Learner)
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
		probe.LearnAhead(ctx, l, todo, func() bool { return !d.starved() }, func(t probe.Target, err error) {
			d.log.WithField("address", t.Addr.String()).WithError(err).Debug("engine not learned ahead: its next exchange discovers it")
		})
	})
}
