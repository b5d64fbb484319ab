package notify

import (
	"context"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
	"github.com/diagagent/diagagent/traps"
)

// fakeAgent is the View, Host, Prober and Notifier of a policy under test:
// n nodes, this agent the first, every node up but those set otherwise.
type fakeAgent struct {
	mu       sync.Mutex
	now      time.Time
	statuses []hiadsd.Status
	events   []mib.Event
	causes   []traps.Cause
}

func newFakeAgent(n int) *fakeAgent {
	a := &fakeAgent{now: time.Date(2026, 11, 29, 4, 0, 0, 0, time.UTC), statuses: make([]hiadsd.Status, n)}
	for k := range a.statuses {
		a.statuses[k] = hiadsd.FaultFree
	}
	return a
}

func (a *fakeAgent) Self() int { return 0 }
func (a *fakeAgent) Size() int { return len(a.statuses) }
func (a *fakeAgent) Status(id int) hiadsd.Status {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.statuses[id]
}
func (a *fakeAgent) Member(id int) nodelist.Member { return nodelist.Member{Addr: addr(id)} }
func (a *fakeAgent) InMaintenance(int) bool        { return false }
func (a *fakeAgent) Mute(int) string               { return "" }
func (a *fakeAgent) Withholds() bool               { return false }
func (a *fakeAgent) Isolated() bool                { return false }
func (a *fakeAgent) SavedSeq() uint32              { return 1 << 30 }
func (a *fakeAgent) RepublishCauses()              {}

func (a *fakeAgent) Now() time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.now
}

func (a *fakeAgent) Snapshot() *board.Snapshot {
	a.mu.Lock()
	defer a.mu.Unlock()
	rows := make([]board.Row, len(a.statuses))
	for k, st := range a.statuses {
		rows[k] = board.Row{ID: uint32(k + 1), Member: a.Member(k), Status: st, Counter: 1}
	}
	return &board.Snapshot{Nodes: rows, Self: 1}
}

func (a *fakeAgent) Probe(_ context.Context, t probe.Target) probe.Result {
	return probe.Result{Status: hiadsd.FaultFree}
}

func (a *fakeAgent) NodeStatusChange(e mib.Event) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.events = append(a.events, e)
	return nil
}

func (a *fakeAgent) CauseChange(c traps.Cause) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.causes = append(a.causes, c)
	return nil
}

func (a *fakeAgent) NodeFlapping(traps.Flapping) error                 { return nil }
func (a *fakeAgent) NodeMaintenanceEnded(traps.MaintenanceEnded) error { return nil }

func addr(id int) netip.Addr { return netip.AddrFrom4([4]byte{198, 18, 0, byte(id + 1)}) }

// newTestPolicy builds a policy over a, owner scope, grouping in window.
func newTestPolicy(a *fakeAgent, window time.Duration) *Policy {
	return New(Options{Config: Config{Scope: Owner, GroupWindow: window, Interval: 2 * time.Second, TestBudget: time.Second,
		Algorithm: hiadsd.VCube}, Notifier: a, View: a, Host: a, Prober: a, Start: a.Now()}, a.Size())
}

// fault records node id (core) faulty, tested here, as the daemon does.
func fault(p *Policy, a *fakeAgent, id int, seq uint32) {
	a.mu.Lock()
	a.statuses[id] = hiadsd.Faulty
	a.mu.Unlock()
	u := hiadsd.Update{ID: id, Old: hiadsd.Entry{Status: hiadsd.FaultFree, Counter: 1},
		New: hiadsd.Entry{Status: hiadsd.Faulty, Counter: 2}, From: hiadsd.Direct}
	e := Event{Row: mib.Event{Seq: seq, NodeID: uint32(id + 1), Addr: addr(id), Status: hiadsd.Faulty,
		Prev: hiadsd.FaultFree, Counter: 2, How: mib.SourceDirect, Detector: 1}, Update: u, Notify: p.Notifies(u)}
	p.Recorded(e, a.Now())
	p.Announce(e)
}

// TestStopSendsWaitingCauses: an agent that stops sends what waits for its
// window, cut short, rather than losing it; a group as one cause.
func TestStopSendsWaitingCauses(t *testing.T) {
	a := newFakeAgent(4)
	p := newTestPolicy(a, time.Hour)
	fault(p, a, 2, 1)
	fault(p, a, 3, 2)
	p.Wait() // the sweep: nodes 1 and 2 answer, so the faults wait for nothing but the window
	p.Settle(a.Now(), nil)
	if len(a.causes) != 0 || len(a.events) != 0 {
		t.Fatalf("sent before the window closed: %+v %+v", a.causes, a.events)
	}
	p.Stop()
	if len(a.causes) != 1 || a.causes[0].Kind != mib.CauseLost || len(a.causes[0].Nodes) != 2 {
		t.Fatalf("want the loss of 3-4 at stop, one cause; got %+v, events %+v", a.causes, a.events)
	}
	if g := p.CauseGroups(); g[3] == 0 || g[3] != g[4] {
		t.Errorf("nodeCauseGroup after the loss: %v, want 3 and 4 in one group", g)
	}
}

// TestANodeAloneIsItsOwnNotification: a node lost alone goes out as its
// own diagNodeStatusChange once the window closes, never as a cause.
func TestANodeAloneIsItsOwnNotification(t *testing.T) {
	a := newFakeAgent(4)
	p := newTestPolicy(a, 3*time.Second)
	fault(p, a, 2, 1)
	p.Wait()
	a.mu.Lock()
	a.now = a.now.Add(10 * time.Second)
	a.mu.Unlock()
	p.Settle(a.Now(), nil)
	if len(a.events) != 1 || a.events[0].NodeID != 3 || len(a.causes) != 0 {
		t.Fatalf("events %+v, causes %+v; want node 3's change alone", a.events, a.causes)
	}
}

func TestSubnetOf(t *testing.T) {
	a := func(s string) netip.Addr { return netip.MustParseAddr(s) }
	for _, c := range []struct {
		in   []netip.Addr
		want string
	}{
		{[]netip.Addr{a("198.18.0.17"), a("198.18.0.24")}, "198.18.0.16/28"},
		{[]netip.Addr{a("198.18.0.17"), a("198.18.0.18")}, "198.18.0.16/30"},
		{[]netip.Addr{a("198.18.0.17")}, "198.18.0.17/32"},
		{[]netip.Addr{a("10.0.0.1"), a("fd00::1")}, ""},
		{nil, ""},
	} {
		if got := subnetOf(c.in); got != c.want {
			t.Errorf("subnetOf(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}
