//go:build integration && linux

package traps

import (
	"errors"
	"net/netip"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/internal/netsnmptest"
	"github.com/gosnmp/gosnmp"
)

func TestTrapV2cDelivered(t *testing.T) {
	d := startTrapd(t, openTrapd)
	n := newNotifier(t, testConfig(TrapV2c, Destination{Addr: d.addr, Usable: true}))
	if err := n.NodeStatusChange(testEvent(17)); err != nil {
		t.Fatal(err)
	}
	d.expect(t, append(statusFragments("17"), "NOTIFY TRAP2, SNMP v2c, community public")...)
	if s := closeAndStats(t, n); s != (Stats{Sent: 1}) {
		t.Errorf("stats %+v, want one sent", s)
	}
}

func TestTrapV1Delivered(t *testing.T) {
	d := startTrapd(t, openTrapd)
	n := newNotifier(t, testConfig(TrapV1, Destination{Addr: d.addr, Usable: true}))
	if err := n.NodeStatusChange(testEvent(5)); err != nil {
		t.Fatal(err)
	}
	// snmptrapd prints the specific trap as the SNMPv2 notification it maps to (RFC 3584).
	d.expect(t, "NOTIFY TRAP, SNMP v1, community public\tDIAGNOSIS-MIB::diagNotifications\tDIAGNOSIS-MIB::diagNodeStatusChange\t",
		"DIAGNOSIS-MIB::diagEventStatus.5 = INTEGER: faulty(1)", "DIAGNOSIS-MIB::nodeAD.4 = IpAddress: 10.1.2.4")
	if s := closeAndStats(t, n); s != (Stats{Sent: 1}) {
		t.Errorf("stats %+v, want one sent", s)
	}
}

func TestInformV2cAcknowledged(t *testing.T) {
	d := startTrapd(t, openTrapd)
	n := newNotifier(t, testConfig(InformV2c, Destination{Addr: d.addr, Usable: true}))
	if err := n.NMSChange(hiadsd.Station{Addr: netip.MustParseAddr("192.0.2.9"), Counter: 2}); err != nil {
		t.Fatal(err)
	}
	if err := n.NodeStatusChange(testEvent(18)); err != nil {
		t.Fatal(err)
	}
	d.expect(t, "NOTIFY INFORM, SNMP v2c, community public",
		"SNMPv2-MIB::snmpTrapOID.0 = OID: DIAGNOSIS-MIB::diagNMSChange",
		"DIAGNOSIS-MIB::nmsID.0 = IpAddress: 192.0.2.9", "DIAGNOSIS-MIB::nmsIDCounter.0 = Gauge32: 2")
	d.expect(t, append(statusFragments("18"), "NOTIFY INFORM, SNMP v2c")...)
	if s := closeAndStats(t, n); s != (Stats{Sent: 2, Acknowledged: 2}) {
		t.Errorf("stats %+v, want two sent and acknowledged", s)
	}
}

func TestInformV3AuthPrivDelivered(t *testing.T) {
	cases := []struct {
		name     string
		trapdArg string
		auth     gosnmp.SnmpV3AuthProtocol
		priv     gosnmp.SnmpV3PrivProtocol
	}{
		{"SHA-256/AES-128", "SHA-256 authpass-256 AES privpass-128", gosnmp.SHA256, gosnmp.AES},
		{"SHA-512/AES-256", "SHA-512 authpass-256 AES256 privpass-128", gosnmp.SHA512, gosnmp.AES256},
		{"SHA-1/AES-128", "SHA authpass-256 AES privpass-128", gosnmp.SHA, gosnmp.AES},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := startTrapd(t, openTrapd, "createUser diaguser "+c.trapdArg)
			cfg := testConfig(InformV3, Destination{Addr: d.addr, Usable: true})
			cfg.USM = user("diaguser", c.auth, "authpass-256", c.priv, "privpass-128")
			n := newNotifier(t, cfg)
			if err := n.NodeStatusChange(testEvent(21)); err != nil {
				t.Fatal(err)
			}
			d.expect(t, append(statusFragments("21"), "NOTIFY INFORM, SNMP v3, user diaguser")...)
			if s := closeAndStats(t, n); s != (Stats{Sent: 1, Acknowledged: 1}) {
				t.Errorf("stats %+v, want one sent and acknowledged", s)
			}
		})
	}
}

func TestInformV3WrongKeyIsNotAcknowledged(t *testing.T) {
	d := startTrapd(t, openTrapd, "createUser diaguser SHA-256 authpass-256 AES privpass-128")
	cfg := testConfig(InformV3, Destination{Addr: d.addr, Usable: true})
	cfg.USM = user("diaguser", gosnmp.SHA256, "not-the-passphrase", gosnmp.AES, "privpass-128")
	cfg.Timeout, cfg.MaxTimeout, cfg.MaxAttempts = 100*time.Millisecond, 100*time.Millisecond, 2
	n := newNotifier(t, cfg)
	if err := n.NodeStatusChange(testEvent(22)); err != nil {
		t.Fatal(err)
	}
	d.wait(t, []string{"Authentication failed for diaguser"})
	s := closeAndStats(t, n)
	if s.Acknowledged != 0 || s.Dropped != 1 || s.Failed != 2 || s.Retried != 1 {
		t.Errorf("stats %+v, want 2 failed attempts (1 retry), 1 dropped, none acknowledged", s)
	}
}

