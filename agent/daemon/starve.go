package daemon

import "time"

// A starved agent does less (agent/lag): its tests wait twice as long,
// carry no measurement of a link and count no loss (a reply read late is no
// packet lost); it refuses other agents' questions as busy (ErrVantageBusy)
// until its timers keep time again (lag.Watch.Recovering); and it learns no
// engine ahead. A lagging one measures no link either, and answers
// questions with a plain test. One that stalled within a test takes no
// failure from it as a helper, nor a busy refusal for an answer as an asker
// (vantage.go); one stopped a second believes none (peers.go).

// refusesQuestions reports whether the agent refuses other agents'
// questions: while starved, until its timers keep time again. Starvation
// lasts 15 to 45 calm seconds after a stall of the host, and a failure
// found then by every tester went unbelieved as long, each one asking
// agents that all refused.
func (d *Daemon) refusesQuestions() bool { return d.lag.Starved() && !d.lag.Recovering() }

// restretch doubles the prober's waits while the agent doubts its own
// tests or is starved of CPU, and undoes it once neither holds.
func (d *Daemon) restretch() {
	sp, ok := d.prober.(seconding)
	if !ok {
		return
	}
	d.stretching.Lock() // one at a time, so the last judgement read is the one applied
	defer d.stretching.Unlock()
	d.mu.Lock()
	on := d.doubting
	d.mu.Unlock()
	sp.Stretch(on || d.lag.Starved())
}

// lossSamples is the requests a test begun at began sent and lost, for the
// agent's own health: none while it lags (or is starved), or if it stalled
// since (a tick 100 ms late): replies may have been read late.
func (d *Daemon) lossSamples(sent, unanswered int, began time.Time) (int, int) {
	if d.lag.Lagging() || d.lag.LateSince(began) {
		return 0, 0
	}
	return sent, unanswered
}
