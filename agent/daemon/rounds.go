package daemon

import (
	"time"

	"github.com/diagagent/diagagent/hiadsd"
)

// Rounds of the rotating plan (test.plan rotate, hiadsd.Config.Rotate).
// vCube then tests one cluster per interval, and it pairs the nodes only
// if they all test the same cluster at about the same time. The agents
// agree without a message: round r is the r-th interval since the Unix
// epoch, and its cluster is r mod log2 N + 1. An agent starts its interval
// at the round's start plus a stagger of up to a quarter interval, set by
// its id, so agents on one host do not all test in the same millisecond.
// Clocks further apart than NTP's milliseconds still test every node, but a
// node may then go a round untested or be tested twice in one.

// rotating reports whether the agent follows the rotating plan.
func (d *Daemon) rotating() bool { return d.node.Config.Rotate }

// stagger is this agent's offset into each round.
func (d *Daemon) stagger() time.Duration {
	n := max(d.node.Config.N, 1)
	return time.Duration(int64(d.cfg.Interval) / 4 * int64(d.id%n) / int64(n))
}

// roundAt returns the round under way at t for this agent (counted from its
// staggered start) and when the next one starts.
func (d *Daemon) roundAt(t time.Time) (int64, time.Time) {
	iv := int64(d.cfg.Interval)
	since := t.UnixNano() - int64(d.stagger())
	r := since / iv
	if since < 0 && since%iv != 0 {
		r-- // floor, for a clock before 1970
	}
	return r, time.Unix(0, (r+1)*iv+int64(d.stagger()))
}

// clusterOf is the cluster every agent tests in round r.
func clusterOf(r int64, n int) int {
	l := int64(max(hiadsd.Levels(n), 1))
	return int((r%l+l)%l) + 1
}

// untilNextRound is how long to wait from now until the start of the next
// round: a round the last interval overran is skipped, not run late, since
// another tester covers it.
func (d *Daemon) untilNextRound() time.Duration {
	now := d.now()
	_, next := d.roundAt(now)
	return next.Sub(now)
}

// setRound points the core at the cluster of the round under way.
func (d *Daemon) setRound() {
	r, _ := d.roundAt(d.now())
	d.node.Next = clusterOf(r, d.node.Config.N)
}
