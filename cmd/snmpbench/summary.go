//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"os"
)

// SummaryRow is the median of one cell for one server, as written by -json.
type SummaryRow struct {
	Server  string  `json:"server"`
	Op      Op      `json:"op"`
	Clients int     `json:"clients"`
	Rate    float64 `json:"req_per_s"`
	P50us   int64   `json:"p50_us"`
	P99us   int64   `json:"p99_us"`
	Errors  int     `json:"errors"`
	Bytes   int     `json:"reply_bytes"`
	// SrvCPUus and GenCPUus are CPU microseconds per reply of the server and the generator.
	SrvCPUus float64 `json:"server_cpu_us_per_reply"`
	GenCPUus float64 `json:"generator_cpu_us_per_reply"`
}

// Summarize lists the medians of every cell and server.
func Summarize(c CompareConfig, res *CompareResult) []SummaryRow {
	var out []SummaryRow
	for _, cell := range res.Cells {
		for _, s := range c.Servers {
			m := Median(res.Runs[s.Name][cell])
			out = append(out, SummaryRow{Server: s.Name, Op: cell.Op, Clients: cell.Clients, Rate: m.Rate,
				P50us: m.P50.Microseconds(), P99us: m.P99.Microseconds(), Errors: m.Errors, Bytes: m.Bytes,
				SrvCPUus: micros(m.ServerCPU), GenCPUus: micros(m.GenCPU)})
		}
	}
	return out
}

// writeJSON writes the summary to path.
func writeJSON(path string, rows []SummaryRow) error {
	b, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	return nil
}
