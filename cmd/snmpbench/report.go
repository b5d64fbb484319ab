//go:build linux

package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"
)

// ReportInfo is the context printed above the tables.
type ReportInfo struct {
	Command string    // the exact command that produced the run
	Notes   []string  // extra lines (server versions, snapshot size)
	When    time.Time // start of the run
	Config  CompareConfig
}

// WriteReport prints the run as markdown: machine, command, tables.
func WriteReport(w io.Writer, info ReportInfo, res *CompareResult) {
	c := info.Config
	fmt.Fprintf(w, "# SNMP responder benchmark\n\n")
	fmt.Fprintf(w, "- date: %s\n", info.When.UTC().Format(time.RFC3339))
	fmt.Fprintf(w, "- machine: nproc %d, %s, Linux %s, %s\n", runtime.NumCPU(), cpuModel(),
		kernelRelease(), runtime.Version())
	fmt.Fprintf(w, "- command: `%s`\n", info.Command)
	fmt.Fprintf(w, "- cells: %s warm-up + %s measured, %d repetition(s), medians shown; "+
		"servers interleaved (order flipped every repetition); closed loop, one UDP socket per client, "+
		"timeout %s counts as an error\n", c.Warmup, c.Duration, c.Reps, c.Timeout)
	for _, n := range info.Notes {
		fmt.Fprintf(w, "- %s\n", n)
	}
	fmt.Fprintln(w)
	writeRequests(w, c, res)
	writeGrid(w, c, res)
	writeCPU(w, c, res)
	writeMemory(w, c, res)
	writeCeiling(w, c, res)
	writeMethod(w)
}

// writeMethod explains how the figures were taken and how to read them.
func writeMethod(w io.Writer) {
	fmt.Fprint(w, `## Method

- Every client is a goroutine with its own connected UDP socket that sends one request, waits for the
  matching reply (request-id checked, error-status must be 0) and only then sends the next (closed loop).
  Requests are encoded once with gosnmp and only the 4-byte request-id is patched per request.
- Before the cells, each request is sent once through gosnmp and every varbind of the reply is checked
  to hold a value (no noSuchObject, noSuchInstance or endOfMibView), so both servers do real lookups.
- Cells run server after server (A B, then B A in the next repetition) so slow drifts of the shared
  machine hit both; each figure is the median over the repetitions.
- req/s counts replies in the measured window; p50/p99 are over every reply of the window.
- The generator ceiling runs the same generator against two trivial UDP echo servers in Go (in
  snmpbench): "echo-netpoll" reads with net.UDPConn from 2 goroutines (Go's network poller, like the
  responder), "echo-blocking" reads with blocking recvfrom on one locked OS thread. They show how far
  the generator goes with no SNMP work at all, and the latency tail each way of reading costs a Go
  server on this machine.
- RSS is read from /proc/PID/status before the first cell (idle) and after the last.
`)
}

// writeRequests lists what each operation asked and what each server answered.
func writeRequests(w io.Writer, c CompareConfig, res *CompareResult) {
	fmt.Fprintf(w, "## Requests\n\n| op | request | server | varbinds | first varbind |\n|---|---|---|---|---|\n")
	for _, op := range c.Ops {
		req := c.OIDs[op]
		if op.bulk() {
			req = fmt.Sprintf("%s (non-repeaters 0, max-repetitions %d)", req, c.MaxRep)
		}
		for _, s := range c.Servers {
			chk := res.Checks[s.Name][op]
			fmt.Fprintf(w, "| %s | %s | %s | %d | `%s` |\n", op, req, s.Name, chk.Varbinds, trim(chk.First, 60))
		}
	}
	fmt.Fprintln(w)
}

// grid is one table of the report: a row per cell, with the columns of
// each server (its median run of the cell), then, for each server after
// the first, its ratios to the first.
type grid struct {
	title                string
	serverHead, ratioSep string // the header of a server's columns (%[1]s is its name), the separator of a ratio's
	serverSep, ratioHead string // the separator of a server's columns, the header of its ratios (%[1]s it, %[2]s the first)
	server               func(m LoadResult) string
	ratio                func(m, base LoadResult) string
}

