package daemon

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/agent/notify"
	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/agent/state"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
	"github.com/diagagent/diagagent/traps"
)

// fakeLAN answers probes and fetches from a table of true statuses and of
// every node's diagTree, as the real agents would.
type fakeLAN struct {
	mu     sync.Mutex
	status map[netip.Addr]hiadsd.Status // the truth; fault-free when absent
	rows   map[netip.Addr][]probe.Row   // what each peer's diagTree says
	nms    map[netip.Addr]nmsAndCount   // each peer's nmsID
	probes map[netip.Addr]int           // probes received
	fetch  map[netip.Addr]int           // row fetches received
	lists  map[netip.Addr]nodelist.List // each peer's node list; none when absent
}

type nmsAndCount struct {
	addr netip.Addr
	c    uint32
}

func newFakeLAN() *fakeLAN {
	return &fakeLAN{status: map[netip.Addr]hiadsd.Status{}, rows: map[netip.Addr][]probe.Row{},
		nms: map[netip.Addr]nmsAndCount{}, probes: map[netip.Addr]int{}, fetch: map[netip.Addr]int{},
		lists: map[netip.Addr]nodelist.List{}}
}

func (f *fakeLAN) Probe(_ context.Context, t probe.Target) probe.Result {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.probes[t.Addr]++
	st, ok := f.status[t.Addr]
	if !ok {
		st = hiadsd.FaultFree
	}
	return probe.Result{Status: st}
}

func (f *fakeLAN) FetchRows(_ context.Context, t probe.Target, lo, hi int) ([]probe.Row, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fetch[t.Addr]++
	var out []probe.Row
	for _, r := range f.rows[t.Addr] {
		if int(r.ID) >= lo && int(r.ID) <= hi {
			out = append(out, r)
		}
	}
	return out, nil
}

func (f *fakeLAN) FetchDiagnosis(ctx context.Context, t probe.Target, lo, hi int) (probe.Fetched, error) {
	rows, err := f.FetchRows(ctx, t, lo, hi)
	f.mu.Lock()
	defer f.mu.Unlock()
	v := f.nms[t.Addr]
	out := probe.Fetched{Station: hiadsd.Station{Addr: v.addr, Counter: v.c}, Rows: rows}
	if l, ok := f.lists[t.Addr]; ok {
		out.NodeListHash, out.ListVersion = l.Hash[:], l.Version
	}
	return out, err
}

func (f *fakeLAN) FetchList(_ context.Context, t probe.Target) (probe.List, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	l, ok := f.lists[t.Addr]
	if !ok {
		return probe.List{}, errors.New("fakeLAN: no node list")
	}
	return probe.List{List: l}, nil
}

func (f *fakeLAN) CanPush() bool { return false }

func (f *fakeLAN) Push(context.Context, probe.Target, []byte) error { return probe.ErrNoWriteAccess }

// sink records what the daemon publishes and notifies.
type sink struct {
	mu     sync.Mutex
	b      board.Board
	events []mib.Event
	nms    []hiadsd.Station
	lists  []traps.ListMismatch
	change []traps.ListChange
	keys   []traps.KeyRefused
	flaps  []traps.Flapping
	maint  []traps.MaintenanceEnded
	lost   []traps.ListConflict
	causes []traps.Cause
}

func (s *sink) CauseChange(c traps.Cause) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.causes = append(s.causes, c)
	return nil
}

func (s *sink) NodeListConflict(c traps.ListConflict) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lost = append(s.lost, c)
	return nil
}

func (s *sink) NodeFlapping(f traps.Flapping) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flaps = append(s.flaps, f)
	return nil
}

func (s *sink) NodeMaintenanceEnded(m traps.MaintenanceEnded) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.maint = append(s.maint, m)
	return nil
}

func (s *sink) NodeKeyRefused(r traps.KeyRefused) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys = append(s.keys, r)
	return nil
}

func (s *sink) NodeListChange(c traps.ListChange) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.change = append(s.change, c)
	return nil
}

