package web

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/internal/version"
	"github.com/diagagent/diagagent/mib"
)

// Metrics holds what only the testing intervals tell (tests, their
// durations, entries received, intervals) and the registry /metrics serves.
type Metrics struct {
	reg       *prometheus.Registry
	tests     *prometheus.CounterVec
	testTime  prometheus.Histogram
	entries   prometheus.Counter
	fetches   *prometheus.CounterVec
	retests   *prometheus.CounterVec
	wait      prometheus.Histogram
	intervals prometheus.Counter
	took      prometheus.Histogram
	unsaved   prometheus.Gauge
}

// NewMetrics makes the interval metrics and a registry with them and the Go
// runtime and process collectors.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		tests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "diagagent_tests_total",
			Help: "Tests of peers this agent made, by outcome (fault-free, faulty, partial, unknown)."}, []string{"outcome"}),
		testTime: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "diagagent_test_duration_seconds",
			Help:    "Duration of one test of a peer: SNMP GET, then ICMP echo when needed.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14)}),
		entries: prometheus.NewCounter(prometheus.CounterOpts{Name: "diagagent_entries_received_total",
			Help: "Diagnostic units (one node's entry) this agent took from the nodes it tested."}),
		fetches: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "diagagent_fetches_total",
			Help: "Reads of a tested node's diagnostic information, by result (ok, error, skipped: its digest said nothing was new)."}, []string{"result"}),
		retests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "diagagent_retests_total",
			Help: "Faulty or partial first verdicts tested again at once before being announced, by outcome (refuted: the peer answered the re-test; confirmed; corroborated: cut short by a peer's pushed verdict, the same)."}, []string{"outcome"}),
		wait: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "diagagent_test_wait_seconds",
			Help:    "Wait for each SNMP reply of a test: the peer's SRTT + 4·RTTVAR within test.timeout_min and test.timeout.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 12)}),
		intervals: prometheus.NewCounter(prometheus.CounterOpts{Name: "diagagent_intervals_total",
			Help: "Testing intervals (this agent's share of a testing round) completed."}),
		took: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "diagagent_interval_duration_seconds",
			Help:    "Duration of one testing interval: tests, reads and recording.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 14)}),
		unsaved: prometheus.NewGauge(prometheus.GaugeOpts{Name: "diagagent_events_unsaved",
			Help: "Events recorded but waiting for state_dir to take them; they are served and notified once saved."}),
	}
	for _, s := range mib.DiagStatuses() {
		m.tests.WithLabelValues(s.String())
	}
	m.fetches.WithLabelValues("ok")
	m.fetches.WithLabelValues("error")
	m.fetches.WithLabelValues("skipped")
	m.retests.WithLabelValues("refuted")
	m.retests.WithLabelValues("confirmed")
	m.retests.WithLabelValues("corroborated")
	b := version.Get()
	build := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "diagagent_build_info",
		Help: "Always 1; its labels name the build running (version, VCS revision, Go version)."},
		[]string{"version", "revision", "goversion"})
	build.WithLabelValues(b.Version, b.Revision, b.GoVersion).Set(1)
	m.reg.MustRegister(m.tests, m.testTime, m.entries, m.fetches, m.retests, m.wait, m.intervals, m.took, m.unsaved, build,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Registry is where /metrics gathers from; tests and embedders may add to it.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// ObserveInterval counts one testing interval: its tests with their
// outcomes and durations, the reads of diagnostic information, the entries
// they brought and the events still waiting for a save.
func (m *Metrics) ObserveInterval(rep hiadsd.Report, probes map[int]probe.Result, took time.Duration, unsaved int) {
	m.unsaved.Set(float64(unsaved))
	for _, p := range probes {
		m.tests.WithLabelValues(p.Status.String()).Inc()
		m.testTime.Observe(p.Duration.Seconds())
		if p.Wait > 0 && !p.Retested {
			m.wait.Observe(p.Wait.Seconds())
		}
		switch {
		case p.Corroborated:
			m.retests.WithLabelValues("corroborated").Inc()
		case !p.Retested:
		case p.Status == hiadsd.FaultFree:
			m.retests.WithLabelValues("refuted").Inc()
		default:
			m.retests.WithLabelValues("confirmed").Inc()
		}
	}
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
	m.took.Observe(took.Seconds())
}
