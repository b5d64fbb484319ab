package daemon

import (
	"context"
	"errors"
	"maps"
	"net/netip"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/diagagent/diagagent/agent/notify"
	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/agent/state"
	"github.com/diagagent/diagagent/hiadsd"
)

// TestHelloAsksOnce: a hello from a node of the list wakes the loop and
// has that node tested in the next interval, which without the hello
// would not test it; one from this agent, from an id outside the list, or
// again within an interval, asks nothing more.
func TestHelloAsksOnce(t *testing.T) {
	start := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	now := start
	clock := func() time.Time { return now }
	cfg := testConfig(t, 8, hiadsd.VCube, notify.Detected)
	second := func(d *Daemon, lan *fakeLAN, before func()) map[int]int {
		now = start
		d.interval(context.Background()) // the first tests everyone: the view was unknown
		now = now.Add(cfg.Interval)
		lan.mu.Lock()
		was := map[int]int{}
		for k := range 8 {
			was[k] = lan.probes[addr(k)]
		}
		lan.mu.Unlock()
		before()
		d.interval(context.Background())
		lan.mu.Lock()
		defer lan.mu.Unlock()
		for k := range 8 {
			was[k] = lan.probes[addr(k)] - was[k]
		}
		return was
	}
	control := newFakeLAN()
	plain := second(newTestDaemon(t, cfg, control, &sink{}, state.State{}, clock), control, func() {})
	asker := -1
	for k := 1; k < 8 && asker < 0; k++ {
		if plain[k] == 0 {
			asker = k
		}
	}
	if asker < 0 {
		t.Fatalf("node 1's second interval tests every node: %v", plain)
	}

	cfg.StateDir = t.TempDir()
	lan := newFakeLAN()
	d := newTestDaemon(t, cfg, lan, &sink{}, state.State{}, clock)
	tested := second(d, lan, func() {
		for _, id := range []uint32{1, 99, 0, uint32(asker + 1), uint32(asker + 1)} { // 1 is this agent
			if err := d.Hello(id); err != nil {
				t.Fatalf("Hello(%d): %v", id, err)
			}
		}
		if len(d.hi.asked) != 1 || d.hi.asked[0] != asker {
			t.Fatalf("asked %v, want node %d once", d.hi.asked, asker+1)
		}
		select {
		case <-d.hi.wake:
		default:
			t.Fatal("a hello did not wake the loop")
		}
	})
	if tested[asker] != 1 {
		t.Errorf("node %d tested %d times in the interval after its hello, want 1 (0 without it)", asker+1, tested[asker])
	}
	now = now.Add(cfg.Interval)
	if err := d.Hello(uint32(asker + 1)); err != nil || len(d.hi.asked) != 1 {
		t.Errorf("a hello an interval later: %v, asked %v; want it taken", err, d.hi.asked)
	}
}

// TestHelloAfterAStall: an interval that begins more than two intervals
// after the last one ended is a stall, and the agent says hello; one that
// begins an interval later is not. Before, a stall had to pass two
// intervals and a test budget (8 s here), and a 5 s one said nothing.
func TestHelloAfterAStall(t *testing.T) {
	start := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	now := start
	cfg := testConfig(t, 8, hiadsd.VCube, notify.Detected)
	d := newTestDaemon(t, cfg, newFakeLAN(), &sink{}, state.State{}, func() time.Time { return now })
	now = now.Add(cfg.Interval)
	d.interval(context.Background())
	now = now.Add(cfg.Interval)
	d.interval(context.Background())
	if !d.hi.said.IsZero() {
		t.Fatalf("a hello after a planned interval, at %v", d.hi.said)
	}
	now = now.Add(5 * time.Second) // stopped 5 s: testers have held it partial
	stalled := now
	d.resume(context.Background(), now) // the interval, before its tests
	if !d.hi.said.Equal(stalled) {
		t.Errorf("after a 5 s stall (interval %v): hello said at %v before the interval, want %v", cfg.Interval, d.hi.said, stalled)
	}
	d.interval(context.Background())
	if !d.hi.said.Equal(stalled) {
		t.Errorf("the interval after the stall said hello again, at %v", d.hi.said)
	}
}

// TestHelloAfterAStallWithinAnInterval: an agent stopped in the middle of
// an interval finishes it when it runs again, so the next one begins on
// time; the interval's own length says it stalled.
func TestHelloAfterAStallWithinAnInterval(t *testing.T) {
	d, cfg, now := afterOneInterval(t)
	began := now.Add(cfg.Interval)
	*now = began.Add(2*cfg.Interval + cfg.TestBudget + time.Second) // stopped while its tests ran
	d.backAgain(context.Background(), hiadsd.Report{}, began)
	if !d.hi.said.Equal(began) {
		t.Errorf("an interval that lasted %v: hello said at %v, want %v", now.Sub(began), d.hi.said, began)
	}
}

