package snmp

import (
	"net/netip"
	"testing"
	"time"

	"github.com/gosnmp/gosnmp"
)

// TestCounter64HiddenFromSNMPv1 registers a Counter64 object between two
// others: SNMPv1 GETNEXT steps over it and GET answers noSuchName (RFC 3584
// section 4.2.2.1), SNMPv2c sees it.
func TestCounter64HiddenFromSNMPv1(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)}
	r, err := NewResponder(testConfig(clock))
	if err != nil {
		t.Fatal(err)
	}
	c64 := mustOID(".1.3.6.1.2.1.1.9") // a free arc between sysORLastChange and the SNMP group
	r.tree = newTree(append(append(stdNodes(r), diagNodes(r)...),
		newScalar(c64, constant(value{typ: gosnmp.Counter64, num: 1 << 40}))))
	ask := func(v gosnmp.SnmpVersion, t2 gosnmp.PDUType, oid string) *gosnmp.SnmpPacket {
		req := marshal(t, &gosnmp.SnmpPacket{Version: v, Community: roCommunity, PDUType: t2, RequestID: 9,
			Variables: []gosnmp.SnmpPDU{{Name: oid, Type: gosnmp.Null}}})
		reply, err := decode(r.handle(req, netip.MustParseAddr("127.0.0.1")), nil)
		if err != nil {
			t.Fatalf("reply: %v", err)
		}
		return reply
	}
	inst, before := c64.Child(0).String(), ".1.3.6.1.2.1.1.8.0"
	if p := ask(gosnmp.Version2c, gosnmp.GetNextRequest, before); p.Variables[0].Name != inst {
		t.Errorf("v2c GETNEXT went to %s, want the Counter64 %s", p.Variables[0].Name, inst)
	}
	if p := ask(gosnmp.Version1, gosnmp.GetNextRequest, before); p.Variables[0].Name != ".1.3.6.1.2.1.11.1.0" {
		t.Errorf("v1 GETNEXT went to %s, want snmpInPkts past the Counter64", p.Variables[0].Name)
	}
	if p := ask(gosnmp.Version1, gosnmp.GetRequest, inst); p.Error != gosnmp.NoSuchName || p.ErrorIndex != 1 {
		t.Errorf("v1 GET of a Counter64: error %v index %d, want noSuchName 1", p.Error, p.ErrorIndex)
	}
}
