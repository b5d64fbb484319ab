package daemon

import (
	"testing"
	"time"

	"github.com/diagagent/diagagent/agent/notify"
	"github.com/diagagent/diagagent/agent/state"
	"github.com/diagagent/diagagent/hiadsd"
)

// TestRoundsAgreeAcrossAgents: under the rotating plan, agents that start
// their intervals at their own staggered instants of the same round test
// the same cluster, the clusters turn 1..log2 N with the rounds, and an
// agent whose interval overran waits for the next round's start rather
// than running the one it missed late.
func TestRoundsAgreeAcrossAgents(t *testing.T) {
	const n = 16
	cfg := testConfig(t, n, hiadsd.VCube, notify.Detected)
	cfg.Interval = 2 * time.Second
	var now time.Time
	agents := make([]*Daemon, n)
	for id := range agents {
		cfg.Self = id
		d, err := New(Options{Config: cfg, Prober: newFakeLAN(), Board: (&sink{}).board(), Notifier: &sink{},
			State: state.State{Version: state.FileVersion, Nodes: n, Counters: make([]uint32, n)}, Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		if !d.rotating() {
			t.Fatal("the default plan does not rotate")
		}
		agents[id] = d
	}
	base := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC) // a round's start: a multiple of 2 s since the epoch
	prev := 0
	for r := range 9 {
		start := base.Add(time.Duration(r) * cfg.Interval)
		cluster := 0
		for id, d := range agents {
			now = start.Add(-time.Millisecond)
			wait := d.untilNextRound() - time.Millisecond // from the round's start to this agent's staggered start in it
			if wait != d.stagger() || wait >= cfg.Interval/4 {
				t.Fatalf("round %d, agent %d: waits %s after the round's start, want its stagger %s (< a quarter interval)", r, id, wait, d.stagger())
			}
			now = start.Add(wait)
			d.setRound()
			if cluster == 0 {
				cluster = d.node.Next
			}
			if d.node.Next != cluster {
				t.Fatalf("round %d: agent %d tests cluster %d, agent 0 cluster %d", r, id, d.node.Next, cluster)
			}
			if w := d.untilNextRound(); w != cfg.Interval {
				t.Fatalf("round %d, agent %d: the next interval in %s after this one began, want %s", r, id, w, cfg.Interval)
			}
			now = start.Add(wait + cfg.Interval + 300*time.Millisecond) // this interval overran into the next round
			if w := d.untilNextRound(); w != cfg.Interval-300*time.Millisecond {
				t.Fatalf("round %d, agent %d: after an overrun the next interval in %s, want the round after next's start", r, id, w)
			}
		}
		if prev != 0 && cluster != prev%4+1 {
			t.Fatalf("round %d tests cluster %d after cluster %d; want them in turn", r, cluster, prev)
		}
		prev = cluster
	}
}
