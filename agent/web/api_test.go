package web

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/hiadsd"
)

// decode parses body into v or fails.
func decode(t *testing.T, body string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(body), v); err != nil {
		t.Fatalf("decode %q: %v", body, err)
	}
}

func TestNodesAPI(t *testing.T) {
	s, _ := newTestServer(t, Config{}, 1)
	res, body := get(t, s.Handler(), "GET", "/api/v1/nodes")
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET /api/v1/nodes: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	var nodes []Node
	decode(t, body, &nodes)
	change := time.Date(2026, 11, 21, 6, 0, 2, 500e6, time.UTC)
	want := Node{ID: 3, Address: "127.0.0.3", Status: "partial", Code: 2, Role: "testing", Counter: 2, LastChange: &change, How: "direct"}
	if len(nodes) != 4 || !reflect.DeepEqual(nodes[2], want) {
		t.Fatalf("nodes = %+v\nwant node 3 = %+v", nodes, want)
	}
	if nodes[0].Name != "alpha" || nodes[3].Role != "tested-only" {
		t.Errorf("name %q, printer role %q", nodes[0].Name, nodes[3].Role)
	}
}

func TestStatusAPI(t *testing.T) {
	s, _ := newTestServer(t, Config{}, 2)
	_, body := get(t, s.Handler(), "GET", "/api/v1/status")
	var st Status
	decode(t, body, &st)
	counts := map[string]int{"fault-free": 3, "partial": 1, "faulty": 0, "unknown": 0, "degraded": 0}
	if st.Self.ID != 2 || st.Algorithm != "vcube" || st.IntervalSeconds != 30 || !st.Up || st.Nodes != 4 ||
		!reflect.DeepEqual(st.Counts, counts) || st.NMS != "192.0.2.9" || st.NMSCounter != 4 || st.LastEventSeq != 3 {
		t.Errorf("status = %+v", st)
	}
	want := []Station{{Address: "192.0.2.9:162"}, {Address: "192.0.2.10:162", Usable: true, InUse: true}}
	if !reflect.DeepEqual(st.Stations, want) {
		t.Errorf("stations = %+v, want the first usable one in use: %+v", st.Stations, want)
	}
}

func TestGraphAPI(t *testing.T) {
	s, _ := newTestServer(t, Config{}, 1)
	_, body := get(t, s.Handler(), "GET", "/api/v1/graph")
	var g Edges
	decode(t, body, &g)
	want := Edges{Nodes: 4, Dimensions: 2, Tests: []Tester{{ID: 1, Tested: []uint32{2, 3, 4}}, {ID: 2, Tested: []uint32{1}}}}
	if !reflect.DeepEqual(g, want) {
		t.Errorf("graph = %+v, want %+v", g, want)
	}
}

func TestEventsAPI(t *testing.T) {
	s, _ := newTestServer(t, Config{}, 1)
	for _, c := range []struct {
		query string
		seqs  []uint32
	}{{"", []uint32{1, 2, 3}}, {"?after=1", []uint32{2, 3}}, {"?after=3", nil}, {"?limit=1", []uint32{3}}, {"?after=0&limit=2", []uint32{2, 3}}} {
		res, body := get(t, s.Handler(), "GET", "/api/v1/events"+c.query)
		var evs []Event
		decode(t, body, &evs)
		var seqs []uint32
		for _, e := range evs {
			seqs = append(seqs, e.Seq)
		}
		if res.StatusCode != http.StatusOK || !reflect.DeepEqual(seqs, c.seqs) || evs == nil {
			t.Errorf("events%s: %d %v, want %v", c.query, res.StatusCode, seqs, c.seqs)
		}
	}
	_, body := get(t, s.Handler(), "GET", "/api/v1/events?after=2")
	var evs []Event
	decode(t, body, &evs)
	if e := evs[0]; e.Node != 3 || e.Status != "partial" || e.Prev != "fault-free" || e.How != "direct" || e.Detector != 1 {
		t.Errorf("event 3 = %+v", e)
	}
}

func TestEventsAPIRejectsBadQuery(t *testing.T) {
	s, _ := newTestServer(t, Config{}, 1)
	for _, q := range []string{"after=-1", "after=x", "after=4294967296", "limit=99999999", "limit=1.5"} {
		res, body := get(t, s.Handler(), "GET", "/api/v1/events?"+q)
		var e apiError
		decode(t, body, &e)
		if res.StatusCode != http.StatusBadRequest || !strings.HasPrefix(e.Error, ErrBadQuery.Error()) {
			t.Errorf("%s: %d %q, want 400 %q", q, res.StatusCode, e.Error, ErrBadQuery)
		}
	}
	if _, err := queryUint(mustRequest(t, "/?after=x"), "after", 0, 10); !errors.Is(err, ErrBadQuery) {
		t.Errorf("queryUint error %v does not wrap ErrBadQuery", err)
	}
}

