package main

import (
	"github.com/diagagent/diagagent/agent/metrics"
	"github.com/diagagent/diagagent/traps"
)

// The notifier's metrics, read from its counters at scrape time.
var (
	descNotifications = metrics.NewDesc("diagagent_notifications_total",
		"Notifications to the station by what became of them: sent (PDUs, retries included), "+
			"acknowledged, retried, failed (attempts), dropped (given up) and failover (a station passed over "+
			"for the next fall-back after leaving informs unanswered).", []string{"result"}, nil)
	descPending = metrics.NewDesc("diagagent_notifications_pending",
		"Notifications queued, one in flight included.", nil, nil)
)

// notifierMetrics is the notifier's collector: its counters (traps.Stats)
// as metrics, read at scrape time.
type notifierMetrics func() traps.Stats

// Describe sends the descriptions of the notifier's metrics
// (metrics.Collector).
func (notifierMetrics) Describe(ch chan<- *metrics.Desc) {
	ch <- descNotifications
	ch <- descPending
}

// Collect sends the notifier's counters (metrics.Collector).
func (stats notifierMetrics) Collect(ch chan<- metrics.Metric) {
	t := stats()
	for _, v := range []struct {
		result string
		n      uint64
	}{{"sent", t.Sent}, {"acknowledged", t.Acknowledged}, {"retried", t.Retried}, {"failed", t.Failed}, {"dropped", t.Dropped}, {"failover", t.Failovers}} {
		ch <- metrics.MustNewConstMetric(descNotifications, metrics.CounterValue, float64(v.n), v.result)
	}
	ch <- metrics.MustNewConstMetric(descPending, metrics.GaugeValue, float64(t.Pending))
}
