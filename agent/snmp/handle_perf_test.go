package snmp

import (
	"bytes"
	"net/netip"
	"testing"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/mib"
)

// benchRequests are the request kinds of the side-by-side benchmark.
func benchRequests(tb testing.TB) map[string][]byte {
	mk := func(p *gosnmp.SnmpPacket) []byte {
		p.Version, p.Community, p.RequestID = gosnmp.Version2c, roCommunity, 4242
		b, err := p.MarshalMsg()
		if err != nil {
			tb.Fatal(err)
		}
		return b
	}
	vb := func(oid string) []gosnmp.SnmpPDU { return []gosnmp.SnmpPDU{{Name: oid, Type: gosnmp.Null}} }
	return map[string][]byte{
		"Get":       mk(&gosnmp.SnmpPacket{PDUType: gosnmp.GetRequest, Variables: vb(mib.TreeCell(mib.ColNodeStatus, 2))}),
		"GetNext":   mk(&gosnmp.SnmpPacket{PDUType: gosnmp.GetNextRequest, Variables: vb(mib.TreeCell(mib.ColNodeStatus, 2))}),
		"GetBulk10": mk(&gosnmp.SnmpPacket{PDUType: gosnmp.GetBulkRequest, MaxRepetitions: 10, Variables: vb(mib.DiagTree)}),
	}
}

// BenchmarkHandle measures the request path without sockets: decode, lookup, encode.
func BenchmarkHandle(b *testing.B) {
	clock := &fakeClock{t: time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)}
	r, err := NewResponder(testConfig(clock))
	if err != nil {
		b.Fatal(err)
	}
	if err := r.Publish(testSnapshot()); err != nil {
		b.Fatal(err)
	}
	src := netip.MustParseAddr("127.0.0.1")
	ws := &workspace{}
	for name, req := range benchRequests(b) {
		b.Run(name, func(b *testing.B) {
			buf := bytes.Clone(req)
			b.ReportAllocs()
			for b.Loop() {
				copy(buf, req)
				if r.handleWith(ws, buf, src) == nil {
					b.Fatal("no reply")
				}
			}
		})
	}
	b.Run("V3AuthPriv", func(b *testing.B) {
		req := readSeed(b, "v3_privsha_aes_1")
		buf := bytes.Clone(req)
		b.ReportAllocs()
		for b.Loop() {
			copy(buf, req)
			if r.handleWith(ws, buf, src) == nil {
				b.Fatal("no reply")
			}
		}
	})
}

// TestCommunityRequestsDoNotAllocate keeps the SNMPv1/v2c path free of heap
// allocations once a worker's workspace has grown (it keeps GC off the tail).
func TestCommunityRequestsDoNotAllocate(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)}
	r, err := NewResponder(testConfig(clock))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Publish(testSnapshot()); err != nil {
		t.Fatal(err)
	}
	src, ws := netip.MustParseAddr("127.0.0.1"), &workspace{}
	for name, req := range benchRequests(t) {
		buf := bytes.Clone(req)
		// AllocsPerRun counts the whole process: the least of three runs keeps
		// a stray goroutine of an earlier test from failing this one.
		allocs := 1e9
		for range 3 {
			allocs = min(allocs, testing.AllocsPerRun(200, func() {
				copy(buf, req)
				if r.handleWith(ws, buf, src) == nil {
					t.Fatal("no reply")
				}
			}))
		}
		if allocs != 0 {
			t.Errorf("%s: %.1f allocations per request, want 0", name, allocs)
		}
	}
}
