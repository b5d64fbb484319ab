package daemon

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/hiadsd"
)

// slowLAN is a fakeLAN whose tests of one address wait for the test to let
// them go, as a re-test of a peer that has just frozen waits seconds, and
// which takes pushes, signalling each.
type slowLAN struct {
	*fakeLAN
	slow    chan struct{} // set: tests of addr(1) block until it is closed
	entered chan struct{}
	pushed  chan netip.Addr
}

func (s *slowLAN) CanPush() bool { return true }

func (s *slowLAN) Push(_ context.Context, t probe.Target, _ []byte) error {
	s.pushed <- t.Addr
	return nil
}

func (s *slowLAN) Probe(ctx context.Context, t probe.Target) probe.Result {
	if t.Addr == addr(1) && s.slow != nil {
		s.entered <- struct{}{}
		<-s.slow
	}
	return s.fakeLAN.Probe(ctx, t)
}

// TestPushTakenDuringATest: a push that arrives while the agent's interval
// waits on a slow test is passed on at once, not when the interval ends,
// and merged (served) once the interval is over, after the verdicts of the
// tests that were under way.
func TestPushTakenDuringATest(t *testing.T) {
	cfg := testConfig(t, 8, hiadsd.VCube, NotifyDetected)
	cfg.Rotate = false // every interval tests node 2
	lan, s := &slowLAN{fakeLAN: newFakeLAN(), entered: make(chan struct{}, 1), pushed: make(chan netip.Addr, 8)}, &sink{}
	for k := range 8 { // the first interval tests its plan and reads the rest
		lan.rows[addr(k)] = allFaultFreeRows(8)
	}
	d, err := New(Options{Config: cfg, Prober: lan, Board: s.board(), Notifier: s,
		State: State{Version: stateVersion, Nodes: 8, Counters: make([]uint32, 8)}})
	if err != nil {
		t.Fatal(err)
	}
	d.interval(context.Background()) // every node fault-free
	lan.slow = make(chan struct{})
	done := make(chan struct{})
	go func() { defer close(done); d.interval(context.Background()) }()
	select {
	case <-lan.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the interval never tested node 2")
	}
	// Node 5 (core id 4) found node 7 faulty; node 1 is in its cluster c(4,3)
	// and passes it on in its clusters 1 and 2: to nodes 2 and 3.
	p := board.Push{From: 5, Cluster: 3, ListVersion: d.list.Version, ListHash: d.list.Hash,
		Entries: []board.PushEntry{{NodeID: 7, Status: hiadsd.Faulty, Counter: 1}}}
	if err := d.Receive(p); err != nil {
		t.Fatal(err)
	}
	got := map[netip.Addr]bool{}
	for len(got) < 2 {
		select {
		case a := <-lan.pushed:
			got[a] = true
		case <-time.After(10 * time.Second):
			t.Fatalf("passed on to %v while the test of node 2 was waiting; want nodes 2 and 3", got)
		}
	}
	if !got[addr(1)] || !got[addr(2)] {
		t.Fatalf("passed on to %v; want nodes 2 and 3", got)
	}
	if st := d.Snapshot().Nodes[6].Status; st != hiadsd.FaultFree {
		t.Fatalf("node 7 is %v while the interval waits; the push is merged at its end", st)
	}
	close(lan.slow)
	<-done
	if st := d.Snapshot().Nodes[6].Status; st != hiadsd.Faulty {
		t.Fatalf("node 7 is %v after the interval, want faulty", st)
	}
}

// TestCorroborate: of a push taken during a batch, only a fault verdict
// newer than the agent's own entry, about a peer the batch is testing,
// reaches that peer's test; and a full channel never blocks the loop.
func TestCorroborate(t *testing.T) {
	cfg := testConfig(t, 8, hiadsd.VCube, NotifyDetected)
	lan, s := newFakeLAN(), &sink{}
	d, err := New(Options{Config: cfg, Prober: lan, Board: s.board(), Notifier: s,
		State: State{Version: stateVersion, Nodes: 8, Counters: make([]uint32, 8)}})
	if err != nil {
		t.Fatal(err)
	}
	d.interval(context.Background()) // every node fault-free, counter 0
	peers := map[int]chan hiadsd.Status{1: make(chan hiadsd.Status, 1), 2: make(chan hiadsd.Status, 1), 3: make(chan hiadsd.Status, 1)}
	p := hiadsd.Push{To: 0, Cluster: 3, Entries: []hiadsd.IDEntry{
		{ID: 1, Entry: hiadsd.Entry{Status: hiadsd.Partial, Counter: 1}},   // newer fault: taken
		{ID: 2, Entry: hiadsd.Entry{Status: hiadsd.FaultFree, Counter: 2}}, // not a fault
		{ID: 3, Entry: hiadsd.Entry{Status: hiadsd.Faulty, Counter: 0}},    // newer: on equal counters the worse verdict wins
		{ID: 5, Entry: hiadsd.Entry{Status: hiadsd.Faulty, Counter: 1}},    // not under test
	}}
	d.corroborate(p, peers)
	d.corroborate(p, peers) // the second finds the channels full and moves on
	select {
	case st := <-peers[1]:
		if st != hiadsd.Partial {
			t.Errorf("node 2's test got %v, want partial", st)
		}
	default:
		t.Error("node 2's test got nothing")
	}
	if len(peers[2]) != 0 {
		t.Error("a fault-free entry reached node 3's test")
	}
	if len(peers[3]) != 1 {
		t.Error("node 4's test did not get the faulty verdict that wins the tie")
	}
}
