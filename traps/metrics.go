package traps

import "github.com/diagagent/diagagent/agent/metrics"

// The notifier's metrics, read from its counters at scrape time.
var (
	descNotifications = metrics.NewDesc("diagagent_notifications_total",
		"Notifications to the station by what became of them: sent (PDUs, retries included), "+
			"acknowledged, retried, failed (attempts), dropped (given up) and failover (a station passed over "+
			"for the next fall-back after leaving informs unanswered).", []string{"result"}, nil)
	descPending = metrics.NewDesc("diagagent_notifications_pending",
		"Notifications queued, one in flight included.", nil, nil)
)

// Describe sends the descriptions of the notifier's metrics
// (metrics.Collector).
func (n *Notifier) Describe(ch chan<- *metrics.Desc) {
	ch <- descNotifications
	ch <- descPending
}

// Collect sends the notifier's counters (metrics.Collector).
func (n *Notifier) Collect(ch chan<- metrics.Metric) {
	t := n.Stats()
	for _, v := range []struct {
		result string
		n      uint64
	}{{"sent", t.Sent}, {"acknowledged", t.Acknowledged}, {"retried", t.Retried}, {"failed", t.Failed}, {"dropped", t.Dropped}, {"failover", t.Failovers}} {
		ch <- metrics.MustNewConstMetric(descNotifications, metrics.CounterValue, float64(v.n), v.result)
	}
	ch <- metrics.MustNewConstMetric(descPending, metrics.GaugeValue, float64(t.Pending))
}
