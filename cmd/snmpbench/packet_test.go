//go:build linux

package main

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/gosnmp/gosnmp"
)

func TestTemplateSetIDKeepsAValidPacket(t *testing.T) {
	codec := &gosnmp.GoSNMP{Version: gosnmp.Version2c, Community: "public"}
	for _, op := range []Op{OpGet, OpGetNext, OpGetBulk} {
		tpl, err := NewTemplate(op, "public", oidSystem, 10)
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		for _, id := range []uint32{0, 1, 0xabcdef, 0xffffffff} {
			sent := tpl.SetID(id)
			pkt, err := codec.SnmpDecodePacket(tpl.Packet)
			if err != nil {
				t.Fatalf("%s id %#x: decode: %v", op, id, err)
			}
			if pkt.RequestID != sent || sent < 0x01000000 || sent > 0x7fffffff {
				t.Fatalf("%s: SetID(%#x) sent %#x, packet says %#x", op, id, sent, pkt.RequestID)
			}
			if len(pkt.Variables) != 1 || pkt.Variables[0].Name != "."+oidSystem {
				t.Fatalf("%s: varbinds %+v", op, pkt.Variables)
			}
		}
	}
	if _, err := NewTemplate("walk", "public", oidSystem, 10); err == nil {
		t.Fatal("unknown op accepted")
	}
}

func TestReplyIDReadsResponses(t *testing.T) {
	resp := &gosnmp.SnmpPacket{Version: gosnmp.Version2c, Community: "public", PDUType: gosnmp.GetResponse,
		RequestID: 0x01020304, Error: gosnmp.NoSuchName,
		Variables: []gosnmp.SnmpPDU{{Name: oidSysDescr, Type: gosnmp.OctetString, Value: []byte("x")}}}
	b, err := resp.MarshalMsg()
	if err != nil {
		t.Fatal(err)
	}
	id, es, err := ReplyID(b)
	if err != nil || id != 0x01020304 || es != int(gosnmp.NoSuchName) {
		t.Fatalf("ReplyID = %#x, %d, %v", id, es, err)
	}
	tpl, err := NewTemplate(OpGet, "public", oidSysDescr, 0)
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string][]byte{
		"empty":     nil,
		"request":   tpl.Packet,
		"truncated": b[:len(b)/2],
		"not ber":   []byte{0x30, 0x85, 1, 2, 3, 4, 5},
	} {
		if _, _, err := ReplyID(bad); !errors.Is(err, ErrBadReply) {
			t.Errorf("%s: got %v, want ErrBadReply", name, err)
		}
	}
}

func TestMedianAndSummarize(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	m := Median([]LoadResult{
		{Rate: 30, P50: ms(3), P99: ms(9), Errors: 1, Requests: 10, Bytes: 90},
		{Rate: 10, P50: ms(1), P99: ms(7), Requests: 20, Bytes: 100},
		{Rate: 20, P50: ms(2), P99: ms(8), Errors: 2, Requests: 30, Bytes: 90},
	})
	want := LoadResult{Rate: 20, P50: ms(2), P99: ms(8), Errors: 3, Requests: 60, Bytes: 100}
	if m != want {
		t.Fatalf("Median = %+v, want %+v", m, want)
	}
	lat := []time.Duration{ms(5), ms(1), ms(4), ms(2), ms(3)}
	s := summarize(lat, 1, 2*time.Second)
	if s.Rate != 2.5 || s.P50 != ms(3) || s.P99 != ms(5) || s.Errors != 1 {
		t.Fatalf("summarize = %+v", s)
	}
}

func TestParseServer(t *testing.T) {
	s, err := parseServer("ours=127.0.0.1:1161@42")
	if err != nil || s != (Server{Name: "ours", Addr: "127.0.0.1:1161", PID: 42}) {
		t.Fatalf("parseServer = %+v, %v", s, err)
	}
	for _, bad := range []string{"127.0.0.1:161", "=x:1", "a=x:1@pid"} {
		if _, err := parseServer(bad); !errors.Is(err, ErrUsage) {
			t.Errorf("parseServer(%q) = %v, want ErrUsage", bad, err)
		}
	}
}

func TestProcessCPU(t *testing.T) {
	own, err := ProcessCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// /proc counts in 10 ms ticks; getrusage is exact, so allow one tick.
	if self := SelfCPU(); own < 0 || own > self+clockTick {
		t.Fatalf("ProcessCPU(self) = %s, getrusage = %s", own, self)
	}
	if _, err := ProcessCPU(-1); err == nil {
		t.Fatal("ProcessCPU(-1) succeeded")
	}
}