// write prints the table of g for res.
func (g grid) write(w io.Writer, c CompareConfig, res *CompareResult) {
	head, sep := "| op | clients |", "|---|---:|"
	for _, s := range c.Servers {
		head += fmt.Sprintf(g.serverHead, s.Name)
		sep += g.serverSep
	}
	base := c.Servers[0].Name
	for _, s := range c.Servers[1:] {
		head += fmt.Sprintf(g.ratioHead, s.Name, base)
		sep += g.ratioSep
	}
	fmt.Fprintf(w, "## %s\n\n%s\n%s\n", g.title, head, sep)
	for _, cell := range res.Cells {
		row := fmt.Sprintf("| %s | %d |", cell.Op, cell.Clients)
		for _, s := range c.Servers {
			row += g.server(Median(res.Runs[s.Name][cell]))
		}
		b := Median(res.Runs[base][cell])
		for _, s := range c.Servers[1:] {
			row += g.ratio(Median(res.Runs[s.Name][cell]), b)
		}
		fmt.Fprintln(w, row)
	}
	fmt.Fprintln(w)
}

// writeGrid prints one row per cell with every server's medians and ratios.
func writeGrid(w io.Writer, c CompareConfig, res *CompareResult) {
	grid{
		title:      "Throughput and latency (medians)",
		serverHead: " %[1]s req/s | %[1]s p50 µs | %[1]s p99 µs | %[1]s errors | %[1]s reply B |", serverSep: "---:|---:|---:|---:|---:|",
		ratioHead: " req/s %[1]s/%[2]s | p99 %[1]s/%[2]s |", ratioSep: "---:|---:|",
		server: func(m LoadResult) string {
			return fmt.Sprintf(" %.0f | %d | %d | %d | %d |", m.Rate, m.P50.Microseconds(), m.P99.Microseconds(), m.Errors, m.Bytes)
		},
		ratio: func(m, b LoadResult) string {
			return fmt.Sprintf(" %s | %s |", ratio(m.Rate, b.Rate), ratio(float64(m.P99), float64(b.P99)))
		},
	}.write(w, c, res)
}

// writeCPU prints the CPU time each server and the generator spent per reply.
func writeCPU(w io.Writer, c CompareConfig, res *CompareResult) {
	grid{
		title:      "CPU time per reply (medians; /proc/PID/stat for servers, getrusage for the generator)",
		serverHead: " %[1]s µs/reply | generator µs/reply (vs %[1]s) |", serverSep: "---:|---:|",
		ratioHead: " %s/%s |", ratioSep: "---:|",
		server: func(m LoadResult) string { return fmt.Sprintf(" %.1f | %.1f |", micros(m.ServerCPU), micros(m.GenCPU)) },
		ratio: func(m, b LoadResult) string {
			return fmt.Sprintf(" %s |", ratio(float64(m.ServerCPU), float64(b.ServerCPU)))
		},
	}.write(w, c, res)
}

// micros converts d to fractional microseconds.
func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// writeMemory prints VmRSS/VmHWM before and after the load.
func writeMemory(w io.Writer, c CompareConfig, res *CompareResult) {
	fmt.Fprintf(w, "## Memory (/proc/PID/status)\n\n| server | VmRSS idle KiB | VmRSS after KiB | VmHWM after KiB |\n|---|---:|---:|---:|\n")
	for _, s := range c.Servers {
		idle, after := res.Idle[s.Name], res.After[s.Name]
		fmt.Fprintf(w, "| %s | %d | %d | %d |\n", s.Name, idle.RSSKiB, after.RSSKiB, after.HWMKiB)
	}
	fmt.Fprintln(w)
}

// writeCeiling prints the generator's figures against the echo servers.
func writeCeiling(w io.Writer, c CompareConfig, res *CompareResult) {
	if len(c.Ceilings) == 0 {
		return
	}
	fmt.Fprintf(w, "## Generator ceiling (GET against UDP echo servers, no SNMP work)\n\n")
	fmt.Fprintf(w, "| echo server | clients | req/s | p50 µs | p99 µs |\n|---|---:|---:|---:|---:|\n")
	for _, e := range c.Ceilings {
		for _, n := range c.Clients {
			r := res.Ceiling[e.Name][n]
			fmt.Fprintf(w, "| %s | %d | %.0f | %d | %d |\n", e.Name, n, r.Rate, r.P50.Microseconds(), r.P99.Microseconds())
		}
	}
	fmt.Fprintln(w)
}

// ratio formats a/b with two decimals, or "n/a" when b is zero.
func ratio(a, b float64) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", a/b)
}

// trim shortens s to at most n bytes for a table cell.
func trim(s string, n int) string {
	s = strings.ReplaceAll(s, "|", "/")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// cpuModel returns the first "model name" of /proc/cpuinfo.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "cpu unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "cpu unknown"
}

// kernelRelease returns the running kernel's release string.
func kernelRelease() string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}