func TestUnusablePrimarySkipped(t *testing.T) {
	d := startTrapd(t, openTrapd)
	hole := newBlackhole(t)
	n := newNotifier(t, testConfig(InformV2c,
		Destination{Addr: hole.addr(), Usable: false}, Destination{Addr: d.addr, Usable: true}))
	if err := n.NodeStatusChange(testEvent(30)); err != nil {
		t.Fatal(err)
	}
	d.expect(t, append(statusFragments("30"), "NOTIFY INFORM, SNMP v2c")...)
	if s := closeAndStats(t, n); s != (Stats{Sent: 1, Acknowledged: 1}) {
		t.Errorf("stats %+v, want one sent and acknowledged", s)
	}
	if b := hole.receive(t, 0); b != nil {
		t.Errorf("the unusable primary received %d bytes", len(b))
	}
}

func TestFallbackAfterPrimaryTurnsFaulty(t *testing.T) {
	d := startTrapd(t, openTrapd)
	hole := newBlackhole(t)
	var primaryUsable atomic.Bool
	primaryUsable.Store(true)
	cfg := testConfig(InformV2c)
	cfg.Timeout, cfg.MaxTimeout = 50*time.Millisecond, 50*time.Millisecond
	cfg.Stations = func() []Destination {
		return []Destination{{Addr: hole.addr(), Usable: primaryUsable.Load()}, {Addr: d.addr, Usable: true}}
	}
	n := newNotifier(t, cfg)
	if err := n.NodeStatusChange(testEvent(31)); err != nil {
		t.Fatal(err)
	}
	decodeInform(t, hole.receive(t, outputWait))
	primaryUsable.Store(false) // the diagnosis now holds the primary station faulty
	d.expect(t, append(statusFragments("31"), "NOTIFY INFORM, SNMP v2c")...)
	s := closeAndStats(t, n)
	if s.Acknowledged != 1 || s.Retried < 1 || s.Dropped != 0 {
		t.Errorf("stats %+v, want acknowledged by the fall-back after a retry", s)
	}
}

// TestInformV3KeepsTheStationEngine is issue 13's defect 9 for informs: each
// SNMPv3 inform ran an engine discovery first. Three informs to snmptrapd,
// read on the wire through a relay, now take one discovery and three
// informs; after the station restarts (new engine boots and time, or a new
// engine ID) its report makes the notifier take the new values and the next
// inform is acknowledged.
func TestInformV3KeepsTheStationEngine(t *testing.T) {
	create := "createUser diaguser SHA-256 authpass-256 AES privpass-128"
	d := startTrapd(t, openTrapd, create)
	relay := netsnmptest.StartRelay(t, "127.0.0.1", d.addr)
	cfg := testConfig(InformV3, Destination{Addr: relay.Addr(), Usable: true})
	cfg.USM = user("diaguser", gosnmp.SHA256, "authpass-256", gosnmp.AES, "privpass-128")
	n := newNotifier(t, cfg)
	for node := 41; node <= 43; node++ {
		if err := n.NodeStatusChange(testEvent(uint32(node))); err != nil {
			t.Fatal(err)
		}
		d.expect(t, append(statusFragments(strconv.Itoa(node)), "NOTIFY INFORM, SNMP v3, user diaguser")...)
	}
	waitAcknowledged(t, n, 3)
	if got := len(relay.Sent()); got != 4 {
		t.Fatalf("3 informs took %d datagrams, want 4 (one discovery, then the informs)", got)
	}

	d.Stop()
	d = startTrapdAt(t, d.addr, openTrapd, create)
	if err := n.NodeStatusChange(testEvent(44)); err != nil {
		t.Fatal(err)
	}
	d.expect(t, append(statusFragments("44"), "NOTIFY INFORM, SNMP v3, user diaguser")...)
	if s := closeAndStats(t, n); s.Acknowledged != 4 || s.Dropped != 0 {
		t.Errorf("stats %+v, want 4 acknowledged after the station's restart", s)
	}
	t.Logf("after the restart: %d datagrams in all", len(relay.Sent()))
}

