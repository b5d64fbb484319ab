package main

import (
	"strings"
	"testing"

	"github.com/diagagent/diagagent/agent/metrics/metricstest"
	"github.com/diagagent/diagagent/traps"
)

// TestNotifierMetrics: the notifier's collector carries what became of its
// notifications and how many wait.
func TestNotifierMetrics(t *testing.T) {
	n := notifierMetrics(func() traps.Stats { return traps.Stats{Pending: 2, Sent: 5, Dropped: 1} })
	want := `
# HELP diagagent_notifications_pending Notifications queued, one in flight included.
# TYPE diagagent_notifications_pending gauge
diagagent_notifications_pending 2
`
	if err := metricstest.CollectAndCompare(n, strings.NewReader(want), "diagagent_notifications_pending"); err != nil {
		t.Error(err)
	}
	want = `
# HELP diagagent_notifications_total Notifications to the station by what became of them: sent (PDUs, retries included), acknowledged, retried, failed (attempts), dropped (given up) and failover (a station passed over for the next fall-back after leaving informs unanswered).
# TYPE diagagent_notifications_total counter
diagagent_notifications_total{result="acknowledged"} 0
diagagent_notifications_total{result="dropped"} 1
diagagent_notifications_total{result="failed"} 0
diagagent_notifications_total{result="failover"} 0
diagagent_notifications_total{result="retried"} 0
diagagent_notifications_total{result="sent"} 5
`
	if err := metricstest.CollectAndCompare(n, strings.NewReader(want), "diagagent_notifications_total"); err != nil {
		t.Error(err)
	}
}
