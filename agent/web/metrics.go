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
			Help: "Reads of a tested node's diagnostic information, by result (ok, error)."}, []string{"result"}),
		intervals: prometheus.NewCounter(prometheus.CounterOpts{Name: "diagagent_intervals_total",
			Help: "Testing intervals (this agent's share of a testing round) completed."}),
		took: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "diagagent_interval_duration_seconds",
			Help:    "Duration of one testing interval: tests, reads and recording.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 14)}),
		unsaved: prometheus.NewGauge(prometheus.GaugeOpts{Name: "diagagent_events_unsaved",
			Help: "Events recorded but waiting for state_dir to take them; they are served and notified once saved."}),
	}
	for s := mib.StatusFaultFree; s.Valid(); s++ {
		m.tests.WithLabelValues(s.Name())
	}
	m.fetches.WithLabelValues("ok")
	m.fetches.WithLabelValues("error")
	b := version.Get()
	build := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "diagagent_build_info",
		Help: "Always 1; its labels name the build running (version, VCS revision, Go version)."},
		[]string{"version", "revision", "goversion"})
	build.WithLabelValues(b.Version, b.Revision, b.GoVersion).Set(1)
	m.reg.MustRegister(m.tests, m.testTime, m.entries, m.fetches, m.intervals, m.took, m.unsaved, build,
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
		m.tests.WithLabelValues(p.Status.Name()).Inc()
		m.testTime.Observe(p.Duration.Seconds())
	}
	for _, f := range rep.Fetches {
		if f.Err != nil {
			m.fetches.WithLabelValues("error").Inc()
		} else {
			m.fetches.WithLabelValues("ok").Inc()
		}
	}
	m.entries.Add(float64(rep.Units))
	m.intervals.Inc()
	m.took.Observe(took.Seconds())
}
