//go:build linux

package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/diagagent/diagagent/mib"
)

// System-group OIDs both net-snmp's snmpd and the diagagent responder serve.
const (
	oidSysDescr = "1.3.6.1.2.1.1.1.0"
	oidSystem   = "1.3.6.1.2.1.1"
)

// cmdLoad runs one cell against one server and prints the figures.
func cmdLoad(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	cfg := LoadConfig{Community: "public"}
	op := fs.String("op", "get", "get, getnext, getbulk or diagbulk")
	fs.StringVar(&cfg.Target, "target", "127.0.0.1:161", "server host:port")
	fs.StringVar(&cfg.OID, "oid", oidSysDescr, "request OID")
	maxRep := fs.Uint("maxrep", 10, "GETBULK max-repetitions")
	fs.IntVar(&cfg.Clients, "clients", 1, "concurrent clients")
	fs.DurationVar(&cfg.Warmup, "warmup", time.Second, "unrecorded warm-up")
	fs.DurationVar(&cfg.Duration, "duration", 5*time.Second, "measured window")
	fs.DurationVar(&cfg.Timeout, "timeout", time.Second, "per-request timeout")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	cfg.Op, cfg.MaxRep = Op(*op), uint32(*maxRep)
	r, err := RunLoad(ctx, cfg)
	if err != nil {
		return err
	}
	fmt.Printf("%s x%d %s: %.0f req/s p50 %s p99 %s errors %d reply %d B\n",
		cfg.Op, cfg.Clients, cfg.Target, r.Rate, r.P50, r.P99, r.Errors, r.Bytes)
	return nil
}

// listFlag collects a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// cmdCompare runs the interleaved grid and writes the markdown report.
func cmdCompare(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	var servers, notes listFlag
	fs.Var(&servers, "server", "name=host:port[@pid], repeatable; the first is the baseline")
	fs.Var(&notes, "note", "extra line for the report header, repeatable")
	ops := fs.String("ops", "get,getnext,getbulk,diagbulk", "operations")
	clients := fs.String("clients", "1,4,16", "client counts")
	c := CompareConfig{OIDs: map[Op]string{}}
	fs.IntVar(&c.Reps, "reps", 3, "repetitions per cell (median reported)")
	fs.DurationVar(&c.Warmup, "warmup", time.Second, "warm-up per cell")
	fs.DurationVar(&c.Duration, "duration", 5*time.Second, "measured window per cell")
	fs.DurationVar(&c.Timeout, "timeout", time.Second, "per-request timeout")
	var ceilings listFlag
	fs.Var(&ceilings, "ceiling", "name=host:port of an echo server for the generator ceiling, repeatable")
	maxRep := fs.Uint("maxrep", 10, "GETBULK max-repetitions")
	getOID := fs.String("get-oid", oidSysDescr, "GET request OID")
	nextOID := fs.String("next-oid", oidSystem, "GETNEXT request OID")
	bulkOID := fs.String("bulk-oid", oidSystem, "GETBULK request OID")
	diagOID := fs.String("diag-oid", mib.NodeStatus, "diagbulk (GETBULK in the DIAGNOSIS-MIB) request OID")
	command := fs.String("command", "", "command line to print in the report")
	out := fs.String("out", "-", "report file, - for stdout")
	jsonOut := fs.String("json", "", "also write the medians as JSON to this file")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	c.MaxRep = uint32(*maxRep)
	c.OIDs[OpGet], c.OIDs[OpGetNext], c.OIDs[OpGetBulk] = *getOID, *nextOID, *bulkOID
	c.OIDs[OpDiagBulk] = *diagOID
	if err := parseGrid(&c, servers, *ops, *clients); err != nil {
		return err
	}
	for _, e := range ceilings {
		srv, err := parseServer(e)
		if err != nil {
			return err
		}
		c.Ceilings = append(c.Ceilings, srv)
	}
	info := ReportInfo{Command: *command, Notes: notes, When: time.Now(), Config: c}
	res, err := Compare(ctx, c)
	if err != nil {
		return err
	}
	if *jsonOut != "" {
		if err := writeJSON(*jsonOut, Summarize(c, res)); err != nil {
			return err
		}
	}
	return writeTo(*out, info, res)
}

