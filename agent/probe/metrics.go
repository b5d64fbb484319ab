package probe

import (
	"github.com/diagagent/diagagent/agent/metrics"

	"github.com/diagagent/diagagent/mib"
)

// metrics are the prober's: every test it finishes, its duration, its
// round-trip wait and its re-test.
type probeMetrics struct {
	tests    *metrics.CounterVec
	testTime metrics.Histogram
	wait     metrics.Histogram
	retests  *metrics.CounterVec
	// keyFallbacks counts peers that refused a cluster key and were spoken
	// to with the next one (Prober.open).
	keyFallbacks metrics.Counter
	// engineReports counts the GETs asked again after a report of a
	// peer's new engine (snmpStep).
	engineReports metrics.Counter
	// rediscoveries counts peers whose engine was discovered again after
	// an answer that did not authenticate (Prober.open).
	rediscoveries metrics.Counter
}

// newMetrics makes the prober's metrics, every label value at 0.
func newMetrics() probeMetrics {
	m := probeMetrics{
		tests: metrics.NewCounterVec(metrics.CounterOpts{Name: "diagagent_tests_total",
			Help: "Tests of peers this agent made, by outcome (fault-free, faulty, partial, unknown)."}, []string{"outcome"}),
		testTime: metrics.NewHistogram(metrics.HistogramOpts{Name: "diagagent_test_duration_seconds",
			Help:    "Duration of one test of a peer: SNMP GET, then ICMP echo when needed.",
			Buckets: metrics.ExponentialBuckets(0.0005, 2, 14)}),
		wait: metrics.NewHistogram(metrics.HistogramOpts{Name: "diagagent_test_wait_seconds",
			Help:    "Wait for each SNMP reply of a test: the peer's SRTT + 4·RTTVAR within test.timeout_min and test.timeout.",
			Buckets: metrics.ExponentialBuckets(0.001, 2, 12)}),
		retests: metrics.NewCounterVec(metrics.CounterOpts{Name: "diagagent_retests_total",
			Help: "Faulty or partial first verdicts tested again at once before being announced, by outcome (refuted: the peer answered the re-test; confirmed; corroborated: cut short by a peer's pushed verdict, the same)."}, []string{"outcome"}),
		keyFallbacks: metrics.NewCounter(metrics.CounterOpts{Name: "diagagent_key_fallbacks_total",
			Help: "Exchanges with a peer that refused the cluster key spoken first (it holds another: a rotation is under way or missed), tried again with the keyring's next key."}),
		engineReports: metrics.NewCounter(metrics.CounterOpts{Name: "diagagent_engine_reports_total",
			Help: "Test GETs asked again because the peer answered with a report of its new SNMPv3 engine (notInTimeWindow after a restart, unknownEngineID after a reinstall)."}),
		rediscoveries: metrics.NewCounter(metrics.CounterOpts{Name: "diagagent_engine_rediscoveries_total",
			Help: "Exchanges with a peer whose answer did not authenticate against the engine last known, tried again after discovering its engine anew (a reinstalled peer has a new engine ID)."}),
	}
	for _, s := range mib.DiagStatuses() {
		m.tests.WithLabelValues(s.String())
	}
	for _, o := range []string{"refuted", "confirmed", "corroborated"} {
		m.retests.WithLabelValues(o)
	}
	return m
}

// observe counts one finished test.
func (m probeMetrics) observe(r Result) {
	m.tests.WithLabelValues(r.Status.String()).Inc()
	m.testTime.Observe(r.Duration.Seconds())
	if r.Wait > 0 && !r.Retested {
		m.wait.Observe(r.Wait.Seconds())
	}
	switch {
	case r.Corroborated:
		m.retests.WithLabelValues("corroborated").Inc()
	case !r.Retested:
	case r.Status.Up():
		m.retests.WithLabelValues("refuted").Inc()
	default:
		m.retests.WithLabelValues("confirmed").Inc()
	}
}

// Describe sends the descriptions of the prober's metrics (metrics.Collector).
func (p *Prober) Describe(ch chan<- *metrics.Desc) {
	p.met.tests.Describe(ch)
	p.met.testTime.Describe(ch)
	p.met.wait.Describe(ch)
	p.met.retests.Describe(ch)
	p.met.keyFallbacks.Describe(ch)
	p.met.engineReports.Describe(ch)
	p.met.rediscoveries.Describe(ch)
}

// Collect sends the prober's metrics (metrics.Collector).
func (p *Prober) Collect(ch chan<- metrics.Metric) {
	p.met.tests.Collect(ch)
	p.met.testTime.Collect(ch)
	p.met.wait.Collect(ch)
	p.met.retests.Collect(ch)
	p.met.keyFallbacks.Collect(ch)
	p.met.engineReports.Collect(ch)
	p.met.rediscoveries.Collect(ch)
}
