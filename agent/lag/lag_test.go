package lag

import (
	"testing"
	"time"
)

// runMeter feeds m ticks lagTick apart, each late by late, for span, and
// returns the judgements it changed to, in order.
func runMeter(m *meter, at *time.Time, span, late time.Duration) []bool {
	var changes []bool
	for end := at.Add(span); at.Before(end); {
		*at = at.Add(lagTick + late)
		if m.tick(*at, late) {
			changes = append(changes, m.starved)
		}
	}
	return changes
}

func TestLagMeter(t *testing.T) {
	var m meter
	at := time.Unix(1e9, 0)
	m.tick(at, 0)
	if got := runMeter(&m, &at, time.Minute, time.Millisecond); len(got) != 0 {
		t.Fatalf("ticks 1 ms late for a minute changed the judgement: %v", got)
	}
	// Each tick 60 ms late: 60% of lagRef lost, starved within a window.
	began := at
	if got := runMeter(&m, &at, 2*lagWindow, 60*time.Millisecond); len(got) != 1 || !got[0] {
		t.Fatalf("60%% lost: changes %v, want [starved]", got)
	}
	if took := at.Sub(began); took > 2*lagWindow+time.Second {
		t.Fatalf("starved after %v", took)
	}
	// 18% lost: between the two marks, it stays starved.
	if got := runMeter(&m, &at, time.Minute, 18*time.Millisecond); len(got) != 0 || !m.starved {
		t.Fatalf("18%% lost while starved: changes %v, starved %v", got, m.starved)
	}
	// 5% lost: it catches up after lagCalm whole windows, not one, and a
	// window of 60% among them starts the count again.
	if got := runMeter(&m, &at, (lagCalm-1)*lagWindow, 5*time.Millisecond); len(got) != 0 {
		t.Fatalf("5%% lost for %d windows: changes %v", lagCalm-1, got)
	}
	if !m.recovering() {
		t.Fatal("starved after calm windows: not recovering")
	}
	runMeter(&m, &at, lagWindow, 60*time.Millisecond)
	if m.recovering() {
		t.Fatal("a window of 60% lost: still recovering")
	}
	if got := runMeter(&m, &at, (lagCalm-1)*lagWindow, 5*time.Millisecond); len(got) != 0 {
		t.Fatalf("5%% lost for %d windows after a starved one: changes %v", lagCalm-1, got)
	}
	if got := runMeter(&m, &at, 2*lagWindow, 5*time.Millisecond); len(got) != 1 || got[0] {
		t.Fatalf("5%% lost while starved: changes %v, want [not starved]", got)
	}
	if m.recovering() {
		t.Fatal("no longer starved: still recovering")
	}
	// 18% lost from rest: not starved.
	if got := runMeter(&m, &at, time.Minute, 18*time.Millisecond); len(got) != 0 {
		t.Fatalf("18%% lost at rest: changes %v", got)
	}
	// A process stopped for 30 s and resumed: one gap, counted as lagRef.
	at = at.Add(30 * time.Second)
	if m.tick(at, 30*time.Second) || m.starved {
		t.Fatal("a freeze's one gap made the agent starved")
	}
	if got := runMeter(&m, &at, time.Minute, time.Millisecond); len(got) != 0 {
		t.Fatalf("after a freeze: changes %v", got)
	}
}

// TestOverdueTickIsAStop: a tick overdue by a second is a stop the watch
// has not yet measured (the goroutine asking resumed before the timer's),
// counted from the test's start when it fell due before; overdue by less, or
// without Run, it is none. An overdue tick is no late one (LateSince).
func TestOverdueTickIsAStop(t *testing.T) {
	var w Watch
	now := time.Now()
	if w.StoppedSince(now.Add(-time.Hour)) {
		t.Fatal("a watch not running says the agent stopped")
	}
	w.due.Store(now.Add(-2 * stopTick).UnixNano())
	for _, c := range []struct {
		began   time.Time
		stopped bool
	}{
		{now.Add(-time.Hour), true},     // due after the test began, two seconds ago
		{now.Add(-stopTick / 2), false}, // due before it began: half a second since
	} {
		if got := w.StoppedSince(c.began); got != c.stopped {
			t.Errorf("a tick due %v ago, a test begun %v ago: stopped %v, want %v", 2*stopTick, time.Since(c.began).Round(time.Millisecond), got, c.stopped)
		}
	}
	if w.LateSince(now.Add(-time.Hour)) {
		t.Error("a tick overdue, not yet fired, counted as a late one")
	}
}
