//go:build linux

package main

import (
	"bytes"
	"os"
	"testing"
	"time"
)

// TestReportTables: the throughput and CPU tables of a run of two servers
// over two cells, as make compare writes them (testdata/grid.md).
func TestReportTables(t *testing.T) {
	c := CompareConfig{Servers: []Server{{Name: "snmpd"}, {Name: "diagagent"}}}
	cells := []Cell{{Op: OpGet, Clients: 1}, {Op: OpGetBulk, Clients: 4}}
	res := &CompareResult{Cells: cells, Runs: map[string]map[Cell][]LoadResult{}}
	for i, s := range c.Servers {
		res.Runs[s.Name] = map[Cell][]LoadResult{}
		for j, cell := range cells {
			f := time.Duration(1 + i + 2*j)
			res.Runs[s.Name][cell] = []LoadResult{{Rate: 1000 * float64(f), P50: 40 * f * time.Microsecond, P99: 90 * f * time.Microsecond,
				Errors: i, Bytes: 100 + 10*j, ServerCPU: 12 * f * time.Microsecond, GenCPU: 7 * f * time.Microsecond}}
		}
	}
	var got bytes.Buffer
	writeGrid(&got, c, res)
	writeCPU(&got, c, res)
	want, err := os.ReadFile("testdata/grid.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("the tables:\n%s\nwant (testdata/grid.md):\n%s", got.Bytes(), want)
	}
}
