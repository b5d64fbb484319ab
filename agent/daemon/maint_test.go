package daemon

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/diagagent/diagagent/agent/notify"
	"github.com/diagagent/diagagent/agent/state"
	"github.com/diagagent/diagagent/hiadsd"
)

// fakeClock is a clock the test moves.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// TestMaintenanceWindow: node 3 is given a window of a minute and goes
// faulty in it. Every change is muted (the view and the rows still show
// it), the window survives a restart, and when it ends the owner (agent
// 1) sends one diagNodeMaintenanceEnded, faulty since fault-free; agent 2,
// which does not own it, sends none. A second window that ends with the
// status it began with sends nothing.
func TestMaintenanceWindow(t *testing.T) {
	for _, self := range []int{0, 1} {
		cfg := testConfig(t, 4, hiadsd.BruteForce, notify.Detected)
		cfg.Self = self
		lan, s := newFakeLAN(), &sink{}
		clock := &fakeClock{t: time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)}
		d := newTestDaemon(t, cfg, lan, s, state.State{}, clock.now)
		run := func(d *Daemon, n int) {
			for range n {
				d.interval(context.Background())
				clock.add(cfg.Interval)
			}
		}
		run(d, 2)
		if err := d.SetMaintenance(3, clock.now().Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		run(d, 1)
		if w := d.Snapshot().Nodes[2].Maint; !w.Active(clock.now()) || w.Status != hiadsd.FaultFree {
			t.Fatalf("agent %d: node 3's window after the SET: %+v", self+1, w)
		}
		lan.mu.Lock()
		lan.status[addr(2)] = hiadsd.Faulty
		lan.mu.Unlock()
		run(d, 3)
		if st := d.Snapshot().Nodes[2].Status; st != hiadsd.Faulty {
			t.Fatalf("agent %d: node 3 is %v in its window, want faulty: tests go on", self+1, st)
		}
		st, err := state.Load(cfg.StateDir, len(cfg.Nodes))
		if err != nil {
			t.Fatal(err)
		}
		d = newTestDaemon(t, cfg, lan, s, st, clock.now) // a restart within the window
		if !d.inMaintenance(2) {
			t.Fatalf("agent %d: the window did not survive a restart", self+1)
		}
		run(d, 3)
		s.mu.Lock()
		for _, e := range s.events {
			t.Errorf("agent %d: a change of node 3 notified in its window: %+v", self+1, e)
		}
		s.mu.Unlock()
		clock.add(time.Minute)
		run(d, 3)
		s.mu.Lock()
		got := append(s.maint[:0:0], s.maint...)
		s.mu.Unlock()
		switch {
		case self == 0 && (len(got) != 1 || got[0].Node != 3 || got[0].Status != hiadsd.Faulty || got[0].Began != hiadsd.FaultFree):
			t.Fatalf("owner: diagNodeMaintenanceEnded %+v, want one, faulty since fault-free", got)
		case self == 1 && len(got) != 0:
			t.Fatalf("agent 2, not the owner: diagNodeMaintenanceEnded %+v, want none", got)
		}
		if err := d.SetMaintenance(3, clock.now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		run(d, 2)
		if err := d.SetMaintenance(3, time.Time{}); err != nil {
			t.Fatal(err)
		}
		run(d, 2)
		s.mu.Lock()
		if len(s.maint) != len(got) || len(s.events) != 0 {
			t.Errorf("agent %d: a window that ended as it began: %+v, events %+v; want nothing more", self+1, s.maint[len(got):], s.events)
		}
		s.mu.Unlock()
		if d.inMaintenance(2) || d.list.Version != 1 {
			t.Errorf("agent %d: after the end: open %v, list version %d (want 1: a window set over the one held replaces it)", self+1, d.inMaintenance(2), d.list.Version)
		}
	}
}
