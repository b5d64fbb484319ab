package daemon

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/notify"
	"github.com/diagagent/diagagent/agent/state"
	"github.com/diagagent/diagagent/hiadsd"
)

// runMeter feeds m ticks lagTick apart, each late by late, for span, and
// returns the judgements it changed to, in order.
func runMeter(m *lagMeter, at *time.Time, span, late time.Duration) []bool {
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
	var m lagMeter
	at := time.Unix(1e9, 0)
	m.tick(at, 0)
	if got := runMeter(&m, &at, time.Minute, time.Millisecond); len(got) != 0 {
		t.Fatalf("ticks 1 ms late for a minute changed the judgement: %v", got)
	}
	// 60 ms late every 100 ms: 37% of the time lost, starved within a window.
	began := at
	if got := runMeter(&m, &at, 2*lagWindow, 60*time.Millisecond); len(got) != 1 || !got[0] {
		t.Fatalf("37%% of the time lost: changes %v, want [starved]", got)
	}
	if took := at.Sub(began); took > 2*lagWindow+time.Second {
		t.Fatalf("starved after %v", took)
	}
	// 15% lost: between the two marks, it stays starved.
	if got := runMeter(&m, &at, time.Minute, 18*time.Millisecond); len(got) != 0 || !m.starved {
		t.Fatalf("15%% lost while starved: changes %v, starved %v", got, m.starved)
	}
	// 5% lost: it catches up after lagCalm whole windows, not one, and a
	// window of 37% among them starts the count again.
	if got := runMeter(&m, &at, (lagCalm-1)*lagWindow, 5*time.Millisecond); len(got) != 0 {
		t.Fatalf("5%% lost for %d windows: changes %v", lagCalm-1, got)
	}
	runMeter(&m, &at, lagWindow, 60*time.Millisecond)
	if got := runMeter(&m, &at, (lagCalm-1)*lagWindow, 5*time.Millisecond); len(got) != 0 {
		t.Fatalf("5%% lost for %d windows after a starved one: changes %v", lagCalm-1, got)
	}
	if got := runMeter(&m, &at, 2*lagWindow, 5*time.Millisecond); len(got) != 1 || got[0] {
		t.Fatalf("5%% lost while starved: changes %v, want [not starved]", got)
	}
	// 15% lost from rest: not starved.
	if got := runMeter(&m, &at, time.Minute, 18*time.Millisecond); len(got) != 0 {
		t.Fatalf("15%% lost at rest: changes %v", got)
	}
	// A process stopped for 30 s and resumed: one gap, counted as lagGapCap.
	at = at.Add(30 * time.Second)
	if m.tick(at, 30*time.Second) || m.starved {
		t.Fatal("a freeze's one gap made the agent starved")
	}
	if got := runMeter(&m, &at, time.Minute, time.Millisecond); len(got) != 0 {
		t.Fatalf("after a freeze: changes %v", got)
	}
}

// TestStarvedAgentDoesLess: while starved, the agent refuses other agents'
// questions, and its tests count no loss into its own health.
func TestStarvedAgentDoesLess(t *testing.T) {
	cfg := testConfig(t, 4, hiadsd.BruteForce, notify.Detected)
	lan, s := newFakeLAN(), &sink{}
	d := newTestDaemon(t, cfg, lan, s, state.State{}, nil)
	d.interval(context.Background())
	ask := board.Vantage{Kind: board.Ask, From: 2, Node: 3, Nonce: 7}
	if err := d.OnVantage(ask); err != nil {
		t.Fatalf("question to an agent at rest: %v", err)
	}
	if sent, lost := d.lossSamples(24, 12); sent != 24 || lost != 12 {
		t.Fatalf("loss samples at rest: %d sent, %d lost", sent, lost)
	}
	d.starve.on.Store(true)
	if err := d.OnVantage(ask); !errors.Is(err, ErrVantageBusy) {
		t.Fatalf("question to a starved agent: %v, want ErrVantageBusy", err)
	}
	if sent, lost := d.lossSamples(24, 12); sent != 0 || lost != 0 {
		t.Fatalf("loss samples while starved: %d sent, %d lost, want none", sent, lost)
	}
	if d.measure() != 0 || d.confirm() != 0 {
		t.Fatalf("a starved agent measures: measure %d, confirm %d", d.measure(), d.confirm())
	}
}
