package nodelist

import (
	"context"
	"errors"
	"io"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
)

type moves struct {
	mu  sync.Mutex
	got map[int]netip.Addr
	ch  chan struct{}
}

func (m *moves) SetAddress(id int, a netip.Addr) {
	m.mu.Lock()
	m.got[id] = a
	m.mu.Unlock()
	m.ch <- struct{}{}
}

// TestFollowHosts: a host name that resolves elsewhere is handed on once,
// one that stops resolving keeps its address, and address-given nodes are
// never looked up.
func TestFollowHosts(t *testing.T) {
	var mu sync.Mutex
	answer := map[string][]netip.Addr{"ws-01.lan": {netip.MustParseAddr("192.0.2.1")}}
	lookups := map[string]int{}
	lookup := func(_ context.Context, host string) ([]netip.Addr, error) {
		mu.Lock()
		defer mu.Unlock()
		lookups[host]++
		if a, ok := answer[host]; ok {
			return a, nil
		}
		return nil, errors.New("no such host")
	}
	cfg := Default()
	cfg.ResolveInterval = 5 * time.Millisecond
	nodes := []Member{{Host: "ws-01.lan", Addr: netip.MustParseAddr("192.0.2.1")},
		{Host: "gone.lan", Addr: netip.MustParseAddr("192.0.2.2")}, {Addr: netip.MustParseAddr("192.0.2.3")}}
	m := &moves{got: map[int]netip.Addr{}, ch: make(chan struct{}, 4)}
	l := logrus.New()
	l.SetOutput(io.Discard)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { cfg.Follow(ctx, nodes, lookup, m.SetAddress, logrus.NewEntry(l)); close(done) }()
	mu.Lock()
	answer["ws-01.lan"] = []netip.Addr{netip.MustParseAddr("2001:db8::1")}
	mu.Unlock()
	select {
	case <-m.ch:
	case <-time.After(10 * time.Second):
		t.Fatal("the change of ws-01.lan was never handed on")
	}
	// Let a few more rounds pass: no second move, gone.lan keeps its address.
	for {
		mu.Lock()
		n := lookups["ws-01.lan"]
		mu.Unlock()
		if n >= 5 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	<-done
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.got) != 1 || m.got[0] != netip.MustParseAddr("2001:db8::1") || len(m.ch) != 0 {
		t.Errorf("moves %v (%d more calls), want node 0 to 2001:db8::1, once", m.got, len(m.ch))
	}
	if lookups["192.0.2.3"] != 0 || lookups["gone.lan"] == 0 {
		t.Errorf("lookups %v", lookups)
	}
}
