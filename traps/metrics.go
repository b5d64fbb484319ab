package traps

import "github.com/prometheus/client_golang/prometheus"

// The notifier's metrics, read from its counters at scrape time.
var (
	descNotifications = prometheus.NewDesc("diagagent_notifications_total",
		"Notifications to the station by what became of them: sent (PDUs, retries included), "+
			"acknowledged, retried, failed (attempts), dropped (given up) and failover (a station passed over "+
			"for the next fall-back after leaving informs unanswered).", []string{"result"}, nil)
	descPending = prometheus.NewDesc("diagagent_notifications_pending",
		"Notifications queued, one in flight included.", nil, nil)
)

// Describe sends the descriptions of the notifier's metrics
// (prometheus.Collector).
func (n *Notifier) Describe(ch chan<- *prometheus.Desc) {
	ch <- descNotifications
	ch <- descPending
}

// Collect sends the notifier's counters (prometheus.Collector).
func (n *Notifier) Collect(ch chan<- prometheus.Metric) {
	t := n.Stats()
	for _, v := range []struct {
		result string
		n      uint64
	}{{"sent", t.Sent}, {"acknowledged", t.Acknowledged}, {"retried", t.Retried}, {"failed", t.Failed}, {"dropped", t.Dropped}, {"failover", t.Failovers}} {
		ch <- prometheus.MustNewConstMetric(descNotifications, prometheus.CounterValue, float64(v.n), v.result)
	}
	ch <- prometheus.MustNewConstMetric(descPending, prometheus.GaugeValue, float64(t.Pending))
}
