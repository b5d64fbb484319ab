package daemon

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/notify"
	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/agent/state"
	"github.com/diagagent/diagagent/hiadsd"
)

// slowLAN is a fakeLAN whose tests of addr(1), or with fetches its reads
// of it, wait for the test to let them go (a re-test of a peer that has
// just frozen, a read of a loaded peer: seconds), and which takes pushes,
// signalling each.
type slowLAN struct {
	*fakeLAN
	fetches bool
	slow    chan struct{} // set: the ops on addr(1) block until it is closed
	entered chan struct{}
	pushed  chan netip.Addr
}

// newSlowLAN returns a slowLAN whose every peer serves all nodes fault-free.
func newSlowLAN(fetches bool) *slowLAN {
	s := &slowLAN{fakeLAN: newFakeLAN(), fetches: fetches, entered: make(chan struct{}, 1), pushed: make(chan netip.Addr, 64)}
	for k := range 8 {
		s.rows[addr(k)] = allFaultFreeRows(8)
	}
	return s
}

func (s *slowLAN) CanPush() bool { return true }

func (s *slowLAN) Push(_ context.Context, t probe.Target, _ []byte) error {
	s.pushed <- t.Addr
	return nil
}

// wait blocks an op on t while s.slow is set.
func (s *slowLAN) wait(t probe.Target) {
	if t.Addr == addr(1) && s.slow != nil {
		s.entered <- struct{}{}
		<-s.slow
	}
}

func (s *slowLAN) Probe(ctx context.Context, t probe.Target) probe.Result {
	if !s.fetches {
		s.wait(t)
	}
	return s.fakeLAN.Probe(ctx, t)
}

func (s *slowLAN) FetchDiagnosis(ctx context.Context, t probe.Target, lo, hi int) (probe.Fetched, error) {
	if s.fetches {
		s.wait(t)
	}
	return s.fakeLAN.FetchDiagnosis(ctx, t, lo, hi)
}

// pushedTo waits for pushes to n distinct addresses, while (when) the
// interval waits, and returns them.
func (s *slowLAN) pushedTo(t *testing.T, n int, when string) map[netip.Addr]bool {
	t.Helper()
	got := map[netip.Addr]bool{}
	for len(got) < n {
		select {
		case a := <-s.pushed:
			got[a] = true
		case <-time.After(10 * time.Second):
			t.Fatalf("pushed to %v %s; want %d addresses", got, when, n)
		}
	}
	return got
}

