package traps

import (
	"context"
	"errors"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// openTrapd is the snmptrapd configuration for community notifications.
const openTrapd = "disableAuthorization yes"

// testEvent is a status change of node 4 (NodeID) seen directly, detected by node 3.
func testEvent(seq uint32) mib.Event {
	return mib.Event{
		Seq:      seq,
		NodeID:   4,
		Addr:     netip.MustParseAddr("10.1.2.4"),
		Status:   hiadsd.Faulty,
		Prev:     hiadsd.FaultFree,
		Counter:  9,
		How:      mib.SourceDirect,
		Detector: 3,
		Time:     time.Date(2026, 11, 21, 6, 30, 15, 0, time.UTC),
	}
}

// statusFragments are what snmptrapd must print for testEvent(seq).
func statusFragments(seq string) []string {
	return []string{
		"SNMPv2-MIB::sysUpTime.0 = Timeticks: (4321)",
		"SNMPv2-MIB::snmpTrapOID.0 = OID: DIAGNOSIS-MIB::diagNodeStatusChange",
		"DIAGNOSIS-MIB::diagEventNodeID." + seq + " = INTEGER: 4",
		"DIAGNOSIS-MIB::nodeAD.4 = IpAddress: 10.1.2.4",
		"DIAGNOSIS-MIB::diagEventStatus." + seq + " = INTEGER: faulty(1)",
		"DIAGNOSIS-MIB::diagEventPrevStatus." + seq + " = INTEGER: faultFree(0)",
		"DIAGNOSIS-MIB::diagEventCounter." + seq + " = Gauge32: 9",
		"DIAGNOSIS-MIB::diagEventHowLearned." + seq + " = INTEGER: direct(1)",
		"DIAGNOSIS-MIB::diagEventDetector." + seq + " = INTEGER: 3",
		"DIAGNOSIS-MIB::diagEventSource." + seq + " = INTEGER: 0",
		"DIAGNOSIS-MIB::diagEventTime." + seq + " = STRING: 2026-11-21,6:30:15.0",
	}
}

// testConfig returns a configuration of the given kind sending to stations.
func testConfig(kind Kind, stations ...Destination) Config {
	cfg := Default()
	cfg.Kind = kind
	cfg.Stations = func() []Destination { return stations }
	cfg.Uptime = func() uint32 { return 4321 }
	cfg.Timeout = 500 * time.Millisecond
	cfg.MaxTimeout = 2 * time.Second
	cfg.AgentAddress = "127.0.0.1"
	return cfg
}

// newNotifier starts a notifier and closes it when the test ends.
func newNotifier(t testing.TB, cfg Config) *Notifier {
	t.Helper()
	n, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Shutdown(cancelled()) })
	return n
}

// cancelled returns a context that is already done, for an immediate shutdown.
func cancelled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// closeAndStats drains the notifier and returns its final counters.
func closeAndStats(t *testing.T, n *Notifier) Stats {
	t.Helper()
	if err := n.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return n.Stats()
}

// decodeInform parses a datagram the black hole received and checks it is an inform.
func decodeInform(t *testing.T, b []byte) *gosnmp.SnmpPacket {
	t.Helper()
	if b == nil {
		t.Fatal("the silent station received nothing")
	}
	p, err := gosnmp.Default.SnmpDecodePacket(b)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if p.PDUType != gosnmp.InformRequest {
		t.Fatalf("silent station got PDU %v, want InformRequest", p.PDUType)
	}
	return p
}

// waitForSeq reads the silent station until an inform for event seq arrives.
func waitForSeq(t *testing.T, hole *blackhole, seq uint32) {
	t.Helper()
	want := mib.EventCell(mib.ColEventNodeID, seq)
	deadline := time.Now().Add(outputWait)
	for time.Now().Before(deadline) {
		p := decodeInform(t, hole.receive(t, time.Until(deadline)))
		if p.Variables[2].Name == want {
			return
		}
	}
	t.Fatalf("no inform for event %d within %v", seq, outputWait)
}