// waitAcknowledged waits until n counts want acknowledged informs.
func waitAcknowledged(t *testing.T, n *Notifier, want uint64) {
	t.Helper()
	deadline := time.Now().Add(outputWait)
	for n.Stats().Acknowledged < want {
		if time.Now().After(deadline) {
			t.Fatalf("stats %+v, want %d acknowledged", n.Stats(), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestFailoverFromAStationThatIsNotANode is issue 13's defect 12: the
// fall-backs were used only while the diagnosis held the station faulty, so
// a station that is not a node (it runs snmptrapd only) was never failed
// over from. Informs the primary leaves unanswered after their attempts now
// go to the fall-back, and notifications return to the primary once it
// answers again.
func TestFailoverFromAStationThatIsNotANode(t *testing.T) {
	primary, fallback := startTrapd(t, openTrapd), startTrapd(t, openTrapd)
	cfg := testConfig(InformV2c, Destination{Addr: primary.addr, Usable: true}, Destination{Addr: fallback.addr, Usable: true})
	cfg.Timeout, cfg.MaxTimeout, cfg.MaxAttempts, cfg.Recheck = 100*time.Millisecond, 100*time.Millisecond, 2, 300*time.Millisecond
	n := newNotifier(t, cfg)
	send := func(node int) {
		if err := n.NodeStatusChange(testEvent(uint32(node))); err != nil {
			t.Fatal(err)
		}
	}
	send(51)
	primary.expect(t, statusFragments("51")...)

	primary.Stop()
	send(52)
	fallback.expect(t, statusFragments("52")...)
	send(53) // the primary is down: straight to the fall-back
	fallback.expect(t, statusFragments("53")...)
	waitAcknowledged(t, n, 3)
	if s := n.Stats(); s.Failovers != 1 || s.Dropped != 0 || s.Acknowledged != 3 {
		t.Fatalf("stats %+v, want one failover, none dropped, 3 acknowledged", s)
	}

	primary = startTrapdAt(t, primary.addr, openTrapd)
	for node := 54; ; node++ {
		if node > 200 {
			t.Fatal("notifications never returned to the restarted primary")
		}
		send(node)
		if receivedBy(t, strconv.Itoa(node), primary, fallback) == primary {
			break
		}
	}
	if s := closeAndStats(t, n); s.Dropped != 0 {
		t.Errorf("stats %+v, want none dropped", s)
	}
}

// receivedBy waits for the notification about node at one of the stations
// and returns that station.
func receivedBy(t *testing.T, node string, stations ...*trapd) *trapd {
	t.Helper()
	deadline := time.Now().Add(outputWait)
	for time.Now().Before(deadline) {
		for _, d := range stations {
			if _, err := d.Wait(10*time.Millisecond, d.next, func(l string) bool { return containsAll(l, statusFragments(node)) }); err == nil {
				return d
			}
		}
	}
	t.Fatalf("no station received the notification about node %s", node)
	return nil
}

// TestStandardNotificationsDelivered: coldStart and authenticationFailure
// reach snmptrapd as SNMPv2-MIB's notifications in SNMPv2c, and in SNMPv1
// as generic traps 0 and 4 of the agent's sysObjectID (the DIAGNOSIS-MIB
// root), which snmptrapd prints as the enterprise and the generic number.
func TestStandardNotificationsDelivered(t *testing.T) {
	for _, c := range []struct {
		kind       Kind
		cold, auth string
	}{
		{TrapV2c, "snmpTrapOID.0 = OID: SNMPv2-MIB::coldStart", "snmpTrapOID.0 = OID: SNMPv2-MIB::authenticationFailure"},
		{TrapV1, "SNMP v1, community public\tDIAGNOSIS-MIB::diagnosisMIB\t0\t\tgeneric 0", "SNMP v1, community public\tDIAGNOSIS-MIB::diagnosisMIB\t0\t\tgeneric 4"},
	} {
		d := startTrapd(t, openTrapd)
		n := newNotifier(t, testConfig(c.kind, Destination{Addr: d.addr, Usable: true}))
		if err := n.ColdStart(); err != nil {
			t.Fatal(err)
		}
		d.expect(t, c.cold)
		if err := n.AuthenticationFailure(netip.MustParseAddr("192.0.2.66")); err != nil {
			t.Fatal(err)
		}
		d.expect(t, c.auth)
		if s := closeAndStats(t, n); s != (Stats{Sent: 2}) {
			t.Errorf("%v: stats %+v, want two sent", c.kind, s)
		}
	}
}

// TestNodeListMismatchDelivered: diagNodeListMismatch reaches snmptrapd
// with this agent's fingerprint and the peer's address by name.
func TestNodeListMismatchDelivered(t *testing.T) {
	d := startTrapd(t, openTrapd)
	n := newNotifier(t, testConfig(TrapV2c, Destination{Addr: d.addr, Usable: true}))
	m := ListMismatch{Peer: 3, PeerAddr: netip.MustParseAddr("10.1.2.3"), Ours: []byte{1, 2, 3, 4, 5, 6, 7, 8}}
	if err := n.NodeListMismatch(m); err != nil {
		t.Fatal(err)
	}
	d.expect(t, "SNMPv2-MIB::snmpTrapOID.0 = OID: DIAGNOSIS-MIB::diagNodeListMismatch",
		"DIAGNOSIS-MIB::diagNodeListHash.0 = Hex-STRING: 01 02 03 04 05 06 07 08",
		"DIAGNOSIS-MIB::nodeAddrType.3 = INTEGER: ipv4(1)")
	if err := n.NodeListMismatch(ListMismatch{Peer: 3, PeerAddr: m.PeerAddr, Ours: []byte{1}}); !errors.Is(err, ErrInvalidEvent) {
		t.Errorf("a short fingerprint: %v, want ErrInvalidEvent", err)
	}
	closeAndStats(t, n)
}
