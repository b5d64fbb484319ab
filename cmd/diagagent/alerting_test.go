//go:build integration && linux

package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
)

const (
	rulesFile     = "../../configs/prometheus/diagagent-rules.yml"
	rulesTestFile = "../../configs/prometheus/diagagent-rules.test.yml"
	dashboardFile = "../../configs/grafana/diagagent-dashboard.json"
)

// promtool runs Prometheus' promtool (Debian's prometheus package) and
// fails the test with its output if it fails.
func promtool(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("promtool", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestAlertRules checks the alerting rules with promtool and runs their
// unit tests: a crashed node, one cut-off agent that must not raise an
// alert alone, two nodes down together (one alert for the group), a partial node, a flapping node (its own alert, not partial's), a stalled loop, a lost AgentX session,
// dropped notifications and an unwritable state_dir.
func TestAlertRules(t *testing.T) {
	if out := promtool(t, ".", "check", "rules", rulesFile); !strings.Contains(out, "SUCCESS: 10 rules found") {
		t.Errorf("promtool check rules: %s", out)
	}
	if out := promtool(t, filepath.Dir(rulesTestFile), "test", "rules", filepath.Base(rulesTestFile)); !strings.Contains(out, "SUCCESS") {
		t.Errorf("promtool test rules: %s", out)
	}
}

// dashboardExprs returns every PromQL expression of the Grafana dashboard.
func dashboardExprs(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	var exprs []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if e, ok := v["expr"].(string); ok {
				exprs = append(exprs, e)
			}
			for _, c := range v {
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	walk(doc)
	return exprs
}

// TestDashboardQueriesParse hands every dashboard expression to promtool
// as a recording rule, with Grafana's variables replaced by values, so a
// query Prometheus cannot parse fails here rather than on a screen.
func TestDashboardQueriesParse(t *testing.T) {
	exprs := dashboardExprs(t)
	if len(exprs) < 10 {
		t.Fatalf("the dashboard has %d expressions, want its 10 panels' at least", len(exprs))
	}
	var b strings.Builder
	b.WriteString("groups:\n  - name: dashboard\n    rules:\n")
	vars := strings.NewReplacer("$__rate_interval", "1m", "$instance", "a1:8161")
	for k, e := range exprs {
		q, _ := json.Marshal(vars.Replace(e)) // a JSON string is a YAML string
		fmt.Fprintf(&b, "      - record: dashboard_%d\n        expr: %s\n", k, q)
	}
	path := filepath.Join(t.TempDir(), "dashboard-rules.yml")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	promtool(t, ".", "check", "rules", path)
}

// exported are the metric names an agent serves on /metrics, with the
// _bucket, _sum and _count series of its histograms.
func exported(fams map[string]*dto.MetricFamily) map[string]bool {
	names := map[string]bool{}
	for name, f := range fams {
		names[name] = true
		if f.GetType() == dto.MetricType_HISTOGRAM {
			for _, s := range []string{"_bucket", "_sum", "_count"} {
				names[name+s] = true
			}
		}
	}
	return names
}

// seriesWhenDown are the metrics that have a series only while nodes are
// down together, which this test's healthy agent never has;
// TestMockNetCauses reads them from an agent that groups a cut.
var seriesWhenDown = map[string]bool{"diagagent_cause_nodes": true}

// TestRulesAndDashboardUseExportedMetrics scrapes a running agent (in
// AgentX mode, which exports every metric the standalone agent does and
// those of its AgentX session), has promtool lint what it serves, and checks that every
// diagagent_ metric the rules and the dashboard name is one it exports, so
// a renamed metric cannot leave an alert that never fires.
func TestRulesAndDashboardUseExportedMetrics(t *testing.T) {
	c := newCluster(t, clusterSpec{algo: "vcube", agents: 2, station: "127.0.0.100:162", web: true, agentx: true})
	c.start(0)
	c.waitFor("agent 1 serves /metrics", 10*time.Second, func() bool { return httpOK(c.webURL(0) + "metrics") })
	names := exported(scrapeAgent(t, c.webURL(0)))
	res, err := http.Get(c.webURL(0) + "metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	lint := exec.Command("promtool", "check", "metrics")
	lint.Stdin = res.Body
	if out, err := lint.CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
	rules, err := os.ReadFile(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	metric := regexp.MustCompile(`\bdiagagent_[a-z0-9_]+`)
	for what, text := range map[string]string{"rules": string(rules), "dashboard": strings.Join(dashboardExprs(t), "\n")} {
		used := slices.Compact(slices.Sorted(slices.Values(metric.FindAllString(text, -1))))
		if len(used) < 4 {
			t.Fatalf("the %s name %d metrics: %v", what, len(used), used)
		}
		for _, m := range used {
			if !names[m] && !seriesWhenDown[m] {
				t.Errorf("the %s use %s, which the agent does not export", what, m)
			}
		}
		t.Logf("the %s use %d metrics, all exported: %v", what, len(used), used)
	}
}
