package probe

import (
	"context"
	"net"
	"net/netip"
	"testing"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/snmp"
	"github.com/diagagent/diagagent/hiadsd"
)

// benchResponder serves snap from an in-process Responder for a benchmark.
func benchResponder(b *testing.B, snap *board.Snapshot) Target {
	b.Helper()
	cfg := snmp.Default()
	cfg.Communities = []snmp.Community{{Name: "public"}}
	r, err := snmp.NewResponder(cfg)
	if err != nil {
		b.Fatal(err)
	}
	if err := r.Publish(snap); err != nil {
		b.Fatal(err)
	}
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go func() { _ = r.Serve(conn) }()
	b.Cleanup(func() { _ = r.Close() })
	return Target{Addr: netip.MustParseAddr("127.0.0.1"), Port: uint16(conn.LocalAddr().(*net.UDPAddr).Port)}
}

// benchProber is a prober with the default configuration.
func benchProber(b *testing.B) *Prober {
	p, err := New(Default(), nil)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkProbeFaultFree is one practical test of a healthy peer on
// loopback, tested again and again as the full plan does: a GET of
// hiADSDisUP.0 and diagViewDigest.0 on the socket the test before kept.
func BenchmarkProbeFaultFree(b *testing.B) {
	benchProbe(b, benchProber(b))
}

// BenchmarkProbeFaultFreeNewSocket is that test as a rotating plan makes
// it, its peer last tested intervals ago: a new gosnmp client and socket,
// the GET, and the socket closed.
func BenchmarkProbeFaultFreeNewSocket(b *testing.B) {
	p := benchProber(b)
	p.cfg.KeepFor = 0
	benchProbe(b, p)
}

// benchProbe tests a healthy peer with p, b.N times.
func benchProbe(b *testing.B, p *Prober) {
	target := benchResponder(b, probeSnapshot(8, 0))
	ctx := context.Background()
	for b.Loop() {
		if res := p.Probe(ctx, target); res.Status != hiadsd.FaultFree {
			b.Fatalf("got %+v", res)
		}
	}
}

// BenchmarkFetchRows64 reads a 64-node cluster's rows (one GETBULK of 64 repetitions).
func BenchmarkFetchRows64(b *testing.B) {
	target := benchResponder(b, probeSnapshot(128, 0))
	p := benchProber(b)
	ctx := context.Background()
	for b.Loop() {
		rows, err := p.FetchRows(ctx, target, 65, 128)
		if err != nil || len(rows) != 64 {
			b.Fatalf("got %d rows, %v", len(rows), err)
		}
	}
}

// BenchmarkBurst24 is a measurement of a clean peer's link on loopback: a
// paced burst of 24 GETs of hiADSDisUP (hiadsd.MeasureRequests), its
// sockets and clients included.
func BenchmarkBurst24(b *testing.B) {
	target := benchResponder(b, probeSnapshot(8, 0))
	p := benchProber(b)
	p.starvedBy = 0
	ctx := context.Background()
	for b.Loop() {
		if sent, unanswered, _ := p.measure(ctx, target, hiadsd.MeasureRequests); sent != hiadsd.MeasureRequests || unanswered != 0 {
			b.Fatalf("%d sent, %d lost", sent, unanswered)
		}
	}
}
