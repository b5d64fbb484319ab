package daemon

import (
	"context"
	"testing"

	"github.com/diagagent/diagagent/agent/notify"
	"github.com/diagagent/diagagent/agent/state"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// TestFlappingNotifiedOnceEachWay: node 3 goes partial two intervals of
// every three. Its first changes are notified one by one; once it flaps
// (above 20% of weighted change over the view's last 21 samples) the owner
// (agent 1, the fault-free agent of the lowest id) sends one
// diagNodeFlapping, no change is notified while it flaps, nodeFlapping
// and the metric's row say so, and when it holds still one more
// diagNodeFlapping says it stopped, with the status it settled at.
func TestFlappingNotifiedOnceEachWay(t *testing.T) {
	cfg := testConfig(t, 4, hiadsd.BruteForce, notify.Detected)
	lan, s := newFakeLAN(), &sink{}
	d := newTestDaemon(t, cfg, lan, s, state.State{}, nil)
	run := func(st hiadsd.Status, n int) {
		for range n {
			lan.mu.Lock()
			lan.status[addr(2)] = st
			lan.mu.Unlock()
			d.interval(context.Background())
		}
	}
	run(hiadsd.FaultFree, 3)
	for range 8 {
		run(hiadsd.Partial, 2)
		run(hiadsd.FaultFree, 1)
	}
	s.mu.Lock()
	if len(s.flaps) != 1 || !s.flaps[0].Flapping || s.flaps[0].Node != 3 {
		t.Fatalf("diagNodeFlapping after node 3 went partial 8 times: %+v, want one start", s.flaps)
	}
	before := len(s.events)
	s.mu.Unlock()
	if before > 6 {
		t.Errorf("%d status notifications before node 3 flapped, want at most its first changes", before)
	}
	if snap := d.Snapshot(); !snap.Nodes[2].Flapping || snap.Nodes[1].Flapping {
		t.Errorf("nodeFlapping: node 2 %v, node 3 %v; want node 3 alone", snap.Nodes[1].Flapping, snap.Nodes[2].Flapping)
	}
	run(hiadsd.Partial, 2)
	run(hiadsd.FaultFree, 25)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.flaps) != 2 || s.flaps[1].Flapping || s.flaps[1].Status != hiadsd.FaultFree {
		t.Fatalf("once node 3 holds still: %+v, want a stop at fault-free", s.flaps)
	}
	for _, e := range s.events[before:] {
		t.Errorf("a change notified while node 3 flapped: %+v", e)
	}
	if d.Snapshot().Nodes[2].Flapping || mib.DiagStatus(d.Snapshot().Nodes[2].Status) != 0 {
		t.Error("node 3 still flapping, or not fault-free, at the end")
	}
}

// TestExtraIntervalsAreNoSamples: intervals beyond the plan's (a hello's,
// a cut-off agent's quick retries) are no flapping samples, so a node
// that changes in many of them within one planned interval (an agent
// starting last among many) does not flap.
func TestExtraIntervalsAreNoSamples(t *testing.T) {
	cfg := testConfig(t, 4, hiadsd.BruteForce, notify.Detected)
	lan, s := newFakeLAN(), &sink{}
	d := newTestDaemon(t, cfg, lan, s, state.State{}, nil)
	for k := range 30 {
		lan.mu.Lock()
		lan.status[addr(2)] = []hiadsd.Status{hiadsd.Partial, hiadsd.FaultFree}[k%2]
		lan.mu.Unlock()
		d.extra = true
		d.interval(context.Background())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.flaps) != 0 || d.Snapshot().Nodes[2].Flapping {
		t.Errorf("node 3 changed in 30 extra intervals: %+v, want no flapping", s.flaps)
	}
}

// TestPushesAreNoSamples: pushes merged between intervals record what they
// bring but are no flapping samples: a node pushed up and down many times
// between two intervals does not flap (they count one change at the next
// sample, TestUndoneChangesFlap).
func TestPushesAreNoSamples(t *testing.T) {
	cfg := testConfig(t, 4, hiadsd.BruteForce, notify.Detected)
	lan, s := newFakeLAN(), &sink{}
	d := newTestDaemon(t, cfg, lan, s, state.State{}, nil)
	d.interval(context.Background())
	for k := range 30 {
		e := d.view[2]
		e.Status, e.Counter = []hiadsd.Status{hiadsd.Partial, hiadsd.FaultFree}[k%2], e.Counter+1
		d.view[2] = e
		d.record(hiadsd.Report{})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.flaps) != 0 {
		t.Errorf("30 records between intervals: %+v, want no flapping sample", s.flaps)
	}
}

// TestUndoneChangesFlap: node 3 is pushed partial and fault-free again
// between every two planned intervals, so every sample shows it
// fault-free; it flaps all the same, and its owner says so once.
func TestUndoneChangesFlap(t *testing.T) {
	cfg := testConfig(t, 4, hiadsd.BruteForce, notify.Detected)
	lan, s := newFakeLAN(), &sink{}
	d := newTestDaemon(t, cfg, lan, s, state.State{}, nil)
	d.interval(context.Background())
	for range 12 {
		for _, st := range []hiadsd.Status{hiadsd.Partial, hiadsd.FaultFree} {
			old := d.view[2]
			e := hiadsd.Entry{Status: st, Counter: old.Counter + 1}
			d.view[2] = e
			d.record(hiadsd.Report{Updates: []hiadsd.Update{{ID: 2, From: 1, Old: old, New: e}}})
		}
		d.interval(context.Background())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.flaps) != 1 || !s.flaps[0].Flapping || s.flaps[0].Node != 3 {
		t.Errorf("node 3 partial and back between each of 12 intervals: %+v, want one flapping start", s.flaps)
	}
}
