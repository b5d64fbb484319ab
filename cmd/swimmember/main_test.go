package main

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/memberlist"
)

// syncBuffer is a bytes.Buffer the members' goroutines and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// member starts member id on loopback at a port of its own, its timers
// scaled to a 100 ms probe, printing into out.
func member(t *testing.T, id int, out *syncBuffer) (*memberlist.Memberlist, *view) {
	t.Helper()
	p := &printer{self: id, w: out}
	v := &view{out: p, states: map[int]string{}, polled: map[string]memberlist.NodeStateType{}}
	cfg := memberlist.DefaultLANConfig()
	scale(cfg, 100*time.Millisecond)
	cfg.Name = strconv.Itoa(id)
	cfg.BindAddr, cfg.AdvertiseAddr = "127.0.0.1", "127.0.0.1"
	cfg.BindPort, cfg.AdvertisePort = 0, 0
	cfg.Events = v
	cfg.LogOutput = &logScanner{out: p}
	m, err := memberlist.Create(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m, v
}

// TestPollReadsTheTable: the poll reads memberlist's unexported node table
// at the offsets findTable found, and a member that stops answering is
// printed suspect (from the poll) before it is printed dead (from the
// delegate), as the harness counts them.
func TestPollReadsTheTable(t *testing.T) {
	tb, err := findTable()
	if err != nil {
		t.Fatal(err)
	}
	var out1, out2 syncBuffer
	m1, v1 := member(t, 1, &out1)
	defer m1.Shutdown()
	m2, _ := member(t, 2, &out2)
	if _, err := m2.Join([]string{m1.LocalNode().FullAddress().Addr}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for m1.NumMembers() < 2 { // member 1 merges member 2's state after answering its join
		if time.Now().After(deadline) {
			t.Fatal("member 1 never learned member 2")
		}
		time.Sleep(10 * time.Millisecond)
	}
	seen := map[string]memberlist.NodeStateType{}
	tb.read(m1, func(name string, st memberlist.NodeStateType) { seen[name] = st })
	if len(seen) != 2 || seen["1"] != memberlist.StateAlive || seen["2"] != memberlist.StateAlive {
		t.Fatalf("the table read %v, want members 1 and 2 alive", seen)
	}
	m2.Shutdown() // no leave: it just stops answering
	deadline = time.Now().Add(30 * time.Second)
	for !strings.Contains(out1.String(), `"new":"dead"`) {
		if time.Now().After(deadline) {
			t.Fatalf("member 1 never printed member 2 dead:\n%s", out1.String())
		}
		v1.poll(tb, m1)
		time.Sleep(10 * time.Millisecond)
	}
	got := out1.String()
	suspect, dead := strings.Index(got, `"new":"suspect","node":2,"old":"alive"`), strings.Index(got, `"new":"dead"`)
	if suspect < 0 || suspect > dead {
		t.Errorf("member 2 was not printed suspect before dead:\n%s", got)
	}
	if !strings.Contains(got, `"msg":"suspicion raised","node":2,"self":1`) {
		t.Errorf("member 1's probe raised no suspicion in its log:\n%s", got)
	}
}