// board is where the daemon publishes.
func (s *sink) board() *board.Board { return &s.b }

func (s *sink) NodeStatusChange(e mib.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, e)
	return nil
}

func (s *sink) NodeListMismatch(m traps.ListMismatch) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lists = append(s.lists, m)
	return nil
}

func (s *sink) NMSChange(c hiadsd.Station) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nms = append(s.nms, c)
	return nil
}

func addr(k int) netip.Addr { return netip.AddrFrom4([4]byte{127, 0, byte((k + 1) >> 8), byte(k + 1)}) }

// hostOf is the host addr(k) names: k.
func hostOf(a netip.Addr) int { b := a.As4(); return int(b[2])<<8 | int(b[3]) - 1 }

// testConfig is a brute-force LAN of n nodes (every node tested each interval,
// so the tests know exactly what a single interval sees).
func testConfig(t testing.TB, n int, algo hiadsd.Algorithm, scope notify.Scope) Config {
	c := Default()
	c.Algorithm, c.Interval, c.StateDir = algo, time.Second, t.TempDir()
	c.Notify = scope
	c.Station = netip.MustParseAddr("127.0.0.100")
	c.StartupGrace = 0 // these tests check what is notified at once; TestStartupGrace the grace
	c.RecoveryHold = 0 // and TestRepairNotifiedOnceItHolds the hold of repairs,
	c.PartialHold = 0  // TestPartialNotifiedOnceItHolds that of partial verdicts
	for k := 0; k < n; k++ {
		c.Nodes = append(c.Nodes, nodelist.Member{Addr: addr(k), Port: 161})
	}
	return c
}

