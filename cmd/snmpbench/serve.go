//go:build linux

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"runtime/pprof"
	"time"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/agent/snmp"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// cmdServe runs the diagagent responder with a synthetic view of n nodes
// until the context ends; it announces its address like the echo mode.
func cmdServe(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:0", "UDP address to bind")
	addrFile := fs.String("addr-file", "", "file (or fifo) to write the bound address to")
	nodes := fs.Int("nodes", 64, "diagTree rows in the published snapshot")
	events := fs.Int("events", 32, "diagEventTable rows in the published snapshot")
	workers := fs.Int("workers", 0, "responder workers; 0 keeps snmp.Default()")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if *nodes < 1 || *nodes > mib.MaxNodeID || *events < 0 {
		return fmt.Errorf("%w: -nodes must be 1..%d and -events >= 0", ErrUsage, mib.MaxNodeID)
	}
	cfg := snmp.Default()
	if *workers > 0 {
		cfg.Workers = *workers
	}
	cfg.SysContact, cfg.SysLocation, cfg.SysName = "bench", "bench", "snmpbench"
	cfg.Communities = []snmp.Community{{Name: "public",
		Sources: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}}
	r, err := snmp.NewResponder(cfg)
	if err != nil {
		return fmt.Errorf("responder: %w", err)
	}
	if err := r.Publish(BenchSnapshot(*nodes, *events, time.Now())); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	stopProfile, err := startCPUProfile(*cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	conn, err := listenAndAnnounce(*listen, *addrFile)
	if err != nil {
		return err
	}
	go func() { <-ctx.Done(); r.Close() }()
	if err := r.Serve(conn); err != nil && !errors.Is(err, snmp.ErrClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// BenchSnapshot builds a plausible view: n nodes on 10.0.x.y, every seventh
// faulty, every eleventh partial, and the last events rows about them.
func BenchSnapshot(n, events int, now time.Time) *board.Snapshot {
	s := &board.Snapshot{Up: true, Station: hiadsd.Station{Addr: netip.MustParseAddr("192.0.2.9"), Counter: 1}}
	for i := 1; i <= n; i++ {
		st := hiadsd.FaultFree
		switch {
		case i%7 == 0:
			st = hiadsd.Faulty
		case i%11 == 0:
			st = hiadsd.Partial
		}
		s.Nodes = append(s.Nodes, board.Row{ID: uint32(i),
			Member: nodelist.Member{Addr: netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)})},
			Status: st, Counter: uint32(i % 5), How: mib.SourceLearned})
	}
	for k := 1; k <= events; k++ {
		s.Events = append(s.Events, mib.Event{Seq: uint32(k), NodeID: uint32(1 + k%n),
			Status: hiadsd.Faulty, Prev: hiadsd.FaultFree, Counter: uint32(k),
			Time: now.Add(time.Duration(k-events) * time.Second).UTC(), How: mib.SourceDirect, Detector: 1})
	}
	return s
}

// startCPUProfile starts profiling into path ("" does nothing) and returns the stop function.
func startCPUProfile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
