package snmp

import (
	"net"
	"testing"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/mib"
)

// TestV3GetBulkTrimmedToMsgMaxSize asks, as gosnmp's manager, for far more
// repetitions than fit in the agent's 484-octet limit over authPriv.
func TestV3GetBulkTrimmedToMsgMaxSize(t *testing.T) {
	h := startHarness(t, func(c *Config) { c.MaxMessageSize = minMessageSize })
	host, port, err := net.SplitHostPort(h.addr)
	if err != nil {
		t.Fatal(err)
	}
	g := &gosnmp.GoSNMP{
		Target: host, Port: mustPort(t, port), Version: gosnmp.Version3, Timeout: 2 * time.Second,
		SecurityModel: gosnmp.UserSecurityModel, MsgFlags: gosnmp.AuthPriv,
		SecurityParameters: &gosnmp.UsmSecurityParameters{UserName: "privsha256",
			AuthenticationProtocol: gosnmp.SHA256, AuthenticationPassphrase: authPass,
			PrivacyProtocol: gosnmp.AES, PrivacyPassphrase: privPass},
	}
	if err := g.Connect(); err != nil {
		t.Fatal(err)
	}
	defer g.Conn.Close()
	res, err := g.GetBulk([]string{mib.DiagTree}, 0, 200)
	if err != nil {
		t.Fatalf("GetBulk: %v", err)
	}
	if res.Error != gosnmp.NoError || len(res.Variables) < 5 || len(res.Variables) >= 200 {
		t.Fatalf("error %v with %d varbinds, want a trimmed, successful response", res.Error, len(res.Variables))
	}
	if res.Variables[0].Name != mib.TreeCell(mib.ColNodeID, 1) {
		t.Errorf("first varbind %s, want nodeID.1", res.Variables[0].Name)
	}
}

func mustPort(t *testing.T, s string) uint16 {
	t.Helper()
	p, err := net.LookupPort("udp", s)
	if err != nil {
		t.Fatal(err)
	}
	return uint16(p)
}
