package viewmetrics

import (
	"time"

	"github.com/diagagent/diagagent/agent/metrics"
	"github.com/diagagent/diagagent/hiadsd"
)

// Loop is what only the testing intervals tell: the reads of peers'
// diagnostic information, the entries they brought, the intervals and the
// events waiting for a save.
type Loop struct {
	entries   metrics.Counter
	fetches   *metrics.CounterVec
	intervals metrics.Counter
	// Unused counts answers made ahead that went unused (the core's Wasted).
	Unused metrics.Counter
	// Refused counts what peers sent with a counter past a correct
	// peer's (the core's Refused, and membership's).
	Refused metrics.Counter
	took    metrics.Histogram
	// Unsaved is the events waiting for state_dir.
	Unsaved metrics.Gauge
	seconds *metrics.CounterVec
	doubt   metrics.Gauge
	// Unreached is how many nodes the agent cannot reach while others do.
	Unreached metrics.Gauge
}

// NewLoop makes the interval metrics, every label value at 0.
func NewLoop() Loop {
	m := Loop{
		entries: metrics.NewCounter(metrics.CounterOpts{Name: "diagagent_entries_received_total",
			Help: "Diagnostic units (one node's entry) this agent took from the nodes it tested."}),
		fetches: metrics.NewCounterVec(metrics.CounterOpts{Name: "diagagent_fetches_total",
			Help: "Reads of a tested node's diagnostic information, by result (ok, error, skipped: its digest said nothing was new)."}, []string{"result"}),
		intervals: metrics.NewCounter(metrics.CounterOpts{Name: "diagagent_intervals_total",
			Help: "Testing intervals (this agent's share of a testing round) completed."}),
		Refused: metrics.NewCounter(metrics.CounterOpts{Name: "diagagent_counters_refused_total",
			Help: "Entries, stations and node lists read or pushed from peers whose counter led the one held further than a correct peer's can (hiadsd.MaxLead): not taken, not passed on."}),
		Unused: metrics.NewCounter(metrics.CounterOpts{Name: "diagagent_answers_unused_total",
			Help: "Tests and reads made ahead, on an expected verdict that the real answer then overturned, so their answers went unused."}),
		took: metrics.NewHistogram(metrics.HistogramOpts{Name: "diagagent_interval_duration_seconds",
			Help:    "Duration of one testing interval: tests, reads and recording.",
			Buckets: metrics.ExponentialBuckets(0.001, 2, 14)}),
		Unsaved: metrics.NewGauge(metrics.GaugeOpts{Name: "diagagent_events_unsaved",
			Help: "Events recorded but waiting for state_dir to take them; they are served and notified once saved."}),
		seconds: metrics.NewCounterVec(metrics.CounterOpts{Name: "diagagent_second_vantage_total",
			Help: "Faulty or partial verdicts of this agent's tests about nodes it held fault-free, by what the other agents it asked said (test.vantage): confirmed (believed), alone (no other agent to ask: believed), refuted (another reached the node: not believed), unheard (none answered: not believed), holding (a node held degraded, here or by an agent asked, silent for fewer intervals in a row than the hold: not believed yet)."}, []string{"result"}),
		doubt: metrics.NewGauge(metrics.GaugeOpts{Name: "diagagent_self_doubt",
			Help: "1 while this agent doubts its own tests (diagSelfDoubt): other agents refute its failures, or its requests to live nodes go unanswered; its link is the likely fault."}),
		Unreached: metrics.NewGauge(metrics.GaugeOpts{Name: "diagagent_unreached_nodes",
			Help: "Nodes this agent cannot reach while other agents reach them (diagUnreached): a firewall or ACL between them; they stay fault-free."}),
	}
	for _, r := range []string{"ok", "error", "skipped"} {
		m.fetches.WithLabelValues(r)
	}
	for _, s := range []hiadsd.Second{hiadsd.Confirmed, hiadsd.Alone, hiadsd.Refuted, hiadsd.Unheard, hiadsd.Holding} {
		m.seconds.WithLabelValues(s.String())
	}
	return m
}

// Observe counts one testing interval: the reads it made, the entries they
// brought, the answers it did not use, its duration and the events still waiting for a save.
func (m Loop) Observe(rep hiadsd.Report, took time.Duration, unsaved int) {
	for _, f := range rep.Fetches {
		switch {
		case f.Err != nil:
			m.fetches.WithLabelValues("error").Inc()
		case f.Skipped:
			m.fetches.WithLabelValues("skipped").Inc()
		default:
			m.fetches.WithLabelValues("ok").Inc()
		}
	}
	m.entries.Add(float64(rep.Units))
	m.intervals.Inc()
	m.Unused.Add(float64(rep.Wasted))
	m.took.Observe(took.Seconds())
	m.Unsaved.Set(float64(unsaved))
	for _, t := range rep.Tests {
		if t.Second != hiadsd.SecondNone {
			m.seconds.WithLabelValues(t.Second.String()).Inc()
		}
	}
	doubt := 0.0
	if rep.Doubt.Doubting {
		doubt = 1
	}
	m.doubt.Set(doubt)
}

// Collectors are the interval metrics.
func (m *Loop) Collectors() []metrics.Collector {
	return []metrics.Collector{m.entries, m.fetches, m.intervals, m.Unused, m.Refused, m.took, m.Unsaved,
		m.seconds, m.doubt, m.Unreached}
}
