package web

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/diagagent/diagagent/agent/metrics"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// fakeSource is a Source whose snapshot a test replaces.
type fakeSource struct {
	board   board.Board
	mu      sync.Mutex
	snap    *board.Snapshot
	graph   [][]int
	started time.Time
}

func (f *fakeSource) Snapshot() *board.Snapshot {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.snap
}

func (f *fakeSource) Graph() [][]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.graph
}

func (f *fakeSource) Started() time.Time { return f.started }

func (f *fakeSource) Changed() <-chan struct{} { return f.board.Changed() }

// wake tells streams a snapshot was published (the same one again: nothing new).
func (f *fakeSource) wake() { _ = f.board.Publish(f.Snapshot()) }

// set publishes a new snapshot.
func (f *fakeSource) set(s *board.Snapshot) {
	f.mu.Lock()
	f.snap = s
	f.mu.Unlock()
}

// fourNodes is a view of four nodes seen by node 1: node 3 partial (seen
// directly at 2.5 s), node 4 a tested-only printer.
func fourNodes() *fakeSource {
	started := time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)
	rows := make([]board.Row, 4)
	for k := range rows {
		rows[k] = board.Row{ID: uint32(k + 1), Member: nodelist.Member{Addr: netip.AddrFrom4([4]byte{127, 0, 0, byte(k + 1)}), Port: 161},
			Status: hiadsd.FaultFree, Counter: 1, LastChange: 100, How: mib.SourceLearned}
	}
	rows[0].Name, rows[3].TestedOnly = "alpha", true
	rows[2].Status, rows[2].Counter, rows[2].LastChange, rows[2].How = hiadsd.Partial, 2, 250, mib.SourceDirect
	evs := []mib.Event{
		{Seq: 1, NodeID: 2, Status: hiadsd.FaultFree, Prev: hiadsd.Unknown, Counter: 1, Time: started.Add(time.Second), How: mib.SourceDirect, Detector: 1},
		{Seq: 2, NodeID: 3, Status: hiadsd.FaultFree, Prev: hiadsd.Unknown, Counter: 1, Time: started.Add(time.Second), How: mib.SourceLearned},
		{Seq: 3, NodeID: 3, Status: hiadsd.Partial, Prev: hiadsd.FaultFree, Counter: 2, Time: started.Add(2500 * time.Millisecond), How: mib.SourceDirect, Detector: 1},
	}
	return &fakeSource{started: started, graph: [][]int{{1, 2, 3}, {0}, nil, nil},
		snap: &board.Snapshot{Self: 1, Nodes: rows, Events: evs, Up: true, Station: hiadsd.Station{Addr: netip.MustParseAddr("192.0.2.9"), Counter: 4}}}
}

// newTestServer builds a Server over the four-node view, as agent self
// (a NodeID) shows it, running vCube every 30 s with two stations.
func newTestServer(t *testing.T, c Config, self uint32) (*Server, *fakeSource) {
	t.Helper()
	src := fourNodes()
	src.snap.Self = self
	c.Source, c.Algorithm, c.Interval = src, "vcube", 30*time.Second
	if c.Metrics == nil {
		reg := metrics.NewRegistry()
		reg.MustRegister(metrics.NewGoCollector())
		c.Metrics = reg
	}
	c.Stations = func() []Station {
		return []Station{{Address: "192.0.2.9:162", Usable: false}, {Address: "192.0.2.10:162", Usable: true}}
	}
	s, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	return s, src
}

// get sends one request to h and returns the status code and body.
func get(t *testing.T, h http.Handler, method, target string) (*http.Response, string) {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(method, target, nil))
	res := w.Result()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}