func newTestDaemon(t testing.TB, cfg Config, lan Prober, s *sink, st state.State, now func() time.Time) *Daemon {
	t.Helper()
	if st.Counters == nil {
		st = state.State{Version: state.FileVersion, Nodes: len(cfg.Nodes), Counters: make([]uint32, len(cfg.Nodes))}
	}
	d, err := New(Options{Config: cfg, Prober: lan, Board: s.board(), Notifier: s, State: st,
		Now: now, Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestIntervalRecordsEventsNotifiesAndSaves(t *testing.T) {
	cfg := testConfig(t, 4, hiadsd.BruteForce, notify.Detected)
	lan, s := newFakeLAN(), &sink{}
	lan.status[addr(2)] = hiadsd.Partial
	d := newTestDaemon(t, cfg, lan, s, state.State{}, nil)

	d.interval(context.Background())
	snap := d.Snapshot()
	want := []hiadsd.Status{hiadsd.FaultFree, hiadsd.FaultFree, hiadsd.Partial, hiadsd.FaultFree}
	for k, r := range snap.Nodes {
		if r.Status != want[k] {
			t.Fatalf("row %d: status %v, want %v", k+1, r.Status, want[k])
		}
	}
	if len(snap.Events) != 3 || !snap.Up {
		t.Fatalf("events %d (want 3: nodes 2, 3, 4 leave unknown), up %v", len(snap.Events), snap.Up)
	}
	// Unknown -> fault-free is what every agent learns at start: not news.
	if len(s.events) != 1 || s.events[0].NodeID != 3 || s.events[0].Status != hiadsd.Partial ||
		s.events[0].How != mib.SourceDirect || s.events[0].Detector != 1 {
		t.Fatalf("notifications after the first interval: %+v", s.events)
	}

	lan.status[addr(2)] = hiadsd.FaultFree
	d.interval(context.Background())
	if len(s.events) != 2 || s.events[1].Prev != hiadsd.Partial || s.events[1].Counter != 1 {
		t.Fatalf("repair notification: %+v", s.events)
	}
	st, err := state.Load(cfg.StateDir, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Events) != 4 || st.LastSeq != 4 || st.Counters[2] != 1 {
		t.Fatalf("saved state: %d events, last seq %d, counters %v", len(st.Events), st.LastSeq, st.Counters)
	}
}

// TestLearnedEventsNotifiedByScope: node 1 learns node 4's fault from node
// 2. It notifies it with scope all, and with scope owner since it is the
// owner (the fault-free agent of the lowest id); not with scope detected.
func TestLearnedEventsNotifiedByScope(t *testing.T) {
	for _, scope := range []notify.Scope{notify.Owner, notify.Detected, notify.All} {
		t.Run(fmt.Sprint("scope=", scope), func(t *testing.T) {
			cfg := testConfig(t, 4, hiadsd.VRing, scope)
			lan, s := newFakeLAN(), &sink{}
			// Node 0 tests node 1 (vRing) and learns node 3's fault from it.
			lan.rows[addr(1)] = []probe.Row{{ID: 3, Status: hiadsd.FaultFree, Counter: 0}, {ID: 4, Status: hiadsd.Faulty, Counter: 2}}
			d := newTestDaemon(t, cfg, lan, s, state.State{}, nil)
			d.interval(context.Background())
			if got := d.Snapshot().Nodes[3]; got.Status != hiadsd.Faulty || got.How != mib.SourceLearned || got.Counter != 2 {
				t.Fatalf("node 4 row: %+v", got)
			}
			// The event names the agent it was read from (diagEventSource), not a tester.
			var ev *mib.Event
			for _, e := range d.Snapshot().Events {
				if e.NodeID == 4 {
					ev = &e
				}
			}
			if ev == nil || ev.How != mib.SourceLearned || ev.Source != 2 || ev.Detector != 0 {
				t.Fatalf("node 4's event: %+v, want learned from node 2", ev)
			}
			want := 1
			if scope == notify.Detected {
				want = 0
			}
			if len(s.events) != want {
				t.Fatalf("scope %v: %d notifications, want %d: %+v", scope, len(s.events), want, s.events)
			}
		})
	}
}

func TestNMSSetSpreadsAndTieRule(t *testing.T) {
	cfg := testConfig(t, 4, hiadsd.VRing, notify.Detected)
	lan, s := newFakeLAN(), &sink{}
	d := newTestDaemon(t, cfg, lan, s, state.State{}, nil)
	if err := d.SetNMS(netip.MustParseAddr("192.0.2.9")); err != nil {
		t.Fatal(err)
	}
	if snap := d.Snapshot(); snap.Station.Addr.String() != "192.0.2.9" || snap.Station.Counter != 1 || len(s.nms) != 1 {
		t.Fatalf("after SET: nms %v counter %d, %d NMS notifications", snap.Station.Addr, snap.Station.Counter, len(s.nms))
	}
	cases := []struct {
		heard string
		c     uint32
		want  string
	}{
		{"192.0.2.200", 0, "192.0.2.9"}, // older counter loses
		{"192.0.2.1", 1, "192.0.2.9"},   // same counter, smaller address loses
		{"192.0.2.10", 1, "192.0.2.10"}, // same counter, larger address wins
		{"192.0.2.2", 5, "192.0.2.2"},   // newer counter wins
	}
	for _, c := range cases {
		lan.nms[addr(1)] = nmsAndCount{netip.MustParseAddr(c.heard), c.c}
		d.interval(context.Background())
		if got := d.Snapshot().Station.Addr.String(); got != c.want {
			t.Fatalf("heard %s/%d: station %s, want %s", c.heard, c.c, got, c.want)
		}
	}
	for range 100 { // the station it already is: not an event
		if err := d.SetNMS(d.Snapshot().Station.Addr); err != nil {
			t.Fatal(err)
		}
	}
	if snap := d.Snapshot(); snap.Station.Counter != 5 || len(s.nms) != 1 {
		t.Fatalf("100 SETs of the current station: counter %d (want 5, unchanged), %d NMS notifications (want 1)", snap.Station.Counter, len(s.nms))
	}
	if err := d.SetNMS(netip.MustParseAddr("2001:db8::1")); err == nil {
		t.Fatal("an IPv6 station was accepted for nmsID")
	}
}

func TestUpTurnsOffWhenTheLoopStalls(t *testing.T) {
	cfg := testConfig(t, 4, hiadsd.VCube, notify.Detected)
	var mu sync.Mutex
	now := time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	d := newTestDaemon(t, cfg, newFakeLAN(), &sink{}, state.State{}, clock)
	d.interval(context.Background())
	d.mu.Lock()
	up := d.upLocked()
	mu.Lock()
	now = now.Add(d.staleAfter())
	mu.Unlock()
	stale := d.upLocked()
	d.mu.Unlock()
	if !up || stale {
		t.Fatalf("up right after an interval = %v, up %v later = %v", up, d.staleAfter(), stale)
	}
}

func TestRestartStartsUnknownWithSavedCounters(t *testing.T) {
	cfg := testConfig(t, 4, hiadsd.BruteForce, notify.Detected)
	st := state.State{Version: state.FileVersion, Nodes: 4, Counters: []uint32{0, 7, 3, 0}}
	lan, s := newFakeLAN(), &sink{}
	lan.status[addr(1)] = hiadsd.Faulty
	d := newTestDaemon(t, cfg, lan, s, st, nil)
	for k, r := range d.Snapshot().Nodes {
		if k > 0 && (r.Status != hiadsd.Unknown || r.Counter != st.Counters[k]) {
			t.Fatalf("restarted row %d: %+v", k+1, r)
		}
	}
	d.interval(context.Background())
	// Counters never go back: the first verdict keeps the saved counter, so a
	// peer holding (fault-free, 7) sees (faulty, 7) win the tie by severity.
	if r := d.Snapshot().Nodes[1]; r.Status != hiadsd.Faulty || r.Counter != 7 {
		t.Fatalf("node 2 after the restart's first interval: %+v", r)
	}
	if fmt.Sprint(d.Snapshot().Nodes[2].Counter) != "3" {
		t.Fatalf("node 3 counter went back: %+v", d.Snapshot().Nodes[2])
	}
}

// TestGraphIsTheHypercubeWhenAllFaultFree: with every node fault-free the
// testing graph is the hypercube's: under the full plan every edge in both
// directions (N log2 N tests), under the rotating plan the edges of one
// dimension (N tests, each node testing its neighbour across it).
func TestGraphIsTheHypercubeWhenAllFaultFree(t *testing.T) {
	for _, c := range []struct {
		plan  string
		edges int
	}{{"full", 8 * 3}, {"rotate", 8}} {
		t.Run(c.plan, func(t *testing.T) {
			cfg := testConfig(t, 8, hiadsd.VCube, notify.Detected)
			cfg.Rotate = c.plan == "rotate"
			hypercubeGraph(t, cfg, c.edges)
		})
	}
}

func hypercubeGraph(t *testing.T, cfg Config, want int) {
	t.Helper()
	var infos []IntervalInfo
	lan, s := newFakeLAN(), &sink{}
	for k := 1; k < 8; k++ {
		lan.rows[addr(k)] = allFaultFreeRows(8)
	}
	d, err := New(Options{Config: cfg, Prober: lan, Board: s.board(), Notifier: s,
		State:   state.State{Version: state.FileVersion, Nodes: 8, Counters: make([]uint32, 8)},
		Observe: func(i IntervalInfo) { infos = append(infos, i) }})
	if err != nil {
		t.Fatal(err)
	}
	d.interval(context.Background()) // knows nothing yet: tests everyone it may be first tester of
	d.interval(context.Background())
	g := d.Graph()
	edges, dims := 0, map[int]bool{}
	for i, out := range g {
		for _, j := range out {
			if x := i ^ j; x&(x-1) != 0 { // hypercube edges differ in exactly one bit
				t.Fatalf("edge %d->%d is not a hypercube edge; graph %v", i, j, g)
			}
			edges++
			dims[i^j] = true
		}
	}
	if edges != want || want == 8 && len(dims) != 1 {
		t.Fatalf("%d edges along %d dimensions, want %d; graph %v", edges, len(dims), want, g)
	}
	if tests := want / 8; len(infos) != 2 || len(infos[1].Probes) != tests || len(infos[1].Report.Tests) != tests {
		t.Fatalf("observed %d intervals, the last with %d probes; want %d", len(infos), len(infos[len(infos)-1].Probes), tests)
	}
}

func allFaultFreeRows(n int) []probe.Row {
	rows := make([]probe.Row, n)
	for k := range rows {
		rows[k] = probe.Row{ID: uint32(k + 1), Status: hiadsd.FaultFree}
	}
	return rows
}

// TestEventsWaitForTheirSave is the event half of issue 13's defect 1: when
// the state could not be saved, the agent still served and notified the
// event, and after a restart named the next event with the same sequence
// number. An event is now served and notified only once it is on disk; while
// saves fail it waits, and it goes out with the first save that succeeds,
// whatever made it.
func TestEventsWaitForTheirSave(t *testing.T) {
	cfg := testConfig(t, 4, hiadsd.BruteForce, notify.Detected)
	dir := cfg.StateDir
	lan, s := newFakeLAN(), &sink{}
	d := newTestDaemon(t, cfg, lan, s, state.State{}, nil)
	d.interval(context.Background())
	served := len(d.Snapshot().Events)
	if served == 0 {
		t.Fatal("no start-up events")
	}
	// The state directory turns into a file: every save fails.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	lan.status[addr(2)] = hiadsd.Faulty
	d.interval(context.Background())
	if snap := d.Snapshot(); len(snap.Events) != served || snap.Nodes[2].Status != hiadsd.Faulty || len(s.events) != 0 {
		t.Fatalf("while saves fail: %d events served (want %d), node 3 %v, %d notifications (want 0)",
			len(snap.Events), served, snap.Nodes[2].Status, len(s.events))
	}
	// The directory comes back: the next save, here a station SET's, puts the
	// waiting event on disk, and it is served and notified.
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	if err := d.SetNMS(netip.MustParseAddr("192.0.2.9")); err != nil {
		t.Fatal(err)
	}
	snap := d.Snapshot()
	last := snap.Events[len(snap.Events)-1]
	if len(snap.Events) != served+1 || last.Seq != uint32(served+1) || last.NodeID != 3 || len(s.events) != 1 {
		t.Fatalf("after the save: %d events, last %+v, %d notifications; want %d, node 3 at seq %d, 1",
			len(snap.Events), last, len(s.events), served+1, served+1)
	}
	st, err := state.Load(dir, 4)
	if err != nil || st.LastSeq != last.Seq {
		t.Fatalf("saved state: last seq %d, %v; want %d", st.LastSeq, err, last.Seq)
	}
}

// TestSetAddressMovesANode: a node given by host name that resolves
// elsewhere is tested at its new address from the next interval on, and its
// row and events carry it; the caller's configuration is left alone.
func TestSetAddressMovesANode(t *testing.T) {
	cfg := testConfig(t, 4, hiadsd.BruteForce, notify.Detected)
	cfg.Nodes[2].Host = "ws-03.lan"
	lan, s := newFakeLAN(), &sink{}
	moved := netip.MustParseAddr("2001:db8::3")
	lan.status[moved] = hiadsd.Partial // at its new address the node's agent is down
	d := newTestDaemon(t, cfg, lan, s, state.State{}, nil)
	d.interval(context.Background())
	if r := d.Snapshot().Nodes[2]; r.Status != hiadsd.FaultFree || r.Addr != addr(2) {
		t.Fatalf("before the move: %+v", r)
	}
	d.SetAddress(2, moved)
	d.interval(context.Background())
	r := d.Snapshot().Nodes[2]
	if r.Status != hiadsd.Partial || r.Addr != moved {
		t.Fatalf("after the move: %+v, want partial at %v", r, moved)
	}
	if ev := s.events[len(s.events)-1]; ev.NodeID != 3 || ev.Addr != moved {
		t.Errorf("the event names %v, want node 3 at %v", ev.Addr, moved)
	}
	if cfg.Nodes[2].Addr != addr(2) {
		t.Error("SetAddress changed the caller's configuration")
	}
}

// TestStartupGrace: within the start-up grace, a first verdict about a node
// never seen up is recorded but not notified; retracted within the grace
// it is never notified (nor its retraction); still holding when the grace
// ends it is notified then; a node seen up that fails within the grace is
// notified at once.
func TestStartupGrace(t *testing.T) {
	cfg := testConfig(t, 4, hiadsd.BruteForce, notify.Detected)
	cfg.StartupGrace = 10 * time.Second
	clock := &mockClock{now: time.Date(2026, 11, 23, 6, 0, 0, 0, time.UTC)}
	lan, s := newFakeLAN(), &sink{}
	lan.status[addr(2)] = hiadsd.Partial // started later than this agent
	lan.status[addr(3)] = hiadsd.Partial // really down
	d := newTestDaemon(t, cfg, lan, s, state.State{}, clock.Now)

	d.interval(context.Background())
	if len(s.events) != 0 || len(d.Snapshot().Events) != 3 {
		t.Fatalf("first interval: %d notified (want none), %d recorded (want 3)", len(s.events), len(d.Snapshot().Events))
	}
	clock.advance(2 * time.Second)
	delete(lan.status, addr(2)) // node 3's agent is up now: the first verdict is retracted
	d.interval(context.Background())
	if len(s.events) != 0 {
		t.Fatalf("a retraction within the grace was notified: %+v", s.events)
	}
	clock.advance(time.Second)
	lan.status[addr(1)] = hiadsd.Faulty // node 2 was seen up: its failure is news at once
	d.interval(context.Background())
	if len(s.events) != 1 || s.events[0].NodeID != 2 || s.events[0].Status != hiadsd.Faulty {
		t.Fatalf("a node seen up failing within the grace: %+v", s.events)
	}
	clock.advance(10 * time.Second) // past the grace: node 4, partial all along, is notified once
	d.interval(context.Background())
	d.interval(context.Background())
	if len(s.events) != 2 || s.events[1].NodeID != 4 || s.events[1].Status != hiadsd.Partial || s.events[1].Seq != 3 {
		t.Fatalf("after the grace: %+v, want node 4 partial with its first event's sequence number 3", s.events)
	}
}

// holdHarness returns agent 1 of cfg on a fake clock with its sink; step
// sets node 3's truth to st and runs times intervals a second apart, and
// want checks the statuses notified about node 3 so far.
func holdHarness(t *testing.T, cfg Config) (*Daemon, *sink, func(st hiadsd.Status, times int), func(what string, statuses ...hiadsd.Status)) {
	clock := &mockClock{now: time.Date(2026, 11, 26, 6, 0, 0, 0, time.UTC)}
	lan, s := newFakeLAN(), &sink{}
	d := newTestDaemon(t, cfg, lan, s, state.State{}, clock.Now)
	step := func(st hiadsd.Status, times int) {
		t.Helper()
		for range times {
			clock.advance(time.Second)
			if st == hiadsd.FaultFree {
				delete(lan.status, addr(2))
			} else {
				lan.status[addr(2)] = st
			}
			d.interval(context.Background())
		}
	}
	want := func(what string, statuses ...hiadsd.Status) {
		t.Helper()
		var got []hiadsd.Status
		for _, ev := range s.events {
			if ev.NodeID == 3 {
				got = append(got, ev.Status)
			}
		}
		if !slices.Equal(got, statuses) {
			t.Fatalf("%s: node 3 notified %v, want %v", what, got, statuses)
		}
	}
	return d, s, step, want
}

// TestRepairNotifiedOnceItHolds: with a recovery hold of 5 s, node 3's
// fault is notified at once; its repair is not, and when node 3 fails again
// within the hold neither the repair nor the new fault (the one the station
// holds) is notified; a repair that holds for 5 s is notified once, with
// its own event; a fault of another kind is news at once.
func TestRepairNotifiedOnceItHolds(t *testing.T) {
	cfg := testConfig(t, 4, hiadsd.BruteForce, notify.Owner)
	cfg.RecoveryHold = 5 * time.Second
	d, s, step, want := holdHarness(t, cfg)
	step(hiadsd.FaultFree, 1)
	step(hiadsd.Partial, 1)
	want("a fault", hiadsd.Partial)
	step(hiadsd.FaultFree, 1)
	step(hiadsd.FaultFree, 1)
	want("a repair 1 s old", hiadsd.Partial)
	step(hiadsd.Partial, 1)
	want("a repair that did not hold, and the fault again", hiadsd.Partial)
	step(hiadsd.FaultFree, 1)
	repair := d.Snapshot().Events[len(d.Snapshot().Events)-1]
	step(hiadsd.FaultFree, 4)
	want("a repair 4 s old", hiadsd.Partial)
	step(hiadsd.FaultFree, 1)
	want("a repair that held 5 s", hiadsd.Partial, hiadsd.FaultFree)
	if last := s.events[len(s.events)-1]; last.Seq != repair.Seq || last.Prev != hiadsd.Partial {
		t.Errorf("the repair went out as %+v, want its own event %+v", last, repair)
	}
	step(hiadsd.FaultFree, 10)
	want("nothing more", hiadsd.Partial, hiadsd.FaultFree)
	step(hiadsd.Faulty, 1)
	step(hiadsd.Partial, 1)
	want("a fault, then a fault of another kind", hiadsd.Partial, hiadsd.FaultFree, hiadsd.Faulty, hiadsd.Partial)
}

// TestPartialNotifiedOnceItHolds: with a partial hold of 3 s and a
// recovery hold of 5 s, node 3 partial for 2 s, then fault-free, costs the
// station nothing, neither the partial verdict nor the repair; partial
// again for 3 s is notified once, with its own event, and the repair after
// it waits its own hold; a crash (faulty) is notified at once, and the
// partial verdict after it once it has held.
func TestPartialNotifiedOnceItHolds(t *testing.T) {
	cfg := testConfig(t, 4, hiadsd.BruteForce, notify.Owner)
	cfg.PartialHold, cfg.RecoveryHold = 3*time.Second, 5*time.Second
	d, s, step, want := holdHarness(t, cfg)
	step(hiadsd.FaultFree, 1)
	step(hiadsd.Partial, 3) // partial at 0, 1 and 2 s
	step(hiadsd.FaultFree, 7)
	want("a partial verdict that held 2 s, and its repair")
	step(hiadsd.Partial, 1)
	partial := d.Snapshot().Events[len(d.Snapshot().Events)-1]
	step(hiadsd.Partial, 2)
	want("a partial verdict 2 s old")
	step(hiadsd.Partial, 1)
	want("a partial verdict that held 3 s", hiadsd.Partial)
	if last := s.events[len(s.events)-1]; last.Seq != partial.Seq {
		t.Errorf("the partial verdict went out as %+v, want its own event %+v", last, partial)
	}
	step(hiadsd.FaultFree, 5)
	want("a repair 4 s old", hiadsd.Partial)
	step(hiadsd.FaultFree, 1)
	want("a repair that held 5 s", hiadsd.Partial, hiadsd.FaultFree)
	step(hiadsd.Faulty, 1)
	want("a crash", hiadsd.Partial, hiadsd.FaultFree, hiadsd.Faulty)
	step(hiadsd.Partial, 4)
	want("partial after the crash, held 3 s", hiadsd.Partial, hiadsd.FaultFree, hiadsd.Faulty, hiadsd.Partial)
}

// TestTheAgentThatToldRetracts: agent 2 owns node 3's notifications while
// agent 1 is down, and notifies node 3 partial. Agent 1 comes back and is
// node 3's owner again; when node 3 recovers, agent 2 still tells the
// station, since agent 1 never told it anything. (Agent 2 owns node 1's
// notifications throughout: its fault and its repair.)
func TestTheAgentThatToldRetracts(t *testing.T) {
	cfg := testConfig(t, 4, hiadsd.BruteForce, notify.Owner)
	cfg.Self = 1
	lan, s := newFakeLAN(), &sink{}
	lan.status[addr(0)] = hiadsd.Faulty
	d := newTestDaemon(t, cfg, lan, s, state.State{}, nil)
	d.interval(context.Background())
	lan.status[addr(2)] = hiadsd.Partial
	d.interval(context.Background())
	delete(lan.status, addr(0))
	d.interval(context.Background())
	delete(lan.status, addr(2))
	d.interval(context.Background())
	var got []string
	for _, ev := range s.events {
		got = append(got, fmt.Sprintf("node %d %v", ev.NodeID, ev.Status))
	}
	want := []string{"node 1 faulty", "node 3 partial", "node 1 fault-free", "node 3 fault-free"}
	if !slices.Equal(got, want) {
		t.Fatalf("agent 2 notified %v, want %v", got, want)
	}
}

// TestPeerWithAnotherNodeList: a peer whose diagNodeListHash differs from
// this agent's is not a source of diagnostic information (its rows would
// name other nodes); its list, read after the interval, is of another file
// and does not merge, so the snapshot names it until the lists agree.
func TestPeerWithAnotherNodeList(t *testing.T) {
	cfg := testConfig(t, 4, hiadsd.VRing, notify.Detected)
	lan, s := newFakeLAN(), &sink{}
	// Node 0 tests node 1 (vRing) and would learn node 3's fault from it.
	lan.rows[addr(1)] = []probe.Row{{ID: 3, Status: hiadsd.FaultFree}, {ID: 4, Status: hiadsd.Faulty, Counter: 2}}
	other := cfg
	other.Nodes = append(slices.Clone(cfg.Nodes), nodelist.Member{Addr: netip.MustParseAddr("127.0.0.99"), Port: 161})
	lan.lists[addr(1)] = nodelist.New(other.Nodes) // another file: it does not merge
	d := newTestDaemon(t, cfg, lan, s, state.State{}, nil)
	d.interval(context.Background())
	snap := d.Snapshot()
	if snap.Nodes[3].Status == hiadsd.Faulty || !slices.Equal(snap.ListMismatch, []uint32{2}) {
		t.Fatalf("a peer with another list was a source: node 4 %v, mismatches %v", snap.Nodes[3].Status, snap.ListMismatch)
	}
	d.interval(context.Background()) // still differing: notified once
	if len(s.lists) != 1 || s.lists[0].Peer != 2 || s.lists[0].PeerAddr != addr(1) || !bytes.Equal(s.lists[0].Ours, fingerprint(cfg)) {
		t.Errorf("notifications %+v, want one about node 2", s.lists)
	}
	if !bytes.Equal(snap.NodeListHash, fingerprint(cfg)) || len(snap.NodeListHash) != 8 {
		t.Errorf("served fingerprint %x, want %x", snap.NodeListHash, fingerprint(cfg))
	}
	// The peer's list is now this agent's with a change made there: it is
	// read and merged, and the conflict ends with it.
	changed, err := nodelist.New(cfg.Nodes).WithMaintenance(2, time.Now().Add(time.Hour), time.Now(), hiadsd.FaultFree,
		nodelist.Stamp{Time: uint64(time.Now().UnixMilli()) << 16, Origin: 7})
	if err != nil {
		t.Fatal(err)
	}
	lan.lists[addr(1)] = changed
	d.interval(context.Background())
	if d.list.Hash != changed.Hash || len(d.Snapshot().ListMismatch) != 0 {
		t.Fatalf("after the peer's list became mergeable: running %x, want %x; mismatches %v", d.list.Hash, changed.Hash, d.Snapshot().ListMismatch)
	}
	d.interval(context.Background())
	if snap := d.Snapshot(); snap.Nodes[3].Status != hiadsd.Faulty || len(snap.ListMismatch) != 0 {
		t.Fatalf("after the lists agree: node 4 %v, mismatches %v", snap.Nodes[3].Status, snap.ListMismatch)
	}
}

// fingerprint is the diagNodeListHash of cfg's list as written.
func fingerprint(cfg Config) []byte {
	l := nodelist.New(cfg.Nodes)
	return l.Hash[:]
}
