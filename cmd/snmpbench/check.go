//go:build linux

package main

import (
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/gosnmp/gosnmp"
)

// Check describes what a server answered to one request of a cell.
type Check struct {
	Varbinds int    // varbinds in the reply
	First    string // first varbind, for the report
}

// CheckCell sends one request of the cell with gosnmp and fails unless every
// varbind holds a value (no exception), so both servers are measured doing work.
func CheckCell(cfg LoadConfig) (Check, error) {
	host, port, err := net.SplitHostPort(cfg.Target)
	if err != nil {
		return Check{}, fmt.Errorf("target %q: %w", cfg.Target, err)
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return Check{}, fmt.Errorf("target %q port: %w", cfg.Target, err)
	}
	g := &gosnmp.GoSNMP{Target: host, Port: uint16(p), Version: gosnmp.Version2c,
		Community: cfg.Community, Timeout: time.Second, Retries: 2}
	if err := g.Connect(); err != nil {
		return Check{}, fmt.Errorf("connect %s: %w", cfg.Target, err)
	}
	defer g.Conn.Close()
	pkt, err := sendOp(g, cfg)
	if err != nil {
		return Check{}, fmt.Errorf("%s %s on %s: %w", cfg.Op, cfg.OID, cfg.Target, err)
	}
	return inspect(pkt, cfg)
}

// sendOp issues the cell's request kind.
func sendOp(g *gosnmp.GoSNMP, cfg LoadConfig) (*gosnmp.SnmpPacket, error) {
	switch cfg.Op {
	case OpGet:
		return g.Get([]string{cfg.OID})
	case OpGetNext:
		return g.GetNext([]string{cfg.OID})
	case OpGetBulk, OpDiagBulk:
		return g.GetBulk([]string{cfg.OID}, 0, cfg.MaxRep)
	}
	return nil, fmt.Errorf("op %q: want get, getnext, getbulk or diagbulk", cfg.Op)
}

// inspect rejects error replies, exceptions and short bulk answers.
func inspect(pkt *gosnmp.SnmpPacket, cfg LoadConfig) (Check, error) {
	if pkt.Error != gosnmp.NoError {
		return Check{}, fmt.Errorf("%w: error-status %v", ErrBadReply, pkt.Error)
	}
	want := 1
	if cfg.Op.bulk() {
		want = int(cfg.MaxRep)
	}
	if len(pkt.Variables) != want {
		return Check{}, fmt.Errorf("%w: %d varbinds, want %d", ErrBadReply, len(pkt.Variables), want)
	}
	for _, v := range pkt.Variables {
		switch v.Type {
		case gosnmp.NoSuchObject, gosnmp.NoSuchInstance, gosnmp.EndOfMibView:
			return Check{}, fmt.Errorf("%w: %s is %v", ErrBadReply, v.Name, v.Type)
		}
	}
	first := pkt.Variables[0]
	val := first.Value
	if b, ok := val.([]byte); ok {
		val = string(b)
	}
	return Check{Varbinds: len(pkt.Variables), First: fmt.Sprintf("%s = %v", first.Name, val)}, nil
}
