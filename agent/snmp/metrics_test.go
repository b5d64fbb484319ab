package snmp

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/diagagent/diagagent/agent/metrics/metricstest"
	"github.com/gosnmp/gosnmp"
)

// TestMetrics: the responder's collector carries its counters: a GET
// answered and a request with an unknown community dropped.
func TestMetrics(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)}
	r, err := NewResponder(testConfig(clock))
	if err != nil {
		t.Fatal(err)
	}
	for _, community := range []string{roCommunity, "nobody"} {
		req := marshal(t, &gosnmp.SnmpPacket{Version: gosnmp.Version2c, Community: community, PDUType: gosnmp.GetRequest,
			RequestID: 9, Variables: []gosnmp.SnmpPDU{{Name: ".1.3.6.1.2.1.1.3.0", Type: gosnmp.Null}}})
		r.handle(req, netip.MustParseAddr("127.0.0.1"))
	}
	want := `
# HELP diagagent_snmp_packets_received_total SNMP datagrams the responder received.
# TYPE diagagent_snmp_packets_received_total counter
diagagent_snmp_packets_received_total 2
# HELP diagagent_snmp_responses_total SNMP requests served with a response PDU.
# TYPE diagagent_snmp_responses_total counter
diagagent_snmp_responses_total 1
`
	if err := metricstest.CollectAndCompare(r, strings.NewReader(want), "diagagent_snmp_packets_received_total",
		"diagagent_snmp_responses_total"); err != nil {
		t.Error(err)
	}
	// 4 PDU types, 19 reasons to drop, and 4 metrics of one sample.
	if n := metricstest.CollectAndCount(r); n != 4+19+4 {
		t.Errorf("%d samples, want 27", n)
	}
}