// parseGrid fills servers, operations and client counts from flag text.
func parseGrid(c *CompareConfig, servers []string, ops, clients string) error {
	if len(servers) == 0 || c.Reps < 1 {
		return fmt.Errorf("%w: need at least one -server and -reps >= 1", ErrUsage)
	}
	for _, s := range servers {
		srv, err := parseServer(s)
		if err != nil {
			return err
		}
		c.Servers = append(c.Servers, srv)
	}
	for _, op := range strings.Split(ops, ",") {
		c.Ops = append(c.Ops, Op(strings.TrimSpace(op)))
	}
	for _, n := range strings.Split(clients, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(n))
		if err != nil || k < 1 {
			return fmt.Errorf("%w: -clients %q: want positive integers", ErrUsage, clients)
		}
		c.Clients = append(c.Clients, k)
	}
	return nil
}

// parseServer reads "name=host:port[@pid]".
func parseServer(s string) (Server, error) {
	name, rest, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return Server{}, fmt.Errorf("%w: -server %q: want name=host:port[@pid]", ErrUsage, s)
	}
	addr, pidText, hasPID := strings.Cut(rest, "@")
	srv := Server{Name: name, Addr: addr}
	if hasPID {
		pid, err := strconv.Atoi(pidText)
		if err != nil {
			return Server{}, fmt.Errorf("%w: -server %q pid: %w", ErrUsage, s, err)
		}
		srv.PID = pid
	}
	return srv, nil
}

// writeTo writes the report to path or stdout.
func writeTo(path string, info ReportInfo, res *CompareResult) error {
	if path == "-" {
		WriteReport(os.Stdout, info, res)
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	WriteReport(f, info, res)
	if err := f.Close(); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// cmdEcho serves an echo responder (network poller, or -blocking) until the context ends.
func cmdEcho(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("echo", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:0", "UDP address to bind (the blocking mode uses only its port)")
	addrFile := fs.String("addr-file", "", "file (or fifo) to write the bound address to")
	blocking := fs.Bool("blocking", false, "read with blocking recvfrom on one locked OS thread")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if *blocking {
		return serveBlockingEcho(ctx, *listen, *addrFile)
	}
	conn, err := listenAndAnnounce(*listen, *addrFile)
	if err != nil {
		return err
	}
	go func() { <-ctx.Done(); conn.Close() }()
	return ServeEcho(conn, 2)
}

// serveBlockingEcho runs BlockingEcho and announces its address.
func serveBlockingEcho(ctx context.Context, listen, addrFile string) error {
	ap, err := netip.ParseAddrPort(listen)
	if err != nil {
		return fmt.Errorf("%w: -listen %q: %w", ErrUsage, listen, err)
	}
	e, addr, err := ListenBlockingEcho(int(ap.Port()))
	if err != nil {
		return err
	}
	if err := announce(addr, addrFile); err != nil {
		e.Close()
		return err
	}
	go func() { <-ctx.Done(); e.Close() }()
	return e.Serve()
}

// listenAndAnnounce binds UDP and writes the bound address for the script.
func listenAndAnnounce(listen, addrFile string) (net.PacketConn, error) {
	conn, err := net.ListenPacket("udp", listen)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", listen, err)
	}
	if err := announce(conn.LocalAddr().String(), addrFile); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// announce writes addr to addrFile, or prints it when there is none.
func announce(addr, addrFile string) error {
	if addrFile == "" {
		fmt.Println(addr)
		return nil
	}
	if err := os.WriteFile(addrFile, []byte(addr+"\n"), 0o644); err != nil {
		return fmt.Errorf("addr file: %w", err)
	}
	return nil
}

// cmdFreePort prints a UDP port on 127.0.0.1 that was free a moment ago.
func cmdFreePort() error {
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("free port: %w", err)
	}
	defer conn.Close()
	fmt.Println(conn.LocalAddr().(*net.UDPAddr).Port)
	return nil
}
