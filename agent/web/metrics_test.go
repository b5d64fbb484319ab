package web

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/agent/snmp"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/internal/version"
	"github.com/diagagent/diagagent/traps"
)

// scrape gets /metrics and parses it with Prometheus' own text parser.
func scrape(t *testing.T, s *Server) map[string]*dto.MetricFamily {
	t.Helper()
	res, body := get(t, s.Handler(), "GET", "/metrics")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %d", res.StatusCode)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("parse /metrics: %v\n%s", err, body)
	}
	return fams
}

// value returns the value of the sample of family name whose labels include want.
func value(t *testing.T, fams map[string]*dto.MetricFamily, name string, want ...string) float64 {
	t.Helper()
	f, ok := fams[name]
	if !ok {
		t.Fatalf("no metric %s", name)
	}
next:
	for _, m := range f.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for k := 0; k+1 < len(want); k += 2 {
			if have[want[k]] != want[k+1] {
				continue next
			}
		}
		switch f.GetType() {
		case dto.MetricType_COUNTER:
			return m.GetCounter().GetValue()
		case dto.MetricType_GAUGE:
			return m.GetGauge().GetValue()
		case dto.MetricType_HISTOGRAM:
			return float64(m.GetHistogram().GetSampleCount())
		}
	}
	t.Fatalf("no sample of %s with %v", name, want)
	return 0
}

func TestMetricsCarryTheFigures(t *testing.T) {
	st := snmp.Stats{InPkts: 40, OutPkts: 37, InGetRequests: 30, InGetBulks: 5, InSetRequests: 1,
		OutGetResponses: 36, InBadCommunityNames: 2, FaultDrops: 3, UnknownUserNames: 1, EngineBoots: snmp.LatchedBoots}
	tr := traps.Stats{Sent: 5, Acknowledged: 3, Retried: 1, Failed: 2, Dropped: 1, Pending: 1}
	s, _ := newTestServer(t, Options{SNMPStats: func() snmp.Stats { return st }, TrapStats: func() traps.Stats { return tr }})
	rep := hiadsd.Report{Units: 3, Fetches: []hiadsd.FetchResult{{From: 1, Received: 3}, {From: 2, Err: errors.New("timeout")},
		{From: 3, Skipped: true}}}
	probes := map[int]probe.Result{1: {Status: hiadsd.FaultFree, Duration: 2 * time.Millisecond, Wait: 50 * time.Millisecond},
		2: {Status: hiadsd.Partial, Duration: 800 * time.Millisecond, Wait: time.Second, Retested: true, Suspected: hiadsd.Partial},
		3: {Status: hiadsd.FaultFree, Duration: 3 * time.Millisecond, Wait: time.Second, Retested: true, Suspected: hiadsd.Faulty},
		4: {Status: hiadsd.Partial, Duration: 300 * time.Millisecond, Wait: 50 * time.Millisecond, Corroborated: true}}
	s.metrics.ObserveInterval(rep, probes, 900*time.Millisecond, 0)
	s.metrics.ObserveInterval(hiadsd.Report{}, nil, time.Millisecond, 2)
	fams := scrape(t, s)
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"diagagent_node_status", []string{"node", "3", "address", "127.0.0.3"}, 2},
		{"diagagent_node_status", []string{"node", "1", "name", "alpha"}, 0},
		{"diagagent_nodes", []string{"status", "partial"}, 1},
		{"diagagent_nodes", []string{"status", "fault-free"}, 3},
		{"diagagent_up", nil, 1},
		{"diagagent_last_event_seq", nil, 3},
		{"diagagent_tests_total", []string{"outcome", "fault-free"}, 2},
		{"diagagent_tests_total", []string{"outcome", "partial"}, 2},
		{"diagagent_tests_total", []string{"outcome", "faulty"}, 0},
		{"diagagent_test_duration_seconds", nil, 4},
		{"diagagent_entries_received_total", nil, 3},
		{"diagagent_fetches_total", []string{"result", "error"}, 1},
		{"diagagent_fetches_total", []string{"result", "skipped"}, 1},
		{"diagagent_fetches_total", []string{"result", "ok"}, 1},
		{"diagagent_retests_total", []string{"outcome", "refuted"}, 1},
		{"diagagent_retests_total", []string{"outcome", "confirmed"}, 1},
		{"diagagent_retests_total", []string{"outcome", "corroborated"}, 1},
		{"diagagent_test_wait_seconds", nil, 2},
		{"diagagent_intervals_total", nil, 2},
		{"diagagent_interval_duration_seconds", nil, 2},
		{"diagagent_notifications_total", []string{"result", "sent"}, 5},
		{"diagagent_notifications_total", []string{"result", "acknowledged"}, 3},
		{"diagagent_notifications_total", []string{"result", "dropped"}, 1},
		{"diagagent_notifications_pending", nil, 1},
		{"diagagent_snmp_packets_received_total", nil, 40},
		{"diagagent_snmp_responses_total", nil, 36},
		{"diagagent_snmp_requests_total", []string{"pdu", "getbulk"}, 5},
		{"diagagent_snmp_dropped_total", []string{"reason", "fault_injection"}, 3},
		{"diagagent_snmp_dropped_total", []string{"reason", "bad_community"}, 2},
		{"diagagent_snmp_dropped_total", []string{"reason", "unknown_user"}, 1},
		{"diagagent_snmp_engine_boots", nil, snmp.LatchedBoots},
		{"diagagent_events_unsaved", nil, 2},
	} {
		if got := value(t, fams, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	h := fams["diagagent_test_duration_seconds"].GetMetric()[0].GetHistogram()
	if sum := h.GetSampleSum(); sum < 1.104 || sum > 1.106 {
		t.Errorf("test duration sum %v s, want 1.105", sum)
	}
	if _, ok := fams["go_goroutines"]; !ok {
		t.Error("no Go runtime metrics")
	}
}

// TestMetricsWithoutStats leaves out what has no source.
func TestMetricsWithoutStats(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	fams := scrape(t, s)
	for _, name := range []string{"diagagent_snmp_dropped_total", "diagagent_notifications_total"} {
		if _, ok := fams[name]; ok {
			t.Errorf("%s served without a source", name)
		}
	}
	if value(t, fams, "diagagent_node_status", "node", "4") != 0 {
		t.Error("node 4 not fault-free")
	}
	b := version.Get()
	if value(t, fams, "diagagent_build_info", "version", b.Version, "revision", b.Revision, "goversion", b.GoVersion) != 1 {
		t.Error("diagagent_build_info does not name this build")
	}
}

func TestStatusNames(t *testing.T) {
	want := map[hiadsd.Status]string{hiadsd.FaultFree: "fault-free", hiadsd.Faulty: "faulty",
		hiadsd.Partial: "partial", hiadsd.Unknown: "unknown", hiadsd.Status(9): "unknown"}
	for s, w := range want {
		if got := s.String(); got != w {
			t.Errorf("%d.Name() = %q, want %q", s, got, w)
		}
	}
}
