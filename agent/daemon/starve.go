package daemon

import "time"

// A starved agent does less (agent/lag): its tests wait twice as long,
// carry no measurement of a link and count no loss (a reply read late is no
// packet lost); it refuses other agents' questions as busy (ErrVantageBusy,
// unheard by the asker); and it learns no engine ahead. A lagging one (late,
// not yet starved) measures no link either, and answers a question with a
// plain test, giving no failure it found but a refusal (vantage.go).

// starved reports whether the agent is starved of CPU now.
func (d *Daemon) starved() bool { return d.lag.Starved() }

// lateReads reports whether the agent is starved, or its timer ran late
// enough over the last window that a reply read late may look lost
// (lag.Watch.Lagging).
func (d *Daemon) lateReads() bool { return d.lag.Lagging() }

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
	sp.Stretch(on || d.starved())
}

// lossSamples is the requests a test begun at began sent and lost, for the
// agent's own health: none while it lags or if it stalled since (read late).
func (d *Daemon) lossSamples(sent, unanswered int, began time.Time) (int, int) {
	if d.lag.Lagging() || d.lag.LateSince(began) {
		return 0, 0
	}
	return sent, unanswered
}