func TestInformToSilentStationRetriedThenDroppedWhenQueueFull(t *testing.T) {
	hole := newBlackhole(t)
	cfg := testConfig(InformV2c, Destination{Addr: hole.addr(), Usable: true})
	cfg.QueueSize = 2
	cfg.Timeout, cfg.MaxTimeout = 20*time.Millisecond, 40*time.Millisecond
	n := newNotifier(t, cfg)
	if err := n.NodeStatusChange(testEvent(1)); err != nil {
		t.Fatal(err)
	}
	first := decodeInform(t, hole.receive(t, outputWait))
	retry := decodeInform(t, hole.receive(t, outputWait))
	if first.Variables[1].Value != retry.Variables[1].Value || retry.Variables[2].Name != mib.EventCell(mib.ColEventNodeID, 1) {
		t.Errorf("retry %v is not the same notification as %v", retry.Variables, first.Variables)
	}
	for seq := uint32(2); seq <= 3; seq++ {
		if err := n.NodeStatusChange(testEvent(seq)); err != nil {
			t.Fatal(err)
		}
	}
	if s := n.Stats(); s.Dropped != 1 || s.Pending != 2 || s.Retried < 1 || s.Acknowledged != 0 {
		t.Errorf("after overflow: stats %+v, want 1 dropped, 2 pending, retries, none acknowledged", s)
	}
	waitForSeq(t, hole, 2) // the sender gave up on the dropped first event and moved on
	err := n.Shutdown(cancelled())
	if !errors.Is(err, ErrDrainTimeout) {
		t.Fatalf("Shutdown = %v, want ErrDrainTimeout", err)
	}
	if s := n.Stats(); s.Dropped != 3 || s.Pending != 0 {
		t.Errorf("after shutdown: stats %+v, want all 3 dropped", s)
	}
	if err := n.NodeStatusChange(testEvent(4)); !errors.Is(err, ErrClosed) {
		t.Errorf("NodeStatusChange after Shutdown = %v, want ErrClosed", err)
	}
}

func TestNoUsableStationDrops(t *testing.T) {
	n := newNotifier(t, testConfig(TrapV2c, Destination{Addr: "127.0.0.1:9", Usable: false}))
	if err := n.NodeStatusChange(testEvent(1)); err != nil {
		t.Fatal(err)
	}
	if s := closeAndStats(t, n); s != (Stats{Dropped: 1}) {
		t.Errorf("stats %+v, want one dropped", s)
	}
}

// TestStationChangesNeverPushOutFaults is the second half of issue 13's
// defect 6: 1,500 SETs of nmsID pushed 1,484 node-status notifications out
// of the queue, so whoever held the write community could silence a fault.
// A full queue now drops station changes first, and a station change never
// evicts a node-status notification.
func TestStationChangesNeverPushOutFaults(t *testing.T) {
	n := fillingQueue(t, 4)
	for k := range 1500 {
		if err := n.NMSChange(hiadsd.Station{Addr: netip.AddrFrom4([4]byte{192, 0, 2, byte(k)}), Counter: uint32(k + 1)}); err != nil {
			t.Fatal(err)
		}
	}
	for seq := uint32(3); seq <= 4; seq++ { // faults after the flood push station changes out, not faults
		if err := n.NodeStatusChange(testEvent(seq)); err != nil {
			t.Fatal(err)
		}
	}
	kept := queued(n)
	want := []string{"diagNodeStatusChange seq=1 node=4", "diagNodeStatusChange seq=2 node=4",
		"diagNodeStatusChange seq=3 node=4", "diagNodeStatusChange seq=4 node=4"}
	if !slices.Equal(kept, want) {
		t.Fatalf("queue after the flood: %q, want the four node-status notifications", kept)
	}
}

// TestAuthenticationFailuresAreSpaced: a flood of bad packets queues one
// authenticationFailure per authFailureGap, and none of them pushes a
// node's status change out of a full queue.
func TestAuthenticationFailuresAreSpaced(t *testing.T) {
	n := fillingQueue(t, 2)
	src := netip.MustParseAddr("192.0.2.66")
	for range 1000 {
		if err := n.AuthenticationFailure(src); err != nil {
			t.Fatal(err)
		}
	}
	if d := n.Stats().Dropped; d != 1 {
		t.Errorf("1,000 failures within the gap dropped %d notifications, want the one queued", d)
	}
	n.lastAuthFailure.Add(-int64(authFailureGap)) // as if the gap had passed
	if err := n.AuthenticationFailure(src); err != nil {
		t.Fatal(err)
	}
	kept := queued(n)
	if want := []string{"diagNodeStatusChange seq=1 node=4", "diagNodeStatusChange seq=2 node=4"}; !slices.Equal(kept, want) {
		t.Fatalf("queue: %q, want the two node-status notifications", kept)
	}
	if d := n.Stats().Dropped; d != 2 {
		t.Errorf("dropped %d, want 2: one per gap", d)
	}
}

// fillingQueue returns a notifier of informs to a station that never
// answers, so the first inform waits an hour and the queue only fills, with
// room for size and node-status notifications seq 1 and 2 already queued.
func fillingQueue(t *testing.T, size int) *Notifier {
	t.Helper()
	hole := newBlackhole(t)
	cfg := testConfig(InformV2c, Destination{Addr: hole.addr(), Usable: true})
	cfg.QueueSize = size
	cfg.Timeout, cfg.MaxTimeout = time.Hour, time.Hour
	n := newNotifier(t, cfg)
	for seq := uint32(1); seq <= 2; seq++ {
		if err := n.NodeStatusChange(testEvent(seq)); err != nil {
			t.Fatal(err)
		}
	}
	return n
}

// queued lists the labels of what n's queue holds, oldest first.
func queued(n *Notifier) []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var kept []string
	for _, e := range n.queue {
		kept = append(kept, e.note.label)
	}
	return kept
}
