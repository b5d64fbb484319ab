//go:build integration && linux

package probe

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"testing"

	"github.com/diagagent/diagagent/agent/metrics/metricstest"
	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/agent/keyring"
	"github.com/diagagent/diagagent/agent/usm"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/internal/netsnmptest"
	"github.com/diagagent/diagagent/mib"
)

func TestProbeFaultFreeWhenLoopIsUp(t *testing.T) {
	d := startProbeSNMPD(t, upLine("1"))
	res := newTestProber(t, nil).Probe(probeContext(t), d.target())
	if res.Status != hiadsd.FaultFree || res.SNMPErr != nil || res.PingErr != nil {
		t.Fatalf("got %+v, want fault-free without errors", res)
	}
	if res.RTT <= 0 || res.Duration < res.RTT {
		t.Fatalf("RTT %s, Duration %s: want 0 < RTT <= Duration", res.RTT, res.Duration)
	}
}

func TestProbeStalledLoopIsPartial(t *testing.T) {
	d := startProbeSNMPD(t, upLine("0"))
	res := newTestProber(t, nil).Probe(probeContext(t), d.target())
	if res.Status != hiadsd.Partial || !errors.Is(res.SNMPErr, ErrLoopStalled) || res.PingErr != nil {
		t.Fatalf("got %+v, want partial with ErrLoopStalled and no ping", res)
	}
}

func TestProbeUnexpectedValueFallsBackToPing(t *testing.T) {
	d := startProbeSNMPD(t, upLine("yes"))
	res := newTestProber(t, nil).Probe(probeContext(t), d.target())
	if res.Status != hiadsd.Partial || !errors.Is(res.SNMPErr, ErrUnexpectedValue) || res.PingErr != nil {
		t.Fatalf("got %+v, want partial with ErrUnexpectedValue (loopback answers ping)", res)
	}
}

func TestProbePlainSNMPDIsPartial(t *testing.T) {
	// An SNMP agent without the DIAGNOSIS-MIB answers noSuchObject: not a diagnosing node.
	d := startProbeSNMPD(t)
	res := newTestProber(t, nil).Probe(probeContext(t), d.target())
	if res.Status != hiadsd.Partial || !errors.Is(res.SNMPErr, ErrUnexpectedValue) {
		t.Fatalf("got %+v, want partial with ErrUnexpectedValue", res)
	}
}

func TestProbeStoppedSNMPDIsPartial(t *testing.T) {
	d := startProbeSNMPD(t, upLine("1"))
	p := newTestProber(t, nil)
	if res := p.Probe(probeContext(t), d.target()); res.Status != hiadsd.FaultFree {
		t.Fatalf("before stop: got %+v, want fault-free", res)
	}
	d.stop()
	res := p.Probe(probeContext(t), d.target())
	if res.Status != hiadsd.Partial || res.SNMPErr == nil || res.PingErr != nil || res.RTT <= 0 {
		t.Fatalf("after stop: got %+v, want partial with an SNMP error and a ping RTT", res)
	}
}

func TestProbeTestedOnly(t *testing.T) {
	d := startProbeSNMPD(t, "rocommunity printer 127.0.0.1")
	p := newTestProber(t, nil)
	cases := []struct {
		name    string
		target  func(Target) Target
		want    hiadsd.Status
		wantErr error
	}{
		{"sysUpTime by default", func(tg Target) Target { tg.TestedOnly = true; return tg }, hiadsd.FaultFree, nil},
		{"own community and OID", func(tg Target) Target {
			tg.TestedOnly, tg.Community, tg.OID = true, "printer", mib.SysName0
			return tg
		}, hiadsd.FaultFree, nil},
		{"missing object", func(tg Target) Target {
			tg.TestedOnly, tg.OID = true, mib.HiADSDisUP0
			return tg
		}, hiadsd.Partial, ErrUnexpectedValue},
		{"wrong community", func(tg Target) Target {
			tg.TestedOnly, tg.Community = true, "nope"
			return tg
		}, hiadsd.Partial, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := p.Probe(probeContext(t), c.target(d.target()))
			if res.Status != c.want || (c.wantErr != nil && !errors.Is(res.SNMPErr, c.wantErr)) {
				t.Fatalf("got %+v, want %v (SNMPErr %v)", res, c.want, c.wantErr)
			}
			if (c.want == hiadsd.FaultFree) != (res.SNMPErr == nil) {
				t.Fatalf("SNMPErr %v with status %v", res.SNMPErr, res.Status)
			}
		})
	}
}

func TestProbeV3(t *testing.T) {
	d := startProbeSNMPD(t,
		`createUser diag SHA "diag-auth-pass" AES "diag-priv-pass"`,
		"rouser diag priv",
		upLine("1"))
	creds := usm.User{Name: "diag", AuthProtocol: "sha", AuthPassphrase: "diag-auth-pass",
		PrivProtocol: "aes", PrivPassphrase: "diag-priv-pass"}
	p := newTestProber(t, func(c *Config) { c.V3 = &creds })
	if res := p.Probe(probeContext(t), d.target()); res.Status != hiadsd.FaultFree {
		t.Fatalf("good credentials: got %+v, want fault-free", res)
	}
	bad := creds
	bad.PrivPassphrase = "wrong-priv-pass"
	p = newTestProber(t, func(c *Config) { c.V3 = &bad })
	if res := p.Probe(probeContext(t), d.target()); res.Status != hiadsd.Partial || res.SNMPErr == nil {
		t.Fatalf("bad privacy pass: got %+v, want partial with an SNMP error", res)
	}
}

