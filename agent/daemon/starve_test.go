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

// TestLaggingAgentMeasuresNothing: an agent whose timer runs late, not yet
// starved, still answers questions, but measures no link: its late reads
// would look like the peer's loss, and the bursts add to the load.
func TestLaggingAgentMeasuresNothing(t *testing.T) {
	cfg := testConfig(t, 4, hiadsd.BruteForce, notify.Detected)
	d := newTestDaemon(t, cfg, newFakeLAN(), &sink{}, state.State{}, nil)
	d.cfg.Vantage = DefaultVantage // the fake LAN asks no other agent: New set it to 0
	d.interval(context.Background())
	if got := d.confirm(); got != hiadsd.ConfirmRequests {
		t.Fatalf("confirm at rest = %d, want %d", got, hiadsd.ConfirmRequests)
	}
	d.lag.SetLagging(true)
	if got := d.confirm(); got != 0 {
		t.Fatalf("confirm while lagging = %d, want 0", got)
	}
	if err := d.OnVantage(board.Vantage{Kind: board.Ask, From: 2, Node: 3, Nonce: 7}); err != nil {
		t.Fatalf("question to a lagging agent: %v, want it queued", err)
	}
	d.lag.SetLagging(false)
	if got := d.confirm(); got != hiadsd.ConfirmRequests {
		t.Fatalf("confirm once the lag is over = %d, want %d", got, hiadsd.ConfirmRequests)
	}
}
