package web

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestServeStopsWithItsContext serves on a real socket with an event stream
// open and checks that cancelling the context ends both promptly.
func TestServeStopsWithItsContext(t *testing.T) {
	s, _ := newTestServer(t, Config{}, 1)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	url := "http://" + ln.Addr().String()
	res, err := http.Get(url + "/api/v1/status")
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/v1/status: %v %v", res, err)
	}
	res.Body.Close()
	streamCtx, streamCancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer streamCancel()
	r := openStream(t, streamCtx, url+"/api/v1/stream")
	r.next(5 * time.Second)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(shutdownGrace + 5*time.Second):
		t.Fatal("Serve did not return after its context ended")
	}
	select {
	case _, open := <-r.msgs:
		if open {
			t.Error("a message after shutdown")
		}
	case <-time.After(5 * time.Second):
		t.Error("the event stream stayed open after shutdown")
	}
}

func TestServeReportsAClosedListener(t *testing.T) {
	s, _ := newTestServer(t, Config{}, 1)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	if err := s.Serve(context.Background(), ln); err == nil {
		t.Error("Serve on a closed listener returned nil")
	}
}
