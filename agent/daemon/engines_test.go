package daemon

import (
	"context"
	"math/rand/v2"
	"net/netip"
	"slices"
	"sync"
	"testing"

	"github.com/diagagent/diagagent/agent/notify"
	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/agent/state"
	"github.com/diagagent/diagagent/hiadsd"
)

// learningLAN is a fakeLAN whose prober learns SNMPv3 engines.
type learningLAN struct {
	*fakeLAN
	mu      sync.Mutex
	known   map[netip.Addr]bool
	learned []netip.Addr
}

func (l *learningLAN) KnowsEngine(t probe.Target) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.known[t.Addr]
}

func (l *learningLAN) LearnEngine(_ context.Context, t probe.Target) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.known[t.Addr] = true
	l.learned = append(l.learned, t.Addr)
	return nil
}

// TestEnginesLearnedAheadOfNeed: after an interval the agent learns the
// engine of every agent it holds fault-free and does not know yet (not
// its own, not a faulty one's, not a known one's again, not a printer's),
// once, beginning after its own id; a later interval learns nothing more,
// and a starved agent learns none.
func TestEnginesLearnedAheadOfNeed(t *testing.T) {
	cfg := testConfig(t, 7, hiadsd.BruteForce, notify.Owner)
	cfg.Self = 3
	cfg.Nodes[4].TestedOnly = true
	lan := &learningLAN{fakeLAN: newFakeLAN(), known: map[netip.Addr]bool{addr(1): true}}
	lan.status[addr(2)] = hiadsd.Faulty
	st := state.State{Version: state.FileVersion, Nodes: len(cfg.Nodes), Counters: make([]uint32, len(cfg.Nodes))}
	s := &sink{}
	d, err := New(Options{Config: cfg, Prober: lan, Board: s.board(), Notifier: s, State: st, Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	d.lag.Set(true)
	d.interval(context.Background())
	d.push.sends.Wait()
	if len(lan.learned) != 0 {
		t.Fatalf("a starved agent learned %v", lan.learned)
	}
	d.lag.Set(false)
	for range 2 {
		d.interval(context.Background())
		d.push.sends.Wait()
	}
	if want := []netip.Addr{addr(5), addr(6), addr(0)}; !slices.Equal(lan.learned, want) {
		t.Fatalf("engines learned %v, want %v once", lan.learned, want)
	}
}
