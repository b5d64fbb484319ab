package probe

import (
	"testing"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// TestDegradedRowsAndDigests: a diagTree row of status degraded(4) reads,
// one of 5 does not; a nine-octet digest ending in 1 is a peer that doubts
// its own tests.
func TestDegradedRowsAndDigests(t *testing.T) {
	if st, err := statusValue(gosnmp.SnmpPDU{Name: mib.NodeStatus + ".6", Type: gosnmp.Integer, Value: 4}); err != nil || st != hiadsd.Degraded {
		t.Fatalf("nodeStatus 4: %v, %v", st, err)
	}
	if _, err := statusValue(gosnmp.SnmpPDU{Name: mib.NodeStatus + ".6", Type: gosnmp.Integer, Value: 5}); err == nil {
		t.Fatal("nodeStatus 5 read")
	}
	d := []byte{0, 0, 0, 0, 0, 0, 0, 7, 1}
	if got := digestValue(gosnmp.SnmpPDU{Name: mib.DiagViewDigest0, Type: gosnmp.OctetString, Value: d}); got != (served{digest: 7, doubts: true}) {
		t.Fatalf("nine octets ending in 1: %+v", got)
	}
	if got := digestValue(gosnmp.SnmpPDU{Name: mib.DiagViewDigest0, Type: gosnmp.OctetString, Value: d[:8]}); got != (served{digest: 7}) {
		t.Fatalf("eight octets: %+v", got)
	}
}
