package traps

import "time"

// defaultFailoverAfter is how many informs in a row a station may leave
// unanswered before it is marked down, when MaxAttempts does not say.
const defaultFailoverAfter = 4

// health is what the notifier has seen of each station: a station that left
// FailoverAfter informs in a row unanswered is down for Recheck, and
// notifications go to the next fall-back meanwhile; after that it is tried
// first again, on probation: one unanswered inform puts it down again, one
// acknowledgement makes it the station again. The station need not be a
// node of the diagnosis. Only the delivering goroutine uses it.
type health struct {
	streak map[target]int       // unanswered informs in a row
	down   map[target]time.Time // until when; kept after that as probation
}

// isDown reports whether t is down at now.
func (h *health) isDown(t target, now time.Time) bool {
	until, ok := h.down[t]
	return ok && now.Before(until)
}

// answered notes an acknowledgement from t.
func (n *Notifier) answered(t target) {
	delete(n.health.streak, t)
	if _, was := n.health.down[t]; was {
		delete(n.health.down, t)
		n.log.WithField("station", t.String()).Info("management station answers again; notifications go to it")
	}
}

// unanswered notes an inform t left unanswered, and marks t down after
// FailoverAfter of them in a row, or after one on probation.
func (n *Notifier) unanswered(t target) {
	n.health.streak[t]++
	_, probation := n.health.down[t]
	if !probation && n.health.streak[t] < n.failoverAfter() {
		return
	}
	n.health.streak[t] = 0
	n.health.down[t] = time.Now().Add(n.cfg.Recheck)
	n.stats.failovers.Add(1)
	n.log.WithField("station", t.String()).WithField("recheck", n.cfg.Recheck.String()).
		Warn("management station does not acknowledge; notifications go to the next fall-back until it answers")
}

// failoverAfter is the unanswered informs in a row that mark a station down.
func (n *Notifier) failoverAfter() int {
	if n.cfg.MaxAttempts > 0 {
		return n.cfg.MaxAttempts
	}
	return defaultFailoverAfter
}
