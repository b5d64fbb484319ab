package snmp

import (
	"net/netip"
	"testing"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/mib"
)

// TestV3ReplayIsAnAuthenticationFailure: an authentic message of this
// engine's boot but outside the time window is a replay, notified as an
// authentication failure; one with older boots is a peer that has not
// heard of a restart, answered with the report that resynchronizes it and
// not notified. Both are counted as notInTimeWindow.
func TestV3ReplayIsAnAuthenticationFailure(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)}
	cfg := testConfig(clock)
	failures := 0
	cfg.OnAuthFailure = func(netip.Addr) { failures++ }
	r, err := NewResponder(cfg)
	if err != nil {
		t.Fatal(err)
	}
	message := func(boots, at uint32) []byte {
		p := &gosnmp.SnmpPacket{Version: gosnmp.Version3, MsgFlags: gosnmp.AuthNoPriv | gosnmp.Reportable,
			SecurityModel: gosnmp.UserSecurityModel, PDUType: gosnmp.GetRequest, RequestID: 7, MsgID: 7,
			ContextEngineID: string(testEngineID),
			SecurityParameters: &gosnmp.UsmSecurityParameters{UserName: "authsha", AuthenticationProtocol: gosnmp.SHA,
				AuthenticationPassphrase: authPass, AuthoritativeEngineID: string(testEngineID),
				AuthoritativeEngineBoots: boots, AuthoritativeEngineTime: at},
			Variables: []gosnmp.SnmpPDU{{Name: mib.SysName0, Type: gosnmp.Null}}}
		if err := p.SecurityParameters.InitSecurityKeys(); err != nil {
			t.Fatal(err)
		}
		b, err := p.MarshalMsg()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	src := netip.MustParseAddr("127.0.0.1")
	r.handle(message(cfg.EngineBoots-1, 1000), src)
	if failures != 0 {
		t.Fatalf("older boots notified %d authentication failures, want none", failures)
	}
	r.handle(message(cfg.EngineBoots, 1000), src)
	if failures != 1 {
		t.Errorf("an authentic message of this boot 1000 s off notified %d authentication failures, want 1", failures)
	}
	if n := r.Stats().NotInTimeWindows; n != 2 {
		t.Errorf("usmStatsNotInTimeWindows = %d, want 2", n)
	}
	if reply := r.handle(message(cfg.EngineBoots, 0), src); reply == nil || failures != 1 || r.Stats().OutGetResponses != 1 {
		t.Errorf("a message in the window: reply %v, %d failures, %d responses", reply != nil, failures, r.Stats().OutGetResponses)
	}
}