// afterOneInterval is an 8-node daemon on a fake clock (set through the
// pointer) that has run one interval.
func afterOneInterval(t *testing.T) (*Daemon, Config, *time.Time) {
	now := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	cfg := testConfig(t, 8, hiadsd.VCube, notify.Detected)
	d := newTestDaemon(t, cfg, newFakeLAN(), &sink{}, state.State{}, func() time.Time { return now })
	now = now.Add(cfg.Interval)
	d.interval(context.Background())
	return d, cfg, &now
}

// TestUpBeforeTheHello: after a stall long enough for hiADSDisUP to turn
// 0, the served value is 1 again when the hello leaves, as the interval
// begins. Before, it stayed 0 until the interval ended, and the testers
// the hello sent found the agent stalled.
func TestUpBeforeTheHello(t *testing.T) {
	d, _, now := afterOneInterval(t)
	if !d.Snapshot().Up {
		t.Fatal("hiADSDisUP is 0 after an interval")
	}
	*now = now.Add(d.staleAfter() + time.Second) // stopped
	d.mu.Lock()
	d.publishLocked() // what the watchdog does
	d.mu.Unlock()
	if d.Snapshot().Up {
		t.Fatalf("hiADSDisUP is 1 %v after the last interval (stale after %v)", d.staleAfter()+time.Second, d.staleAfter())
	}
	d.resume(context.Background(), *now)
	if !d.Snapshot().Up {
		t.Error("hiADSDisUP is still 0 as the interval after the stall begins")
	}
	if !d.hi.said.Equal(*now) {
		t.Errorf("hello said at %v, want %v", d.hi.said, *now)
	}
}

// greetingLAN is a slowLAN that signals each hello it sends; the hellos
// to an address in deaf go unanswered.
type greetingLAN struct {
	*slowLAN
	hellos chan netip.Addr
	deaf   map[netip.Addr]bool
	mu     sync.Mutex
	named  map[netip.Addr]uint32 // the node each hello named, when set
}

func (g *greetingLAN) Hello(_ context.Context, t probe.Target, node uint32) error {
	g.hellos <- t.Addr
	if g.named != nil {
		g.mu.Lock()
		g.named[t.Addr] = node
		g.mu.Unlock()
	}
	if g.deaf[t.Addr] {
		return errors.New("no answer")
	}
	return nil
}

// TestHelloOnceALinkIsBack: an agent none of whose tested peers answered
// says hello as soon as a test is answered again, while its interval still
// waits on the fetch that follows, and once in that interval.
func TestHelloOnceALinkIsBack(t *testing.T) {
	slow := newSlowLAN(true)
	lan := &greetingLAN{slowLAN: slow, hellos: make(chan netip.Addr, 16)}
	d := slowDaemon(t, lan, &sink{})
	cutOff(t, d, slow)
	slow.mu.Lock()
	clear(slow.status) // the link is back
	slow.mu.Unlock()
	done := slowInterval(t, d, slow)
	select {
	case <-lan.hellos:
	case <-time.After(10 * time.Second):
		t.Fatal("no hello while the interval waited on its fetch after the link came back")
	}
	close(slow.slow)
	<-done
	d.push.sends.Wait()
	// One tester took it: the others are not asked (each would root a tree
	// of pushes of the same repair).
	if n := len(lan.hellos) + 1; n != 1 {
		t.Errorf("%d hellos in the interval the link came back, want one: the first tester took it", n)
	}
}

// TestHelloTriesTheNextTester: a hello the first tester does not answer
// goes to the next, in testers' order, and stops at the first that
// answers.
func TestHelloTriesTheNextTester(t *testing.T) {
	slow := newSlowLAN(false)
	lan := &greetingLAN{slowLAN: slow, hellos: make(chan netip.Addr, 16), deaf: map[netip.Addr]bool{}}
	d := slowDaemon(t, lan, &sink{})
	// Node 1's likely testers, cluster 1 first (the plan does not rotate):
	// the first agent of each of its 3 clusters, nodes 2, 3 and 5.
	if got := ids(d.testers()); !slices.Equal(got, []int{2, 3, 5}) {
		t.Fatalf("testers %v, want [2 3 5]", got)
	}
	lan.deaf[addr(1)] = true // node 2 does not answer
	d.sayHello(context.Background(), "test")
	d.push.sends.Wait()
	close(lan.hellos)
	var got []netip.Addr
	for a := range lan.hellos {
		got = append(got, a)
	}
	if !slices.Equal(got, []netip.Addr{addr(1), addr(2)}) {
		t.Errorf("hellos to %v, want nodes 2 (no answer) then 3 (took it), not 5", got)
	}
}

