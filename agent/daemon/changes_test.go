package daemon

import (
	"context"
	"errors"
	"io"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/agent/notify"
	"github.com/diagagent/diagagent/agent/state"
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
	cfg := testConfig(t, 4, hiadsd.BruteForce, notify.Detected)
	logger := logrus.New()
	logger.SetOutput(io.Discard)
	logger.SetLevel(logrus.InfoLevel)
	s := &sink{}
	d, err := New(Options{Config: cfg, Prober: newFakeLAN(), Board: s.board(), Notifier: s,
		State: state.State{Version: state.FileVersion, Nodes: 4, Counters: make([]uint32, 4)}, Log: logrus.NewEntry(logger)})
	if err != nil {
		t.Fatal(err)
	}
	d.interval(context.Background())
	printer := func(k int) nodelist.Member {
		return nodelist.Member{Addr: addr(10 + k), Port: 161, TestedOnly: true}
	}
	var second error
	logger.AddHook(&onLog{msg: "node list changed", fire: func() {
		second = d.members.AddNode(int(d.Snapshot().NextID)-1, printer(2))
	}})
	if err := d.members.AddNode(int(d.Snapshot().NextID)-1, printer(1)); err != nil {
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
	cfg := testConfig(t, 4, hiadsd.BruteForce, notify.Detected)
	s := &sink{}
	d := newTestDaemon(t, cfg, newFakeLAN(), s, state.State{}, nil)
	d.interval(context.Background())
	const n = 100
	for k := range n {
		next := s.board().Load().NextID // what snmpget diagNodeNextID.0 reads
		if err := d.members.AddNode(int(next)-1, nodelist.Member{Addr: addr(10 + k), Port: 161, TestedOnly: true}); err != nil {
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

// A reload of an unchanged file, as systemctl reload sends, takes away
// nothing another operator added; a reload or a restart with an edited
// file applies its edits alone.
func TestReloadKeepsOtherOperatorsChanges(t *testing.T) {
	m := newMockNet(t, 5, hiadsd.VCube, notify.Detected)
	m.settled(5)
	printer := nodelist.Member{Addr: addr(m.addHost()), Port: 161, TestedOnly: true}
	if err := m.agents[0].members.AddNode(5, printer); err != nil {
		t.Fatal(err)
	}
	bound := hiadsd.MembershipBound(hiadsd.VCube, 6)
	listed := func(n nodelist.Member) func(d *Daemon) bool {
		return func(d *Daemon) bool { return d.list.IndexOf(n) >= 0 }
	}
	m.until(bound, "every agent lists the printer", func() bool { return m.agree(listed(printer)) })
	if _, changed, err := m.agents[2].members.Reload(m.cfg.Nodes, nil); err != nil || changed {
		t.Fatalf("a reload of the unchanged file: changed %v, %v", changed, err)
	}
	for range bound {
		m.round()
	}
	if !m.agree(listed(printer)) {
		t.Fatal("a reload of an unchanged file removed the printer added at another agent")
	}

	added := nodelist.Member{Addr: addr(m.addHost()), Port: 161, TestedOnly: true}
	edited := append(slices.Clone(m.cfg.Nodes), added)
	if _, changed, err := m.agents[2].members.Reload(edited, nil); err != nil || !changed {
		t.Fatalf("a reload of an edited file: changed %v, %v", changed, err)
	}
	m.until(bound, "every agent lists the node the file added, and the printer", func() bool {
		return m.agree(func(d *Daemon) bool { return listed(added)(d) && listed(printer)(d) })
	})

	m.stop(3, false) // restarted with the file it last read: nothing to apply
	m.start(3)
	if p := m.agents[3].members.Pending(); p != nil {
		t.Errorf("agent 4, restarted with the file it last read, queued version %d", p.Version)
	}
	m.stop(3, false) // its file edited meanwhile: node 5 dropped
	cfg := m.cfg
	cfg.Nodes = slices.Delete(slices.Clone(m.cfg.Nodes), 4, 5)
	m.startWith(3, cfg)
	m.until(bound, "every agent has node 5 removed, and lists the printer and the file's node", func() bool {
		return m.agree(func(d *Daemon) bool {
			return d.list.IndexOf(m.cfg.Nodes[4]) < 0 && listed(added)(d) && listed(printer)(d)
		})
	})
}

// A peer's list holding a change stamped further ahead than a correct
// clock allows is refused and notified, naming the peer, and read again
// later: once the clocks agree it is taken, and the conflict ends.
func TestListAheadIsReadAgain(t *testing.T) {
	cfg := testConfig(t, 4, hiadsd.VRing, notify.Detected)
	clock := &mockClock{now: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)}
	lan, s := newFakeLAN(), &sink{}
	skew := 10 * time.Minute // the peer's clock ran ahead when its operator set a window
	at := clock.Now().Add(skew)
	ahead, err := nodelist.New(cfg.Nodes).WithMaintenance(2, at.Add(time.Hour), at, hiadsd.FaultFree,
		nodelist.Stamp{Time: uint64(at.UnixMilli()) << 16, Origin: 7})
	if err != nil {
		t.Fatal(err)
	}
	lan.lists[addr(1)] = ahead // node 0 tests node 1 (vRing), which runs it
	d := newTestDaemon(t, cfg, lan, s, state.State{}, clock.Now)
	d.interval(context.Background())
	if d.list.Hash == ahead.Hash {
		t.Fatal("a list stamped 10 minutes ahead was taken")
	}
	if len(s.lists) != 1 || s.lists[0].Peer != 2 {
		t.Fatalf("notified %+v, want one list mismatch naming node 2", s.lists)
	}
	for range 3 { // the clock catches up: the list is read again and taken
		clock.advance(skew / 2)
		d.interval(context.Background())
	}
	if d.list.Hash != ahead.Hash || len(d.Snapshot().ListMismatch) != 0 {
		t.Errorf("once the clocks agree: running %x, want %x; mismatches %v", d.list.Hash, ahead.Hash, d.Snapshot().ListMismatch)
	}
	if len(s.lists) != 1 {
		t.Errorf("notified %d list mismatches, want 1", len(s.lists))
	}
}

// An add acknowledged just before a crash, and run only when its agent
// comes back hours later, does not take the id of a node added elsewhere
// meanwhile: stamped anew at the restart, it is the one that moves, and
// its agent tells it.
func TestLateAddMovesNotTheNodeAddedSince(t *testing.T) {
	m := newMockNet(t, 5, hiadsd.VCube, notify.Detected)
	m.settled(5)
	early, since := m.addHost(), m.addHost()
	late := nodelist.Member{Addr: addr(early), Port: 161, TestedOnly: true}
	if err := m.agents[0].members.AddNode(5, late); err != nil { // acknowledged, saved, not run yet
		t.Fatal(err)
	}
	m.stop(0, false) // down before its next interval
	m.clock.advance(time.Hour)
	established := nodelist.Member{Addr: addr(since), Port: 161, TestedOnly: true}
	if err := m.agents[1].members.AddNode(5, established); err != nil {
		t.Fatal(err)
	}
	bound := hiadsd.MembershipBound(hiadsd.VCube, 7)
	m.until(bound, "the agents up list the node added as 6", func() bool {
		return m.agree(func(d *Daemon) bool { return d.list.IndexOf(established) == 5 })
	})
	m.clock.advance(time.Hour)
	m.start(0)
	m.until(2*bound, "every agent lists both, the one added since at id 6", func() bool {
		return m.agree(func(d *Daemon) bool { return d.list.IndexOf(established) == 5 && d.list.IndexOf(late) == 6 })
	})
	if l := m.lost(0); len(l) != 1 || l[0].Node != 7 {
		t.Errorf("agent 1, whose add moved: told %+v, want one conflict about node 7", l)
	}
	if l := m.lost(1); len(l) != 0 {
		t.Errorf("agent 2, whose node kept its id: told %+v", l)
	}
}

// A change made while this agent's clock ran 10 minutes ahead, which every
// agent with a correct clock refuses, is stamped anew once the clock has
// come back, at the next interval: the list then passes the check a peer
// makes, and the change is kept.
func TestChangeMadeAheadIsStampedAnew(t *testing.T) {
	cfg := testConfig(t, 4, hiadsd.BruteForce, notify.Detected)
	clock := &mockClock{now: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)}
	d := newTestDaemon(t, cfg, newFakeLAN(), &sink{}, state.State{}, clock.Now)
	d.interval(context.Background())
	clock.advance(10 * time.Minute) // the clock jumps
	printer := nodelist.Member{Addr: addr(20), Port: 161, TestedOnly: true}
	if err := d.members.AddNode(4, printer); err != nil {
		t.Fatal(err)
	}
	until := clock.Now().Add(time.Hour)
	if err := d.SetMaintenance(2, until); err != nil {
		t.Fatal(err)
	}
	d.interval(context.Background())
	clock.advance(-10*time.Minute + time.Second) // and comes back
	if err := d.list.Check(clock.Now()); !errors.Is(err, nodelist.ErrAhead) {
		t.Fatalf("the list made while the clock ran ahead passes a correct clock's check: %v", err)
	}
	d.interval(context.Background())
	now := clock.Now()
	if err := d.list.Check(now); err != nil {
		t.Fatalf("after the clock came back, a peer refuses the list: %v", err)
	}
	if d.list.IndexOf(printer) < 0 || !d.inMaintenance(1) {
		t.Errorf("the changes stamped anew are lost: printer listed %v, window on node 2 %v", d.list.IndexOf(printer) >= 0, d.inMaintenance(1))
	}
	another := nodelist.Member{Addr: addr(21), Port: 161, TestedOnly: true}
	if err := d.members.AddNode(int(d.members.NextID())-1, another); err != nil {
		t.Fatal(err)
	}
	if last := d.members.Latest().Newest().Wall(); last.After(now.Add(time.Second)) {
		t.Errorf("a change made now is stamped %v, ahead of the wall clock %v: the clock was not set back", last, now)
	}
}
