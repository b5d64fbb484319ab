package web

import (
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// bigServer is a Server over n fault-free nodes, each testing the next log2 n.
func bigServer(b *testing.B, n int) (*Server, *fakeSource) {
	rows := make([]board.Row, n)
	graph := make([][]int, n)
	events := make([]mib.Event, 0, 1024)
	for k := range rows {
		a := netip.AddrFrom4([4]byte{10, 0, byte(k >> 8), byte(k)})
		rows[k] = board.Row{ID: uint32(k + 1), Member: nodelist.Member{Addr: a}, Status: hiadsd.FaultFree, Counter: 1, LastChange: 100, How: mib.SourceLearned}
		for s := 1; s < n; s *= 2 {
			graph[k] = append(graph[k], k^s%n)
		}
		if len(events) < cap(events) {
			events = append(events, mib.Event{Seq: uint32(k + 1), NodeID: uint32(k + 1), Status: hiadsd.FaultFree, Time: time.Now()})
		}
	}
	src := &fakeSource{snap: &board.Snapshot{Nodes: rows, Events: events, Up: true}, graph: graph, started: time.Now()}
	s, err := New(Config{Source: src, Algorithm: "vcube", Interval: 30 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	return s, src
}

// BenchmarkState1024 encodes the stream's document for a new 1,024-node view,
// the work done once per published snapshot.
func BenchmarkState1024(b *testing.B) {
	s, src := bigServer(b, 1024)
	b.ReportAllocs()
	var size int
	for b.Loop() {
		next := *src.Snapshot()
		size = len(s.encodedState(&next))
	}
	b.ReportMetric(float64(size), "bytes/doc")
}

// BenchmarkScrape1024 serves /metrics for a 1,024-node view.
func BenchmarkScrape1024(b *testing.B) {
	s, _ := bigServer(b, 1024)
	h := s.Handler()
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}
