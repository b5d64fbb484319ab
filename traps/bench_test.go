package traps

import (
	"testing"
	"time"
)

// BenchmarkNodeStatusChange measures what the diagnosis loop pays per event
// while the station is silent: validation, encoding, queueing and, once the
// queue is full, dropping the oldest notification.
func BenchmarkNodeStatusChange(b *testing.B) {
	hole, err := newBenchBlackhole()
	if err != nil {
		b.Fatal(err)
	}
	defer hole.Close()
	cfg := testConfig(InformV2c, Destination{Addr: hole.LocalAddr().String(), Usable: true})
	cfg.Timeout, cfg.MaxTimeout = time.Second, time.Second
	n, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer n.Shutdown(cancelled())
	e := testEvent(1)
	b.ReportAllocs()
	for b.Loop() {
		if err := n.NodeStatusChange(e); err != nil {
			b.Fatal(err)
		}
		e.Seq++
	}
}

// BenchmarkInformV2cToSnmptrapd measures acknowledged informs per second to a
// real snmptrapd on loopback, one at a time as the notifier sends them.
func BenchmarkInformV2cToSnmptrapd(b *testing.B) {
	benchmarkDelivery(b, InformV2c)
}

// BenchmarkTrapV2cToSnmptrapd measures unacknowledged traps per second to snmptrapd.
func BenchmarkTrapV2cToSnmptrapd(b *testing.B) {
	benchmarkDelivery(b, TrapV2c)
}

// benchmarkDelivery queues b.N events and times until Close has drained them all.
func benchmarkDelivery(b *testing.B, kind Kind) {
	d := startTrapd(b, openTrapd) // its output is drained into memory as it comes
	cfg := testConfig(kind, Destination{Addr: d.addr, Usable: true})
	cfg.QueueSize = b.N
	cfg.DrainTimeout = time.Minute
	n, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	e := testEvent(1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := n.NodeStatusChange(e); err != nil {
			b.Fatal(err)
		}
		e.Seq++
	}
	if err := n.Close(); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	s := n.Stats()
	if s.Dropped != 0 || s.Sent != uint64(b.N) || (kind.acknowledged() && s.Acknowledged != uint64(b.N)) {
		b.Fatalf("stats %+v after %d events", s, b.N)
	}
}
