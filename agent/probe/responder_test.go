package probe

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"reflect"
	"testing"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/agent/snmp"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// startProbeResponder serves snap from an in-process Responder on a loopback
// port with community "public" and returns the Target that reaches it.
func startProbeResponder(t *testing.T, snap *board.Snapshot) Target {
	t.Helper()
	return startResponderWith(t, snap, nil)
}

// startResponderWith is startProbeResponder with edit applied to the
// Responder's configuration.
func startResponderWith(t *testing.T, snap *board.Snapshot, edit func(*snmp.Config)) Target {
	t.Helper()
	cfg := snmp.Default()
	cfg.Communities = []snmp.Community{{Name: "public"}}
	if edit != nil {
		edit(&cfg)
	}
	r, err := snmp.NewResponder(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Publish(snap); err != nil {
		t.Fatal(err)
	}
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- r.Serve(conn) }()
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return Target{Addr: netip.MustParseAddr("127.0.0.1"), Port: uint16(conn.LocalAddr().(*net.UDPAddr).Port)}
}

// probeSnapshot is a view of n nodes with varied statuses and counters and
// events with sequence numbers 5, 6, ... .
func probeSnapshot(n, events int) *board.Snapshot {
	s := &board.Snapshot{Up: true, Station: hiadsd.Station{Addr: netip.MustParseAddr("192.0.2.9"), Counter: 4}, NodeListHash: make([]byte, 8)}
	for i := 1; i <= n; i++ {
		s.Nodes = append(s.Nodes, board.Row{ID: uint32(i), Member: nodelist.Member{Addr: netip.AddrFrom4([4]byte{10, 0, 0, byte(i)})},
			Status: hiadsd.Status(i % 4), Counter: uint32(3 * i), How: mib.SourceLearned})
	}
	when := time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)
	for k := 0; k < events; k++ {
		s.Events = append(s.Events, mib.Event{Seq: uint32(5 + k), NodeID: uint32(1 + k), Status: hiadsd.Faulty,
			Prev: hiadsd.FaultFree, Counter: uint32(k + 1), Time: when.Add(time.Duration(k) * time.Second),
			How: mib.SourceDirect, Detector: 2})
	}
	return s
}

func TestProbeAgainstResponder(t *testing.T) {
	snap := probeSnapshot(3, 0)
	snap.Digest = snap.FetchDigest()
	up := startProbeResponder(t, snap)
	p := newTestProber(t, nil)
	if res := p.Probe(probeContext(t), up); res.Status != hiadsd.FaultFree || res.SNMPErr != nil || res.Digest != snap.Digest {
		t.Fatalf("loop up: got %+v, want fault-free with digest %x", res, snap.Digest)
	}
	stalledSnap := probeSnapshot(3, 0)
	stalledSnap.Up = false
	stalled := startProbeResponder(t, stalledSnap)
	if res := p.Probe(probeContext(t), stalled); res.Status != hiadsd.Partial || !errors.Is(res.SNMPErr, ErrLoopStalled) {
		t.Fatalf("loop stalled: got %+v, want partial with ErrLoopStalled", res)
	}
}

func TestFetchRowsFromResponder(t *testing.T) {
	snap := probeSnapshot(100, 0)
	target := startProbeResponder(t, snap)
	want := func(lo, hi int) []Row {
		var rows []Row
		for _, n := range snap.Nodes[lo-1 : hi] {
			rows = append(rows, Row{ID: n.ID, Status: n.Status, Counter: n.Counter})
		}
		return rows
	}
	for _, c := range []struct{ lo, hi, maxRep int }{
		{1, 100, 64}, {1, 100, 7}, {33, 64, 64}, {100, 100, 1}, {65, 128, 64},
	} {
		p := newTestProber(t, func(cfg *Config) { cfg.MaxRepetitions = c.maxRep })
		got, err := p.FetchRows(probeContext(t), target, c.lo, c.hi)
		if err != nil {
			t.Fatalf("FetchRows(%d, %d): %v", c.lo, c.hi, err)
		}
		if exp := want(c.lo, min(c.hi, 100)); !reflect.DeepEqual(got, exp) {
			t.Errorf("FetchRows(%d, %d) max-rep %d: got %d rows %+v, want %d rows", c.lo, c.hi, c.maxRep, len(got), got, len(exp))
		}
	}
}

