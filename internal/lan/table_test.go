//go:build linux

package lan

import (
	"strings"
	"testing"
	"time"
)

func TestTableBesideThePaper(t *testing.T) {
	rs := []Result{
		{Event: "fault at 16", Node: 16, Latency: 4 * time.Second, Paper: 575},
		{Event: "fault at 35", Node: 35, Latency: 8 * time.Second, Paper: 346},
	}
	got := Table(2*time.Second, []string{"vcube"}, [][]Result{rs})
	hasLines(t, "table", got,
		"| fault at 16 | 575 s = 14.4 rounds | 4.0 s = 2.0 rounds |",
		"| fault at 35 | 346 s = 8.7 rounds | 8.0 s = 4.0 rounds |",
		"| **average** | 460.5 s = 11.5 rounds | 6.0 s = 3.0 rounds |",
		"| **worst** | 575.0 s = 14.4 rounds | 8.0 s = 4.0 rounds |")
}

func TestPaperScheduleAverages(t *testing.T) {
	// Seed 002 averages ten events at 427.1 s: these eight plus node 6's
	// initial fault (198 s) and its partial recovery (562 s).
	sum, n := 198.0+562.0, 2
	for _, s := range PaperSchedule() {
		if len(s.Paper) != len(s.Freeze)+len(s.Thaw) {
			t.Fatalf("step %+v: one paper figure per node wanted", s)
		}
		for _, p := range s.Paper {
			sum, n = sum+p, n+1
		}
	}
	if avg := sum / float64(n); n != 10 || avg < 427.05 || avg > 427.15 {
		t.Fatalf("the paper's ten events average %.2f s over %d, want 427.1 s over 10", avg, n)
	}
}

func TestSoakTable(t *testing.T) {
	got := SoakTable([]string{"defaults"}, []SoakResult{{Loss: 5, Duration: time.Minute, Gets: 900,
		Dropped: 50, Suspicions: 3, Detections: 1, Notifications: 1, Settled: -1}})
	if !strings.Contains(got, "| 5% | defaults | 1m0s | 900 | 50 | 3 | 1 | 1 | not within the bound |") {
		t.Fatalf("soak table:\n%s", got)
	}
}

func TestRunScheduleRefusesUnknownNodes(t *testing.T) {
	c := &Cluster{Spec: Spec{Agents: 8}}
	if _, err := c.RunSchedule(PaperSchedule()); err == nil || !strings.Contains(err.Error(), "node 16") {
		t.Fatalf("RunSchedule on 8 agents: %v, want a refusal naming node 16", err)
	}
	bad := []Step{{Name: "fault", Freeze: []int{2}}}
	if _, err := c.RunSchedule(bad); err == nil || !strings.Contains(err.Error(), "paper figures") {
		t.Fatalf("RunSchedule without paper figures: %v", err)
	}
}

// hasLines fails t for each of want that the markdown got (named what) lacks.
func hasLines(t *testing.T, what, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, got)
		}
	}
}