// slowDaemon returns agent 1 of 8 on prober lan, on the full plan: every
// interval tests nodes 2, 3 and 5.
func slowDaemon(t *testing.T, lan Prober, s *sink) *Daemon {
	t.Helper()
	cfg := testConfig(t, 8, hiadsd.VCube, notify.Detected)
	cfg.Rotate = false
	d, err := New(Options{Config: cfg, Prober: lan, Board: s.board(), Notifier: s,
		State: state.State{Version: state.FileVersion, Nodes: 8, Counters: make([]uint32, 8)}})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// slowInterval starts an interval of d whose op on node 2 waits (slowLAN)
// and returns once it waits, with a channel closed when the interval ends.
func slowInterval(t *testing.T, d *Daemon, lan *slowLAN) <-chan struct{} {
	t.Helper()
	lan.slow = make(chan struct{})
	done := make(chan struct{})
	go func() { defer close(done); d.interval(context.Background()) }()
	select {
	case <-lan.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the interval never reached node 2")
	}
	return done
}

// TestPushTakenDuringATest: a push that arrives while the agent's interval
// waits on a slow test is passed on at once, not when the interval ends;
// its news about a peer the interval does not test is served at once, and
// its news about the peer under test once the interval is over, after
// that test's verdict.
func TestPushTakenDuringATest(t *testing.T) {
	lan, s := newSlowLAN(false), &sink{}
	d := slowDaemon(t, lan, s)
	d.interval(context.Background()) // every node fault-free
	done := slowInterval(t, d, lan)
	// Node 5 (core id 4) found node 7 faulty and heard node 2 partial; node
	// 1 roots half of its cluster c(4,3) and passes it on in its clusters 1
	// and 2, {2} and the halves of {3, 4}: to nodes 2, 3 and 4.
	p := board.Push{From: 5, Cluster: 3, ListVersion: d.list.Version, ListHash: d.list.Hash,
		Entries: []board.PushEntry{{NodeID: 7, Status: hiadsd.Faulty, Counter: 1}, {NodeID: 2, Status: hiadsd.Partial, Counter: 1}}}
	if err := d.Receive(p); err != nil {
		t.Fatal(err)
	}
	got := lan.pushedTo(t, 3, "while the test of node 2 was waiting")
	if !got[addr(1)] || !got[addr(2)] || !got[addr(3)] {
		t.Fatalf("passed on to %v; want nodes 2, 3 and 4", got)
	}
	if snap := d.Snapshot(); snap.Nodes[6].Status != hiadsd.Faulty || snap.Nodes[1].Status != hiadsd.FaultFree {
		t.Fatalf("node 7 is %v and node 2 %v while the interval waits; want faulty (served at once) and fault-free (under test)",
			snap.Nodes[6].Status, snap.Nodes[1].Status)
	}
	close(lan.slow)
	<-done
	if st := d.Snapshot().Nodes[1].Status; st != hiadsd.Partial {
		t.Fatalf("node 2 is %v after the interval, want the push's partial merged at its end", st)
	}
}

// TestCorroborate: of a push taken during a batch, only a fault verdict
// newer than the agent's own entry, about a peer the batch is testing,
// reaches that peer's test; and a full channel never blocks the loop.
func TestCorroborate(t *testing.T) {
	cfg := testConfig(t, 8, hiadsd.VCube, notify.Detected)
	lan, s := newFakeLAN(), &sink{}
	d, err := New(Options{Config: cfg, Prober: lan, Board: s.board(), Notifier: s,
		State: state.State{Version: state.FileVersion, Nodes: 8, Counters: make([]uint32, 8)}})
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

// TestRepairServedBeforeTheFetch: the test that finds a peer back is
// served and pushed while the interval still waits on its fetches, not
// when the last of them returns.
func TestRepairServedBeforeTheFetch(t *testing.T) {
	lan, s := newSlowLAN(true), &sink{}
	lan.status[addr(1)] = hiadsd.Faulty
	d := slowDaemon(t, lan, s)
	d.interval(context.Background())
	if st := d.Snapshot().Nodes[1].Status; st != hiadsd.Faulty {
		t.Fatalf("node 2 is %v after a test found it down, want faulty", st)
	}
	for len(lan.pushed) > 0 {
		<-lan.pushed
	}
	lan.mu.Lock()
	delete(lan.status, addr(1))
	lan.mu.Unlock()
	done := slowInterval(t, d, lan)
	// Node 1's clusters are {2}, {3, 4} and {5..8}, the last two sent to in
	// halves: the repair goes to 2, 3, 4, 5 and 7.
	if got := lan.pushedTo(t, 5, "while the read of node 2 was waiting"); !got[addr(1)] || !got[addr(2)] || !got[addr(3)] || !got[addr(4)] || !got[addr(6)] {
		t.Fatalf("pushed to %v; want nodes 2, 3, 4, 5 and 7", got)
	}
	if st := d.Snapshot().Nodes[1].Status; st != hiadsd.FaultFree {
		t.Fatalf("node 2 is %v while the interval waits on its read; want the repair served", st)
	}
	close(lan.slow)
	<-done
	if st := d.Snapshot().Nodes[1].Status; st != hiadsd.FaultFree {
		t.Fatalf("node 2 is %v after the interval, want fault-free", st)
	}
}