func TestStateAPIIsCachedPerSnapshot(t *testing.T) {
	s, src := newTestServer(t, Config{}, 1)
	_, first := get(t, s.Handler(), "GET", "/api/v1/state")
	var st State
	decode(t, first, &st)
	if len(st.Nodes) != 4 || len(st.Events) != 3 || len(st.Graph.Tests) != 2 || st.Status.Nodes != 4 {
		t.Fatalf("state = %+v", st)
	}
	src.mu.Lock()
	src.graph = [][]int{{1}, nil, nil, nil} // same snapshot: the cached document stays
	src.mu.Unlock()
	if _, again := get(t, s.Handler(), "GET", "/api/v1/state"); again != first {
		t.Errorf("same snapshot, new document:\n%s\n%s", first, again)
	}
	next := *src.Snapshot()
	src.set(&next)
	_, third := get(t, s.Handler(), "GET", "/api/v1/state")
	decode(t, third, &st)
	if len(st.Graph.Tests) != 1 {
		t.Errorf("new snapshot, old graph: %+v", st.Graph)
	}
}

func TestNotReadyAnswers503(t *testing.T) {
	s, src := newTestServer(t, Config{}, 1)
	src.set(nil)
	for _, p := range []string{"/api/v1/status", "/api/v1/nodes", "/api/v1/events", "/api/v1/state"} {
		if res, _ := get(t, s.Handler(), "GET", p); res.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("%s before the first snapshot: %d, want 503", p, res.StatusCode)
		}
	}
	if res, body := get(t, s.Handler(), "GET", "/metrics"); res.StatusCode != http.StatusOK || !strings.Contains(body, "go_goroutines") {
		t.Errorf("/metrics before the first snapshot: %d, gathered: %v", res.StatusCode, strings.Contains(body, "go_goroutines"))
	}
}

func TestReadOnly(t *testing.T) {
	s, _ := newTestServer(t, Config{}, 1)
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	for _, p := range []string{"/", "/api/v1/status", "/api/v1/nodes", "/api/v1/events", "/api/v1/stream", "/metrics", "/assets/app.js", "/api/v1/nope"} {
		for _, m := range []string{"POST", "PUT", "DELETE", "PATCH", "HEAD"} {
			req, _ := http.NewRequest(m, srv.URL+p, strings.NewReader("x"))
			res, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			switch {
			case m == "HEAD" && p == "/api/v1/nope":
				if res.StatusCode != http.StatusNotFound {
					t.Errorf("HEAD %s: %d, want 404", p, res.StatusCode)
				}
			case m == "HEAD":
				if res.StatusCode != http.StatusOK || len(body) != 0 {
					t.Errorf("HEAD %s: %d with %d bytes", p, res.StatusCode, len(body))
				}
			case res.StatusCode != http.StatusMethodNotAllowed || !strings.Contains(res.Header.Get("Allow"), "GET"):
				t.Errorf("%s %s: %d Allow %q, want 405 with GET allowed", m, p, res.StatusCode, res.Header.Get("Allow"))
			}
		}
	}
}

func TestUnknownAPIPath(t *testing.T) {
	s, _ := newTestServer(t, Config{}, 1)
	res, body := get(t, s.Handler(), "GET", "/api/v2/nodes")
	var e apiError
	decode(t, body, &e)
	if res.StatusCode != http.StatusNotFound || !strings.Contains(e.Error, "/api/v2/nodes") {
		t.Errorf("GET /api/v2/nodes: %d %q", res.StatusCode, e.Error)
	}
	if res, _ := get(t, s.Handler(), "GET", "/nope.html"); res.StatusCode != http.StatusNotFound {
		t.Errorf("GET /nope.html: %d, want 404", res.StatusCode)
	}
}

func TestNewNeedsSource(t *testing.T) {
	if _, err := New(Config{}); !errors.Is(err, ErrNoSource) {
		t.Errorf("New without a Source: %v, want %v", err, ErrNoSource)
	}
}

func mustRequest(t *testing.T, target string) *http.Request {
	t.Helper()
	r, err := http.NewRequest("GET", target, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestStatusCausesAreTheAgents: the page's causes are the groups the agent
// notified (nodeCauseGroup), not a window of its own: two nodes out at
// once in two groups are two causes, a degraded node is none, and a node
// out alone is left to the table.
func TestStatusCausesAreTheAgents(t *testing.T) {
	s, src := newTestServer(t, Config{}, 1)
	snap := *src.Snapshot()
	snap.Nodes = append([]board.Row(nil), snap.Nodes...)
	for k := range snap.Nodes {
		snap.Nodes[k].Status, snap.Nodes[k].LastChange = hiadsd.Faulty, 300
	}
	snap.Nodes[3].Status = hiadsd.Degraded
	snap.Causes = map[uint32]uint32{1: 7, 2: 7, 3: 8, 4: 8}
	src.set(&snap)
	_, body := get(t, s.Handler(), "GET", "/api/v1/status")
	var st Status
	decode(t, body, &st)
	if len(st.Causes) != 1 || st.Causes[0].Nodes != "1-2" || st.Causes[0].Count != 2 || st.Causes[0].Status != "faulty" {
		t.Fatalf("causes %+v, want nodes 1-2 alone (3's group has one node out)", st.Causes)
	}
	snap.Causes = nil
	src.set(&snap)
	_, body = get(t, s.Handler(), "GET", "/api/v1/status")
	st = Status{}
	decode(t, body, &st)
	if len(st.Causes) != 0 {
		t.Errorf("causes %+v with no group notified, want none", st.Causes)
	}
}
