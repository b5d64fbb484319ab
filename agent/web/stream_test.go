package web

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/hiadsd"
)

// sseReader reads the "state" messages of an event stream.
type sseReader struct {
	t    *testing.T
	sc   *bufio.Scanner
	msgs chan State
}

// openStream connects to url and reads its messages on a goroutine until ctx ends.
func openStream(t *testing.T, ctx context.Context, url string) *sseReader {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	if ct := res.Header.Get("Content-Type"); res.StatusCode != http.StatusOK || ct != "text/event-stream" {
		t.Fatalf("stream: %d %q", res.StatusCode, ct)
	}
	r := &sseReader{t: t, sc: bufio.NewScanner(res.Body), msgs: make(chan State, 16)}
	r.sc.Buffer(nil, 1<<22)
	go r.read()
	return r
}

func (r *sseReader) read() {
	defer close(r.msgs)
	event := ""
	for r.sc.Scan() {
		line := r.sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: ") && event == "state":
			var st State
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &st); err != nil {
				r.t.Errorf("stream data: %v", err)
				return
			}
			r.msgs <- st
		}
	}
}

// next waits for the next message, at most d.
func (r *sseReader) next(d time.Duration) State {
	r.t.Helper()
	select {
	case st, ok := <-r.msgs:
		if !ok {
			r.t.Fatal("stream ended")
		}
		return st
	case <-time.After(d):
		r.t.Fatalf("no stream message within %v", d)
	}
	return State{}
}

func TestStreamSendsStateThenEveryChange(t *testing.T) {
	s, src := newTestServer(t, Config{}, 1)
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := openStream(t, ctx, srv.URL+"/api/v1/stream")
	if st := r.next(5 * time.Second); st.Nodes[1].Status != "fault-free" || len(st.Events) != 3 {
		t.Fatalf("first message: %+v", st)
	}
	next := *src.Snapshot()
	next.Nodes = append([]board.Row(nil), next.Nodes...)
	next.Nodes[1].Status = hiadsd.Faulty
	src.set(&next)
	src.wake()
	if st := r.next(5 * time.Second); st.Nodes[1].Status != "faulty" || st.Status.Counts["faulty"] != 1 {
		t.Fatalf("after the change: %+v", st.Nodes[1])
	}
	src.wake() // no new snapshot: nothing is sent
	select {
	case st := <-r.msgs:
		t.Errorf("message without a new snapshot: %+v", st.Status)
	case <-time.After(3 * minGap):
	}
}

func TestStreamHeartbeat(t *testing.T) {
	s, _ := newTestServer(t, Config{Heartbeat: 10 * time.Millisecond}, 1)
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/api/v1/stream", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		if sc.Text() == ": alive" {
			return
		}
	}
	t.Fatalf("no heartbeat comment before the stream ended: %v", sc.Err())
}
