package daemon

import (
	"context"
	"errors"
	"testing"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/notify"
	"github.com/diagagent/diagagent/agent/state"
	"github.com/diagagent/diagagent/hiadsd"
)

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
	d.lag.Set(true)
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
