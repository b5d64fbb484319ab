package daemon

import (
	"context"
	"io"
	"sync"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/hiadsd"
)

// onLog runs fire once, the first time the daemon logs msg: a change made
// from another goroutine at that exact point of the loop.
type onLog struct {
	msg  string
	once sync.Once
	fire func()
}

func (h *onLog) Levels() []logrus.Level { return logrus.AllLevels }

func (h *onLog) Fire(e *logrus.Entry) error {
	if e.Message == h.msg {
		h.once.Do(h.fire)
	}
	return nil
}

// A SET that arrives while the loop switches to the list queued before it
// is built on that list, not on the one being left: both changes are
// acknowledged and both are run.
func TestChangeDuringSwitchIsKept(t *testing.T) {
	cfg := testConfig(t, 4, hiadsd.BruteForce, NotifyDetected)
	logger := logrus.New()
	logger.SetOutput(io.Discard)
	logger.SetLevel(logrus.InfoLevel)
	s := &sink{}
	d, err := New(Options{Config: cfg, Prober: newFakeLAN(), Board: s.board(), Notifier: s,
		State: State{Version: stateVersion, Nodes: 4, Counters: make([]uint32, 4)}, Log: logrus.NewEntry(logger)})
	if err != nil {
		t.Fatal(err)
	}
	d.interval(context.Background())
	printer := func(k int) nodelist.Member {
		return nodelist.Member{Addr: addr(10 + k), Port: 161, TestedOnly: true}
	}
	var second error
	logger.AddHook(&onLog{msg: "node list changed", fire: func() {
		second = d.AddNode(int(d.Snapshot().NextID)-1, printer(2))
	}})
	if err := d.AddNode(int(d.Snapshot().NextID)-1, printer(1)); err != nil {
		t.Fatal(err)
	}
	d.interval(context.Background()) // switches to the first add; the second arrives meanwhile
	if second != nil {
		t.Fatalf("the add made during the switch: %v", second)
	}
	d.interval(context.Background())
	for k := 1; k <= 2; k++ {
		if d.list.IndexOf(printer(k)) < 0 {
			t.Errorf("printer %d, acknowledged, is not in the list run (version %d, %d ids)", k, d.list.Version, len(d.list.Members))
		}
	}
}

// A manager adds one node after another between two intervals, each at
// the diagNodeNextID served after the last: none is refused, and all are
// run from the next interval on.
func TestAddsInARowAtOneAgent(t *testing.T) {
	cfg := testConfig(t, 4, hiadsd.BruteForce, NotifyDetected)
	s := &sink{}
	d := newTestDaemon(t, cfg, newFakeLAN(), s, State{}, nil)
	d.interval(context.Background())
	const n = 100
	for k := range n {
		next := s.board().Load().NextID // what snmpget diagNodeNextID.0 reads
		if err := d.AddNode(int(next)-1, nodelist.Member{Addr: addr(10 + k), Port: 161, TestedOnly: true}); err != nil {
			t.Fatalf("add %d of %d, at id %d: %v", k+1, n, next, err)
		}
		if k%7 == 6 {
			d.interval(context.Background()) // the loop switches lists now and then in between
		}
	}
	d.interval(context.Background())
	if c := d.list.Count(); c != 4+n {
		t.Errorf("the list run holds %d nodes, want %d", c, 4+n)
	}
	if next := s.board().Load().NextID; next != 4+n+1 {
		t.Errorf("diagNodeNextID is %d, want %d", next, 4+n+1)
	}
}