func TestProbeGivesUpWhenNoSlotFrees(t *testing.T) {
	d := startProbeSNMPD(t, upLine("1"))
	p := newTestProber(t, func(c *Config) { c.Concurrency = 1 })
	p.slots <- struct{}{} // hold the only slot
	ctx, cancel := context.WithCancel(probeContext(t))
	cancel()
	res := p.Probe(ctx, d.target())
	if res.Status != hiadsd.Unknown || !errors.Is(res.SNMPErr, context.Canceled) {
		t.Fatalf("with no free slot: got %+v, want unknown with the context error", res)
	}
	<-p.slots
	if res := p.Probe(probeContext(t), d.target()); res.Status != hiadsd.FaultFree {
		t.Fatalf("after release: got %+v, want fault-free", res)
	}
}

// TestProbeOverIPv6: a peer at an IPv6 address is tested over UDP6, and
// once its agent stops, found partial by an ICMPv6 echo.
func TestProbeOverIPv6(t *testing.T) {
	port := netsnmptest.FreeUDPPort(t, "::1")
	d := netsnmptest.StartSNMPD(t, fmt.Sprintf("[::1]:%d", port), "public",
		[]string{"rocommunity6 public ::1", "dontLogTCPWrappersConnects yes", upLine("1")})
	target := Target{Addr: netip.MustParseAddr("::1"), Port: uint16(port)}
	p := newTestProber(t, nil)
	if res := p.Probe(probeContext(t), target); res.Status != hiadsd.FaultFree || res.SNMPErr != nil {
		t.Fatalf("over UDP6: got %+v, want fault-free", res)
	}
	d.Stop()
	res := p.Probe(probeContext(t), target)
	if res.Status != hiadsd.Partial || res.SNMPErr == nil || res.PingErr != nil || res.RTT <= 0 {
		t.Fatalf("after stop: got %+v, want partial by ICMPv6 echo", res)
	}
}

// TestProbeV3KeepsTheEngine: the first SNMPv3 test of a peer discovers its
// engine (two requests); the prober keeps the engine ID, boots and time, so
// every later test of that peer is one request and one reply, as in v2c,
// from the second on one kept socket (idle: the first has no test before
// it), and no two requests share an AES salt (its IV). The cluster key's
// user (SHA-256, AES) is the one used here.
func TestProbeV3KeepsTheEngine(t *testing.T) {
	p, target, relay := v3PeerThroughRelay(t)
	for i := range 4 {
		if res := p.Probe(probeContext(t), target); res.Status != hiadsd.FaultFree {
			t.Fatalf("test %d: got %+v, want fault-free", i+1, res)
		}
		if got, want := len(relay.Sent()), i+2; got != want {
			t.Fatalf("after %d tests the prober sent %d datagrams, want %d (one discovery, then one request a test)", i+1, got, want)
		}
	}
	salts := map[string]int{}
	for i, b := range relay.Sent()[1:] {
		if flags := v3Flags(t, b); flags&byte(gosnmp.AuthPriv) != byte(gosnmp.AuthPriv) {
			t.Errorf("request %d has msgFlags %#x, want authPriv", i+2, flags)
		}
		salt := v3Salt(t, b)
		if k, ok := salts[salt]; ok || len(salt) != 8 {
			t.Errorf("request %d has salt %x (%d octets), as request %d had; want 8 octets, new each time", i+2, salt, len(salt), k)
		}
		salts[salt] = i + 2
	}
	if n := relay.Sources(); n != 2 {
		t.Errorf("the tests came from %d sockets, want 2", n)
	}
}

// v3Salt returns an SNMPv3 message's msgPrivacyParameters: its AES salt.
// gosnmp decodes no field of a message it cannot authenticate, so this
// walks the BER: the message's third field holds the USM parameters, and
// their sixth is the salt.
func v3Salt(t *testing.T, b []byte) string {
	t.Helper()
	next := func(b []byte) (body, rest []byte) {
		if len(b) < 2 {
			t.Fatalf("BER cut short: % x", b)
		}
		n, at := int(b[1]), 2
		if n&0x80 != 0 {
			k := n & 0x7f
			n, at = 0, 2+k
			for _, c := range b[2:at] {
				n = n<<8 | int(c)
			}
		}
		if at+n > len(b) {
			t.Fatalf("BER length %d past the end", n)
		}
		return b[at : at+n], b[at+n:]
	}
	msg, _ := next(b)
	_, rest := next(msg) // msgVersion
	_, rest = next(rest) // msgGlobalData
	sec, _ := next(rest) // msgSecurityParameters, an OCTET STRING
	usmParams, _ := next(sec)
	field := usmParams
	var salt []byte
	for range 6 { // engine ID, boots, time, user name, auth, priv
		salt, field = next(field)
	}
	return string(salt)
}

