//go:build linux

package main

import (
	"context"
	"fmt"
	"sort"
	"time"
)

// Server is one responder under test.
type Server struct {
	Name string // label in the report
	Addr string // host:port
	PID  int    // process to read memory from; 0 when unknown
}

// Cell is one (operation, clients) combination of the grid.
type Cell struct {
	Op      Op
	Clients int
}

// CompareConfig is the whole side-by-side run.
type CompareConfig struct {
	Servers  []Server      // baseline first; ratios are later servers over the first
	Ops      []Op          // operations to measure
	Clients  []int         // client counts to measure
	OIDs     map[Op]string // request OID per operation, the same for every server
	MaxRep   uint32        // GETBULK max-repetitions
	Reps     int           // repetitions per cell; medians are reported
	Warmup   time.Duration // unrecorded traffic before each cell
	Duration time.Duration // measured window per cell
	Timeout  time.Duration // per-request timeout
	Ceilings []Server      // echo servers for the generator ceiling; none to skip
}

// CompareResult holds every measurement of a run.
type CompareResult struct {
	Cells   []Cell
	Runs    map[string]map[Cell][]LoadResult // server -> cell -> one result per rep
	Checks  map[string]map[Op]Check          // what each server answered
	Idle    map[string]Memory                // memory before the load
	After   map[string]Memory                // memory after the load
	Ceiling map[string]map[int]LoadResult    // echo server -> clients -> generator figures
}

// loadConfig builds the load of one cell against one server.
func (c CompareConfig) loadConfig(s Server, cell Cell) LoadConfig {
	return LoadConfig{Target: s.Addr, Op: cell.Op, OID: c.OIDs[cell.Op], MaxRep: c.MaxRep,
		Community: "public", Clients: cell.Clients, Warmup: c.Warmup,
		Duration: c.Duration, Timeout: c.Timeout}
}

// cells lists the grid in a fixed order.
func (c CompareConfig) cells() []Cell {
	var out []Cell
	for _, op := range c.Ops {
		for _, n := range c.Clients {
			out = append(out, Cell{Op: op, Clients: n})
		}
	}
	return out
}

// Compare checks every server answers each request, then runs the grid,
// alternating which server goes first from one repetition to the next.
func Compare(ctx context.Context, c CompareConfig) (*CompareResult, error) {
	res := &CompareResult{Cells: c.cells(), Runs: map[string]map[Cell][]LoadResult{},
		Checks: map[string]map[Op]Check{}, Idle: map[string]Memory{}, After: map[string]Memory{}}
	if err := c.checkAll(res); err != nil {
		return nil, err
	}
	readMemory(c.Servers, res.Idle)
	for rep := range c.Reps {
		order := c.Servers
		if rep%2 == 1 {
			order = reversed(c.Servers)
		}
		for _, cell := range res.Cells {
			for _, s := range order {
				r, err := measuredLoad(ctx, c.loadConfig(s, cell), s.PID)
				if err != nil {
					return nil, fmt.Errorf("%s %s x%d: %w", s.Name, cell.Op, cell.Clients, err)
				}
				res.Runs[s.Name][cell] = append(res.Runs[s.Name][cell], r)
			}
		}
	}
	readMemory(c.Servers, res.After)
	return res, c.measureCeiling(ctx, res)
}

// measuredLoad runs one cell and adds the CPU time per reply of the server
// (when its pid is known) and of this generator.
func measuredLoad(ctx context.Context, cfg LoadConfig, pid int) (LoadResult, error) {
	var srv0 time.Duration
	if pid != 0 {
		var err error
		if srv0, err = ProcessCPU(pid); err != nil {
			return LoadResult{}, err
		}
	}
	gen0 := SelfCPU()
	r, err := RunLoad(ctx, cfg)
	if err != nil || r.Replies == 0 {
		return r, err
	}
	r.GenCPU = (SelfCPU() - gen0) / time.Duration(r.Replies)
	if pid != 0 {
		srv1, err := ProcessCPU(pid)
		if err != nil {
			return r, err
		}
		r.ServerCPU = (srv1 - srv0) / time.Duration(r.Replies)
	}
	return r, nil
}

// checkAll verifies each server answers each operation with real values.
func (c CompareConfig) checkAll(res *CompareResult) error {
	for _, s := range c.Servers {
		res.Runs[s.Name] = map[Cell][]LoadResult{}
		res.Checks[s.Name] = map[Op]Check{}
		for _, op := range c.Ops {
			chk, err := CheckCell(c.loadConfig(s, Cell{Op: op, Clients: 1}))
			if err != nil {
				return fmt.Errorf("server %s: %w", s.Name, err)
			}
			res.Checks[s.Name][op] = chk
		}
	}
	return nil
}

// measureCeiling runs GET against each echo server once per client count.
func (c CompareConfig) measureCeiling(ctx context.Context, res *CompareResult) error {
	res.Ceiling = map[string]map[int]LoadResult{}
	for _, echo := range c.Ceilings {
		res.Ceiling[echo.Name] = map[int]LoadResult{}
		for _, n := range c.Clients {
			r, err := RunLoad(ctx, c.loadConfig(echo, Cell{Op: OpGet, Clients: n}))
			if err != nil {
				return fmt.Errorf("ceiling %s x%d: %w", echo.Name, n, err)
			}
			res.Ceiling[echo.Name][n] = r
		}
	}
	return nil
}

// readMemory records the memory of every server with a known pid.
func readMemory(servers []Server, into map[string]Memory) {
	for _, s := range servers {
		if s.PID == 0 {
			continue
		}
		if m, err := ReadMemory(s.PID); err == nil {
			into[s.Name] = m
		}
	}
}

// reversed returns a reversed copy of servers.
func reversed(servers []Server) []Server {
	out := make([]Server, len(servers))
	for i, s := range servers {
		out[len(servers)-1-i] = s
	}
	return out
}

// Median folds the repetitions of one cell into one result.
func Median(rs []LoadResult) LoadResult {
	var out LoadResult
	if len(rs) == 0 {
		return out
	}
	rates := make([]float64, len(rs))
	p50, p99 := make([]time.Duration, len(rs)), make([]time.Duration, len(rs))
	srv, gen := make([]time.Duration, len(rs)), make([]time.Duration, len(rs))
	for i, r := range rs {
		rates[i], p50[i], p99[i], srv[i], gen[i] = r.Rate, r.P50, r.P99, r.ServerCPU, r.GenCPU
		out.Replies += r.Replies
		out.Errors += r.Errors
		out.Requests += r.Requests
		out.Bytes = max(out.Bytes, r.Bytes)
	}
	sort.Float64s(rates)
	out.Rate = rates[len(rs)/2]
	out.P50, out.P99 = medianDuration(p50), medianDuration(p99)
	out.ServerCPU, out.GenCPU = medianDuration(srv), medianDuration(gen)
	return out
}

// medianDuration sorts ds and returns its middle element.
func medianDuration(ds []time.Duration) time.Duration {
	sort.Slice(ds, func(a, b int) bool { return ds[a] < ds[b] })
	return ds[len(ds)/2]
}