// TestTestersRoundFirst: under the rotating plan an agent asks the tester
// of the round under way first, then those of the clusters that follow.
func TestTestersRoundFirst(t *testing.T) {
	cfg := testConfig(t, 8, hiadsd.VCube, notify.Detected)
	cfg.Rotate = true
	at := time.Unix(1000, 0) // node 1 has no stagger: round 1000 / interval
	d := newTestDaemon(t, cfg, newFakeLAN(), &sink{}, state.State{}, func() time.Time { return at })
	r, _ := d.roundAt(at)
	// Node 1's clusters: c(0,1) = {2}, c(0,2) = {3, 4}, c(0,3) = {5..8}.
	first := map[int][]int{1: {2, 3, 5}, 2: {3, 5, 2}, 3: {5, 2, 3}}
	if got, want := ids(d.testers()), first[clusterOf(r, 8)]; !slices.Equal(got, want) {
		t.Errorf("round %d (cluster %d): testers %v, want %v", r, clusterOf(r, 8), got, want)
	}
	at = at.Add(cfg.Interval) // the next round, the next cluster
	if got, want := ids(d.testers()), first[clusterOf(r+1, 8)]; !slices.Equal(got, want) {
		t.Errorf("round %d (cluster %d): testers %v, want %v", r+1, clusterOf(r+1, 8), got, want)
	}
}

// knockingLAN is a slowLAN that counts the knocks on each address.
type knockingLAN struct {
	*slowLAN
	mu     sync.Mutex
	knocks map[netip.Addr]int
}

func (k *knockingLAN) Knock(_ context.Context, t probe.Target, _ uint32) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.knocks[t.Addr]++
	return errors.New("no answer: the link is down")
}

// knocked returns how many knocks each address got so far.
func (k *knockingLAN) knocked() map[netip.Addr]int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return maps.Clone(k.knocks)
}

// TestKnocksWhileCutOff: an agent none of whose tested peers answered
// knocks on each of its testers in turn, again and again, not once, and
// stops when told to.
func TestKnocksWhileCutOff(t *testing.T) {
	slow := newSlowLAN(false)
	lan := &knockingLAN{slowLAN: slow, knocks: map[netip.Addr]int{}}
	d := slowDaemon(t, lan, &sink{})
	cutOff(t, d, slow)
	d.knocking(context.Background(), true)
	d.knocking(context.Background(), true) // already on: no second knocker
	// Node 1's likely testers: the first agent of each of its 3 clusters, 2, 3 and 5.
	testers := []netip.Addr{addr(1), addr(2), addr(4)}
	for deadline := time.Now().Add(10 * time.Second); ; {
		got := lan.knocked()
		if len(got) > len(testers) {
			t.Fatalf("knocks on %v; want only on the testers %v", got, testers)
		}
		if got[testers[0]] >= 3 && got[testers[1]] >= 3 && got[testers[2]] >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("knocks on %v after 10 s; want three on each of the testers %v", got, testers)
		}
		time.Sleep(d.cfg.Interval / knocksPerInterval)
	}
	d.knocking(context.Background(), false)
	d.push.sends.Wait() // returns once the knocker has stopped
	if d.hi.knock != nil {
		t.Error("knocking still marked on after it stopped")
	}
	// One tester a knock, in turn: no two counts differ by more than one.
	got := lan.knocked()
	if lo, hi := min(got[testers[0]], got[testers[1]], got[testers[2]]), max(got[testers[0]], got[testers[1]], got[testers[2]]); hi-lo > 1 {
		t.Errorf("knocks %v: want one tester a knock, in turn", got)
	}
}

// cutOff runs an interval in which every peer answers, then one in which
// none does (d's link is down), and checks that d counts itself cut off.
func cutOff(t *testing.T, d *Daemon, slow *slowLAN) {
	t.Helper()
	d.interval(context.Background())
	for k := 1; k < 8; k++ {
		slow.status[addr(k)] = hiadsd.Faulty
	}
	d.interval(context.Background())
	if d.hi.unanswered == 0 {
		t.Fatal("an interval in which no peer answered left the agent not cut off")
	}
}

// TestUnreachedTellsTheTesters: an agent that finds a node out of its own
// reach, while others reach it, says hello on the node's behalf to each of
// its other testers, naming the node: each tests it at once rather than
// in its turn of the rotating plan.
func TestUnreachedTellsTheTesters(t *testing.T) {
	lan := &greetingLAN{slowLAN: newSlowLAN(false), hellos: make(chan netip.Addr, 16), named: map[netip.Addr]uint32{}}
	d := slowDaemon(t, lan, &sink{})
	// Node 5's testers: c(4,1) = {6}, c(4,2) = {7, 8}, c(4,3) = {1..4},
	// whose first is node 1, this agent.
	if got := ids(d.testersOf(4)); !slices.Equal(got, []int{6, 7}) {
		t.Fatalf("node 5's other testers %v, want [6 7]", got)
	}
	d.tellTesters(context.Background(), 4)
	d.push.sends.Wait()
	if want := map[netip.Addr]uint32{addr(5): 5, addr(6): 5}; !maps.Equal(lan.named, want) {
		t.Errorf("hellos %v, want %v: nodes 6 and 7 each asked to test node 5", lan.named, want)
	}
}