// TestLearnEngineAheadOfNeed: LearnEngine discovers a peer's engine (net-
// snmp's snmpd) once, with one unauthenticated request that names no user;
// a GET as the cluster key's user afterwards is one request, spoken with
// the keys this agent localized itself (usm.User.Localized), which snmpd
// accepts; a second LearnEngine sends nothing.
func TestLearnEngineAheadOfNeed(t *testing.T) {
	p, target, relay := v3PeerThroughRelay(t)
	if p.KnowsEngine(target) {
		t.Fatal("an engine known before any exchange")
	}
	if err := p.LearnEngine(probeContext(t), target); err != nil || !p.KnowsEngine(target) || len(relay.Sent()) != 1 {
		t.Fatalf("LearnEngine: %v, known %v, %d datagrams sent; want nil, true, 1", err, p.KnowsEngine(target), len(relay.Sent()))
	}
	if flags := v3Flags(t, relay.Sent()[0]); flags&byte(gosnmp.AuthPriv) != 0 {
		t.Fatalf("the discovery has msgFlags %#x, want neither auth nor priv", flags)
	}
	if err := p.LearnEngine(probeContext(t), target); err != nil || len(relay.Sent()) != 1 {
		t.Fatalf("LearnEngine again: %v, %d datagrams sent in all; want nil, still 1", err, len(relay.Sent()))
	}
	if _, err := p.Get(probeContext(t), target, mib.SysUpTime0); err != nil || len(relay.Sent()) != 2 {
		t.Fatalf("a GET once the engine is learned: %v, %d datagrams sent in all; want nil, 2", err, len(relay.Sent()))
	}
	if res := p.Probe(probeContext(t), target); res.Status != hiadsd.FaultFree || len(relay.Sent()) != 3 {
		t.Fatalf("a test once the engine is learned: %+v, %d datagrams sent in all; want fault-free, 3", res, len(relay.Sent()))
	}
}

// TestProbeV3RestartedPeer: the prober holds a peer's engine at an older
// boots count than the peer's, as after the peer restarted. The peer
// answers the test's GET with a notInTimeWindow report, delivered twice:
// gosnmp takes the new boots from the first and resends, then reads the
// second as the reply to its resend. The test asks again and finds the
// peer fault-free, as it is, instead of reading a malformed reply as
// partial (156 false verdicts at N = 256 when one agent restarted).
func TestProbeV3RestartedPeer(t *testing.T) {
	p, target, relay := v3PeerThroughRelay(t)
	if res := p.Probe(probeContext(t), target); res.Status != hiadsd.FaultFree {
		t.Fatalf("first test: got %+v, want fault-free", res)
	}
	p.book.update(key(target), func(s *peerState) { s.engine.boots-- }) // the peer restarted since
	relay.DuplicateNext(1)
	res := p.Probe(probeContext(t), target)
	if res.Status != hiadsd.FaultFree || res.SNMPErr != nil || res.Retested {
		t.Fatalf("after the peer's restart: got %+v, want fault-free at the first try, not by a re-test", res)
	}
	if got := metricstest.ToFloat64(p.met.engineReports); got != 1 {
		t.Errorf("diagagent_engine_reports_total %v, want 1", got)
	}
}

// v3PeerThroughRelay starts an snmpd that knows a new cluster key's user,
// a relay in front of it that keeps what crosses it, and a prober that
// tests as that user: the relay is the prober's target.
func v3PeerThroughRelay(t *testing.T) (*Prober, Target, *netsnmptest.Relay) {
	t.Helper()
	k, err := keyring.Generate()
	if err != nil {
		t.Fatal(err)
	}
	u := k.User()
	d := startProbeSNMPD(t,
		fmt.Sprintf(`createUser %s SHA-256 "%s" AES "%s"`, u.Name, u.AuthPassphrase, u.PrivPassphrase),
		"rouser "+u.Name+" priv",
		upLine("1"))
	relay := netsnmptest.StartRelay(t, "127.0.0.1", fmt.Sprintf("127.0.0.1:%d", d.port))
	ap := netip.MustParseAddrPort(relay.Addr())
	target := Target{Addr: ap.Addr(), Port: ap.Port()}
	p := newTestProber(t, func(c *Config) { c.V3 = &u })
	return p, target, relay
}

// v3Flags returns the msgFlags octet of an SNMPv3 message.
func v3Flags(t *testing.T, b []byte) byte {
	t.Helper()
	var g gosnmp.GoSNMP
	pkt, err := g.SnmpDecodePacket(b)
	if err != nil && pkt == nil {
		t.Fatalf("not an SNMP message: %v", err)
	}
	if pkt.Version != gosnmp.Version3 {
		t.Fatalf("version %v, want SNMPv3", pkt.Version)
	}
	return byte(pkt.MsgFlags)
}
