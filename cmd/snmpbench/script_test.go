//go:build integration && linux

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchScriptQuick runs scripts/bench-snmp.sh -quick (1 s cells, one
// repetition, 2 clients) against real snmpd and our responder and checks the
// report and the JSON medians; it proves the script works, not a speed.
func TestBenchScriptQuick(t *testing.T) {
	dir := t.TempDir()
	report, summary := filepath.Join(dir, "bench.md"), filepath.Join(dir, "bench.json")
	cmd := exec.Command("bash", "../../scripts/bench-snmp.sh", "-quick", "-out", report, "--", "-clients", "2", "-json", summary)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("bench-snmp.sh: %v\n%s", err, out)
	}
	md, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| get | 2 |", "| getnext | 2 |", "| getbulk | 2 |", "| diagbulk | 2 |", "| snmpd |", "| ours |",
		"Generator ceiling", "echo-blocking", "CPU time per reply"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	var rows []SummaryRow
	b, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 8 {
		t.Fatalf("%d summary rows, want 4 ops x 2 servers", len(rows))
	}
	for _, r := range rows {
		if r.Rate <= 0 || r.Errors != 0 || r.P50us <= 0 || r.P99us < r.P50us || r.Bytes == 0 || r.GenCPUus <= 0 {
			t.Errorf("implausible cell %+v", r)
		}
	}
}
