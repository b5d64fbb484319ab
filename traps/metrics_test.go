package traps

import (
	"strings"
	"testing"

	"github.com/diagagent/diagagent/agent/metrics/metricstest"
)

// TestMetrics: the notifier's collector carries what became of its
// notifications and how many wait.
func TestMetrics(t *testing.T) {
	n := fillingQueue(t, 4)
	want := `
# HELP diagagent_notifications_pending Notifications queued, one in flight included.
# TYPE diagagent_notifications_pending gauge
diagagent_notifications_pending 2
`
	if err := metricstest.CollectAndCompare(n, strings.NewReader(want), "diagagent_notifications_pending"); err != nil {
		t.Error(err)
	}
	if c := metricstest.CollectAndCount(n, "diagagent_notifications_total"); c != 6 {
		t.Errorf("%d notification results, want 6", c)
	}
}
