package probe

import (
	"errors"
	"fmt"
	"net/netip"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// rowLines overrides the nodeStatus and nodeEventCounter cells of one node.
// rowLines serves one diagTree row: status is nodeStatus as the MIB numbers it.
func rowLines(id, status int, counter uint32) []string {
	return []string{
		fmt.Sprintf("override %s integer %d", mib.TreeCell(mib.ColNodeStatus, id), status),
		fmt.Sprintf("override %s unsigned %d", mib.TreeCell(mib.ColNodeEventCounter, id), counter),
	}
}

// treeProbeSNMPD serves rows 1, 2, 3, 5 and 6 (4 is missing) plus a neighbour column.
func treeProbeSNMPD(t *testing.T) *probeSNMPD {
	var lines []string
	for id := 1; id <= 6; id++ {
		if id != 4 {
			lines = append(lines, rowLines(id, mib.DiagStatus(hiadsd.Status(id%3)), uint32(10*id))...)
		}
	}
	lines = append(lines, fmt.Sprintf("override %s integer 1", mib.TreeCell(mib.ColNodeTestedOnly, 1)))
	return startProbeSNMPD(t, lines...)
}

// eventLines overrides every readable column of event row seq.
func eventLines(seq int, ev mib.Event, when string) []string {
	cell := func(col int) string { return mib.EventCell(col, uint32(seq)) }
	number := func(st hiadsd.Status) int { // a status the MIB cannot number is served as it is, as a bad reply
		if !st.Valid() {
			return int(st)
		}
		return mib.DiagStatus(st)
	}
	return []string{
		fmt.Sprintf("override %s integer %d", cell(mib.ColEventNodeID), ev.NodeID),
		fmt.Sprintf("override %s integer %d", cell(mib.ColEventStatus), number(ev.Status)),
		fmt.Sprintf("override %s integer %d", cell(mib.ColEventPrevStatus), number(ev.Prev)),
		fmt.Sprintf("override %s unsigned %d", cell(mib.ColEventCounter), ev.Counter),
		fmt.Sprintf("override %s octet_str %s", cell(mib.ColEventTime), when),
		fmt.Sprintf("override %s integer %d", cell(mib.ColEventHowLearned), ev.How),
		fmt.Sprintf("override %s integer %d", cell(mib.ColEventDetector), ev.Detector),
	}
}

func TestFetchAgainstOddReplies(t *testing.T) {
	status := func(id int) gosnmp.SnmpPDU {
		return gosnmp.SnmpPDU{Name: mib.TreeCell(mib.ColNodeStatus, id), Type: gosnmp.Integer, Value: 0}
	}
	counter := func(id int) gosnmp.SnmpPDU {
		return gosnmp.SnmpPDU{Name: mib.TreeCell(mib.ColNodeEventCounter, id), Type: gosnmp.Gauge32, Value: uint32(1)}
	}
	cases := []struct {
		name string
		vbs  []gosnmp.SnmpPDU
	}{
		{"no varbinds", nil},
		{"index does not move", []gosnmp.SnmpPDU{status(2), counter(2), status(2), counter(2)}},
		{"index goes back", []gosnmp.SnmpPDU{status(3), counter(3), status(1), counter(1)}},
		{"second column ends first", []gosnmp.SnmpPDU{status(1), {Name: mib.NodeEventCounter, Type: gosnmp.EndOfMibView}}},
	}
	p := newTestProber(t, nil)
	for _, c := range cases {
		f := startFakePeer(t, func(*gosnmp.SnmpPacket) []gosnmp.SnmpPDU { return c.vbs })
		if _, err := p.FetchRows(probeContext(t), f.target(), 1, 10); !errors.Is(err, ErrMalformedReply) {
			t.Errorf("%s: got %v, want ErrMalformedReply", c.name, err)
		}
	}
}

// TestFetchDiagnosisStation checks that the station and the node list's
// fingerprint and version ride the first GETBULK of the rows as its four
// non-repeaters,
// that a peer serving no fingerprint (the object after it is something else)
// is read without one, and that a reply without the station, or with a value
// of the wrong type, is refused.
func TestFetchDiagnosisStation(t *testing.T) {
	hash := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	station := []gosnmp.SnmpPDU{
		{Name: mib.NMSID0, Type: gosnmp.IPAddress, Value: "192.0.2.9"},
		{Name: mib.NMSIDCounter0, Type: gosnmp.Gauge32, Value: uint32(12)},
		{Name: mib.DiagNodeListHash0, Type: gosnmp.OctetString, Value: hash},
		{Name: mib.DiagNodeListVersion0, Type: gosnmp.Gauge32, Value: uint32(5)},
	}
	row := []gosnmp.SnmpPDU{
		{Name: mib.TreeCell(mib.ColNodeStatus, 1), Type: gosnmp.Integer, Value: 2},
		{Name: mib.TreeCell(mib.ColNodeEventCounter, 1), Type: gosnmp.Gauge32, Value: uint32(3)},
	}
	var nonRepeaters atomic.Uint32 // written by the fake peer's goroutine
	f := startFakePeer(t, func(req *gosnmp.SnmpPacket) []gosnmp.SnmpPDU {
		nonRepeaters.Store(uint32(req.NonRepeaters))
		return append(append([]gosnmp.SnmpPDU(nil), station...), row...)
	})
	p := newTestProber(t, nil)
	got, err := p.FetchDiagnosis(probeContext(t), f.target(), 1, 1)
	want := Fetched{Station: hiadsd.Station{Addr: netip.MustParseAddr("192.0.2.9"), Counter: 12}, NodeListHash: hash, ListVersion: 5, Rows: []Row{{ID: 1, Status: hiadsd.Partial, Counter: 3}}}
	if err != nil || !reflect.DeepEqual(got, want) || nonRepeaters.Load() != 4 {
		t.Fatalf("FetchDiagnosis = %+v, %v (non-repeaters %d); want %+v, nil (4)", got, err, nonRepeaters.Load(), want)
	}
	next := gosnmp.SnmpPDU{Name: ".1.3.6.1.6.3.10.2.1.1.0", Type: gosnmp.OctetString, Value: []byte("engine")} // snmpEngineID.0, what follows .1.9 there
	noVersion := startFakePeer(t, func(*gosnmp.SnmpPacket) []gosnmp.SnmpPDU {
		return append(append(station[:3:3], next), row...)
	})
	if got, err := p.FetchDiagnosis(probeContext(t), noVersion.target(), 1, 1); err != nil || !reflect.DeepEqual(got.NodeListHash, hash) || got.ListVersion != 0 {
		t.Fatalf("a peer with a fingerprint and no version: %+v, %v", got, err)
	}
	older := startFakePeer(t, func(*gosnmp.SnmpPacket) []gosnmp.SnmpPDU {
		return append(append(station[:2:2], next, next), row...)
	})
	if got, err := p.FetchDiagnosis(probeContext(t), older.target(), 1, 1); err != nil || got.NodeListHash != nil || len(got.Rows) != 1 {
		t.Fatalf("a peer without a fingerprint: %+v, %v", got, err)
	}
	badHash := startFakePeer(t, func(*gosnmp.SnmpPacket) []gosnmp.SnmpPDU {
		return append(append(station[:2:2], gosnmp.SnmpPDU{Name: mib.DiagNodeListHash0, Type: gosnmp.OctetString, Value: []byte{1}}, station[3]), row...)
	})
	if _, err := p.FetchDiagnosis(probeContext(t), badHash.target(), 1, 1); !errors.Is(err, ErrMalformedReply) {
		t.Fatalf("a fingerprint of 1 octet: got %v, want ErrMalformedReply", err)
	}
	short := startFakePeer(t, func(*gosnmp.SnmpPacket) []gosnmp.SnmpPDU { return station[:1] })
	if _, err := p.FetchDiagnosis(probeContext(t), short.target(), 1, 1); !errors.Is(err, ErrMalformedReply) {
		t.Fatalf("one varbind: got %v, want ErrMalformedReply", err)
	}
	swapped := startFakePeer(t, func(*gosnmp.SnmpPacket) []gosnmp.SnmpPDU {
		return append([]gosnmp.SnmpPDU{{Name: mib.NMSID0, Type: gosnmp.OctetString, Value: []byte("x")}, station[1], station[2], station[3]}, row...)
	})
	if _, err := p.FetchDiagnosis(probeContext(t), swapped.target(), 1, 1); !errors.Is(err, ErrUnexpectedValue) {
		t.Fatalf("string nmsID: got %v, want ErrUnexpectedValue", err)
	}
	other := startFakePeer(t, func(*gosnmp.SnmpPacket) []gosnmp.SnmpPDU {
		return append(append(row[:2:2], station[2], station[3]), row...)
	})
	if _, err := p.FetchDiagnosis(probeContext(t), other.target(), 1, 1); !errors.Is(err, ErrMalformedReply) {
		t.Fatalf("rows in place of the station: got %v, want ErrMalformedReply", err)
	}
}
