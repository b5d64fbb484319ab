//go:build linux

package main

import (
	"context"
	"fmt"
	"net"
	"sort"
	"sync"
	"time"
)

// LoadConfig describes one closed-loop cell against one server.
type LoadConfig struct {
	Target    string        // host:port of the server
	Op        Op            // request kind
	OID       string        // the OID the request names
	MaxRep    uint32        // max-repetitions for GETBULK
	Community string        // v2c community
	Clients   int           // concurrent clients, one socket each
	Warmup    time.Duration // traffic not recorded before the measured window
	Duration  time.Duration // measured window
	Timeout   time.Duration // per-request timeout; a timeout counts as an error
}

// LoadResult is what one cell measured.
type LoadResult struct {
	Requests int           // replies received in the measured window
	Errors   int           // timeouts, bad replies and error-status replies
	Rate     float64       // replies per second
	P50      time.Duration // median latency
	P99      time.Duration // 99th percentile latency
	Bytes    int           // size of one reply datagram
	Replies  int           // replies including the warm-up, for CPU cost per reply
	// ServerCPU and GenCPU are CPU time per reply (warm-up included) of the
	// server and of this generator; zero when not measured.
	ServerCPU, GenCPU time.Duration
}

// clientStats is what one client goroutine gathered.
type clientStats struct {
	lat     []time.Duration
	errs    int
	bytes   int
	replies int
	err     error
}

// RunLoad drives cfg.Clients closed-loop clients and merges their figures.
func RunLoad(ctx context.Context, cfg LoadConfig) (LoadResult, error) {
	start := time.Now()
	measureFrom := start.Add(cfg.Warmup)
	stop := measureFrom.Add(cfg.Duration)
	stats := make([]clientStats, cfg.Clients)
	var wg sync.WaitGroup
	for i := range stats {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stats[i] = runClient(ctx, cfg, uint32(i)<<20, measureFrom, stop)
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return LoadResult{}, fmt.Errorf("load interrupted: %w", err)
	}
	var all []time.Duration
	res := LoadResult{}
	for _, s := range stats {
		if s.err != nil {
			return res, s.err
		}
		all = append(all, s.lat...)
		res.Errors += s.errs
		res.Bytes = max(res.Bytes, s.bytes)
		res.Replies += s.replies
	}
	out := summarize(all, res.Errors, cfg.Duration)
	out.Bytes, out.Replies = res.Bytes, res.Replies
	return out, nil
}

// summarize turns raw latencies into rate and percentiles.
func summarize(lat []time.Duration, errs int, window time.Duration) LoadResult {
	res := LoadResult{Requests: len(lat), Errors: errs}
	res.Rate = float64(len(lat)) / window.Seconds()
	if len(lat) == 0 {
		return res
	}
	sort.Slice(lat, func(a, b int) bool { return lat[a] < lat[b] })
	res.P50 = lat[len(lat)*50/100]
	res.P99 = lat[min(len(lat)-1, len(lat)*99/100)]
	return res
}

// runClient sends one request at a time on its own socket until stop.
func runClient(ctx context.Context, cfg LoadConfig, idBase uint32, from, stop time.Time) clientStats {
	tpl, err := NewTemplate(cfg.Op, cfg.Community, cfg.OID, cfg.MaxRep)
	if err != nil {
		return clientStats{err: err}
	}
	conn, err := net.Dial("udp", cfg.Target)
	if err != nil {
		return clientStats{err: fmt.Errorf("dial %s: %w", cfg.Target, err)}
	}
	defer conn.Close()
	st := clientStats{lat: make([]time.Duration, 0, 1<<16)}
	buf := make([]byte, 65536)
	for n := idBase; ctx.Err() == nil; n++ {
		t0 := time.Now()
		if !t0.Before(stop) {
			break
		}
		size, err := exchange(conn, tpl, tpl.SetID(n), buf, t0.Add(cfg.Timeout))
		if err != nil {
			return clientStats{err: err}
		}
		if size > 0 {
			st.replies++
		}
		if t0.Before(from) {
			continue
		}
		if size > 0 {
			st.lat = append(st.lat, time.Since(t0))
			st.bytes = size
		} else {
			st.errs++
		}
	}
	return st
}

// exchange sends the packet and waits for the reply carrying id, returning
// its size (0 for a failed request); stale replies to earlier timed-out
// requests are read and dropped.
func exchange(conn net.Conn, tpl *Template, id uint32, buf []byte, deadline time.Time) (int, error) {
	if err := conn.SetReadDeadline(deadline); err != nil {
		return 0, fmt.Errorf("set deadline: %w", err)
	}
	if _, err := conn.Write(tpl.Packet); err != nil {
		return 0, nil // e.g. ECONNREFUSED from an earlier ICMP error: count it
	}
	for {
		n, err := conn.Read(buf)
		if err != nil {
			return 0, nil // timeout or ICMP-reported refusal: an error
		}
		rid, es, perr := ReplyID(buf[:n])
		if perr != nil {
			return 0, nil
		}
		if rid != id {
			continue // a late reply to an earlier, timed-out request
		}
		if es != 0 {
			return 0, nil
		}
		return n, nil
	}
}