func TestFetchEventsAndNMSFromResponder(t *testing.T) {
	snap := probeSnapshot(10, 20)
	target := startProbeResponder(t, snap)
	p := newTestProber(t, func(cfg *Config) { cfg.MaxRepetitions = 21 })
	for _, after := range []uint32{0, 4, 5, 17, 24, 1000} {
		got, err := p.FetchEvents(probeContext(t), target, after)
		if err != nil {
			t.Fatalf("FetchEvents(%d): %v", after, err)
		}
		var exp []mib.Event
		for _, e := range snap.Events {
			if e.Seq > after {
				exp = append(exp, e)
			}
		}
		if !reflect.DeepEqual(got, exp) {
			t.Errorf("FetchEvents(%d): got %+v, want %+v", after, got, exp)
		}
	}
	f, err := p.FetchDiagnosis(probeContext(t), target, 1, 10)
	if err != nil || f.Station.Addr != snap.Station.Addr || f.Station.Counter != snap.Station.Counter || len(f.Rows) != 10 {
		t.Fatalf("FetchDiagnosis = %v, %d, %d rows, %v; want %v, %d, 10 rows", f.Station.Addr, f.Station.Counter, len(f.Rows), err, snap.Station.Addr, snap.Station.Counter)
	}
}

// TestPushNotBehindTests: a push leaves while every test slot is taken
// (tests awaiting silent peers): pushes and hellos have slots of their
// own. A key change's SET still waits for a test slot.
func TestPushNotBehindTests(t *testing.T) {
	pushes := make(chan board.Push, 1)
	to := startResponderWith(t, probeSnapshot(3, 0), func(c *snmp.Config) {
		c.Communities = append(c.Communities, snmp.Community{Name: "private", Write: true})
		c.OnPush = func(p board.Push) error { pushes <- p; return nil }
	})
	p := newTestProber(t, func(c *Config) { c.WriteCommunity, c.Concurrency = "private", 2 })
	for range cap(p.slots) {
		p.slots <- struct{}{} // every test slot held
	}
	want := board.Push{From: 2, Cluster: 1, Entries: []board.PushEntry{{NodeID: 3, Status: hiadsd.Faulty, Counter: 1}}}
	b, err := board.MarshalPush(want)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Push(probeContext(t), to, b); err != nil {
		t.Fatalf("push with every test slot held: %v", err)
	}
	if got := <-pushes; !reflect.DeepEqual(got, want) {
		t.Errorf("the responder took %+v, want %+v", got, want)
	}
	ctx, cancel := context.WithTimeout(probeContext(t), 100*time.Millisecond)
	defer cancel()
	if err := p.Set(ctx, to, gosnmp.SnmpPDU{Name: mib.DiagPush0, Type: gosnmp.OctetString, Value: b}); err == nil {
		t.Error("a key change's SET left with every test slot held; want it to wait for one")
	}
}

// TestAskAgainstResponder: Ask says yes for a peer whose loop runs, and
// no, without an echo check, for one whose loop stalled and for a port
// nobody listens on, even while every test slot is held.
func TestAskAgainstResponder(t *testing.T) {
	up := startProbeResponder(t, probeSnapshot(3, 0))
	stalledSnap := probeSnapshot(3, 0)
	stalledSnap.Up = false
	stalled := startProbeResponder(t, stalledSnap)
	dead := Target{Addr: netip.MustParseAddr("127.0.0.1"), Port: probeFreePort(t)}
	g := &gatePinger{entered: make(chan struct{}), release: make(chan error)}
	cfg := Default()
	cfg.Timeout, cfg.Retries, cfg.Concurrency = 200*time.Millisecond, 0, 1
	p, err := New(cfg, g)
	if err != nil {
		t.Fatal(err)
	}
	p.slots <- struct{}{} // a test of a silent peer holds the only slot
	defer func() { <-p.slots }()
	if !p.Ask(probeContext(t), up) {
		t.Error("Ask: no from a peer whose loop runs")
	}
	if p.Ask(probeContext(t), stalled) {
		t.Error("Ask: yes from a peer whose loop stalled")
	}
	ctx, cancel := context.WithTimeout(probeContext(t), time.Second)
	defer cancel()
	if p.Ask(ctx, dead) {
		t.Error("Ask: yes from a port nobody listens on")
	}
	if peak := g.peak.Load(); peak != 0 {
		t.Errorf("Ask pinged %d times; want no echo check", peak)
	}
}
