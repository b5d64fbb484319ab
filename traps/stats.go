package traps

import "sync/atomic"

// Stats is a snapshot of the notifier's counters since it was created.
type Stats struct {
	// Pending is the number of notifications queued, including one in flight.
	Pending int
	// Sent counts PDUs handed to the network, retries included.
	Sent uint64
	// Acknowledged counts informs the station answered.
	Acknowledged uint64
	// Retried counts attempts after the first one of an inform.
	Retried uint64
	// Failed counts attempts that got no acknowledgement or could not be sent.
	Failed uint64
	// Dropped counts notifications given up: pushed out of a full queue, with
	// no usable station, out of attempts, or still queued at the close deadline.
	Dropped uint64
	// Failovers counts stations marked down for leaving informs unanswered.
	Failovers uint64
}

// counters are the live values behind Stats.
type counters struct {
	sent, acknowledged, retried, failed, dropped, failovers atomic.Uint64
}

// snapshot copies the counters into a Stats with the given queue length.
func (c *counters) snapshot(pending int) Stats {
	return Stats{
		Pending:      pending,
		Sent:         c.sent.Load(),
		Acknowledged: c.acknowledged.Load(),
		Retried:      c.retried.Load(),
		Failed:       c.failed.Load(),
		Dropped:      c.dropped.Load(),
		Failovers:    c.failovers.Load(),
	}
}
