//go:build integration && linux

package snmp

import (
	"strings"
	"testing"
	"time"

	"github.com/diagagent/diagagent/mib"
)

func TestGetV2cValuesAndExceptions(t *testing.T) {
	h := startHarness(t, nil)
	out := h.must(t, "snmpget", h.v2(roCommunity,
		mib.SysName0, mib.TreeCell(mib.ColNodeStatus, 2), mib.TreeCell(mib.ColNodeAD, 3),
		mib.HiADSDisUP0, mib.NMSID0, mib.DiagLastEventSeq0,
		".1.3.6.1.2.1.1.99.0", mib.TreeCell(mib.ColNodeStatus, 4), mib.NMSID+".1")...)
	want := []string{
		`.1.3.6.1.2.1.1.5.0 = STRING: "node-under-test"`,
		`.1.3.6.1.4.1.200.1.1.1.3.2 = INTEGER: 1`,
		`.1.3.6.1.4.1.200.1.1.1.2.3 = IpAddress: 127.0.0.3`,
		`.1.3.6.1.4.1.200.1.4.0 = STRING: "1"`,
		`.1.3.6.1.4.1.200.1.3.0 = IpAddress: 127.0.0.9`,
		`.1.3.6.1.4.1.200.1.7.0 = Gauge32: 8`,
		`.1.3.6.1.2.1.1.99.0 = No Such Object available on this agent at this OID`,
		`.1.3.6.1.4.1.200.1.1.1.3.4 = No Such Instance currently exists at this OID`,
		`.1.3.6.1.4.1.200.1.3.1 = No Such Instance currently exists at this OID`,
	}
	assertLines(t, out, want)
}

func TestGetV1NoSuchName(t *testing.T) {
	h := startHarness(t, nil)
	out, err := h.run(t, "snmpget", h.v1(roCommunity, "-Cf", mib.SysName0, ".1.3.6.1.2.1.1.99.0")...)
	if err == nil {
		t.Fatalf("snmpget succeeded on a missing object:\n%s", out)
	}
	for _, w := range []string{"(noSuchName)", "Failed object: .1.3.6.1.2.1.1.99.0"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	if got := h.r.Stats().OutGetResponses; got != 1 {
		t.Errorf("OutGetResponses = %d, want 1", got)
	}
}

func TestGetNextEveryVarbindItsOwnSuccessor(t *testing.T) {
	h := startHarness(t, nil)
	out := h.must(t, "snmpgetnext", h.v2(roCommunity,
		".1.3.6.1.2.1.1", mib.TreeCell(mib.ColNodeStatus, 3), mib.DiagTree, mib.DiagEventTable,
		".1.3.6.1.6.3.15.1.1.6.0", mib.TreeCell(mib.ColNodeAD, 2)+".5")...)
	assertLines(t, out, []string{
		`.1.3.6.1.2.1.1.1.0 = STRING: "diagagent: distributed fault-management agent, vCube diagnosis"`,
		`.1.3.6.1.4.1.200.1.1.1.4.1 = Gauge32: 2`,
		`.1.3.6.1.4.1.200.1.1.1.1.1 = INTEGER: 1`,
		`.1.3.6.1.4.1.200.1.8.1.2.7 = INTEGER: 2`,
		`.1.3.6.1.6.3.15.1.1.6.0 = No more variables left in this MIB View (It is past the end of the MIB tree)`,
		`.1.3.6.1.4.1.200.1.1.1.2.3 = IpAddress: 127.0.0.3`,
	})
}

func TestGetNextV1EndOfMib(t *testing.T) {
	h := startHarness(t, nil)
	out, err := h.run(t, "snmpgetnext", h.v1(roCommunity, mib.SysName0, ".1.3.6.1.6.3.15.1.1.6.0")...)
	if err == nil || !strings.Contains(out, "(noSuchName)") || !strings.Contains(out, "Failed object: .1.3.6.1.6.3.15.1.1.6.0") {
		t.Fatalf("want noSuchName on the second varbind, got err=%v:\n%s", err, out)
	}
}

func TestGetBulkNonRepeatersAndRepetitions(t *testing.T) {
	h := startHarness(t, nil)
	out := h.must(t, "snmpbulkget", h.v2(roCommunity, "-Cn1", "-Cr3",
		mib.SysUpTime0, mib.TreeCell(mib.ColNodeStatus, 1), mib.DiagEventEntry+".8")...)
	assertLines(t, out, []string{
		`.1.3.6.1.2.1.1.4.0 = ""`,
		`.1.3.6.1.4.1.200.1.1.1.3.2 = INTEGER: 1`,
		`.1.3.6.1.4.1.200.1.8.1.8.7 = INTEGER: 3`,
		`.1.3.6.1.4.1.200.1.1.1.3.3 = INTEGER: 2`,
		`.1.3.6.1.4.1.200.1.8.1.8.8 = INTEGER: 1`,
		`.1.3.6.1.4.1.200.1.1.1.4.1 = Gauge32: 2`,
		`.1.3.6.1.4.1.200.1.8.1.9.7 = INTEGER: 2`,
	})
}

func TestGetBulkTrimmedToMessageSize(t *testing.T) {
	h := startHarness(t, func(c *Config) { c.MaxMessageSize = minMessageSize })
	out := h.must(t, "snmpbulkget", h.v2(roCommunity, "-Cn0", "-Cr200", ".1.3.6.1.2.1.11")...)
	lines := strings.Split(out, "\n")
	if len(lines) < 10 || len(lines) >= 200 {
		t.Fatalf("got %d varbinds, want a response trimmed below 200 yet not empty:\n%s", len(lines), out)
	}
	if !strings.HasPrefix(lines[0], ".1.3.6.1.2.1.11.1.0 = Counter32:") {
		t.Errorf("first varbind %q, want snmpInPkts.0", lines[0])
	}
}

func TestWalksCoverTheDiagnosisMIB(t *testing.T) {
	h := startHarness(t, nil)
	walk := h.must(t, "snmpwalk", h.v2(roCommunity, mib.DiagnosisMIB)...)
	bulk := h.must(t, "snmpbulkwalk", h.v2(roCommunity, "-Cr7", mib.DiagnosisMIB)...)
	v1 := h.must(t, "snmpwalk", h.v1(roCommunity, mib.DiagnosisMIB)...)
	if walk != bulk || walk != v1 {
		t.Fatalf("walks differ:\nv2c walk:\n%s\nbulkwalk:\n%s\nv1 walk:\n%s", walk, bulk, v1)
	}
	// 3 nodes x 19 columns, 19 scalars, 2 events x 8 columns (diagKeyTable is
	// for the cluster's users alone; diagListTable is empty in this snapshot,
	// and diagListDeltaTable has no row until a reader names one).
	if n := len(strings.Split(walk, "\n")); n != 57+19+16 {
		t.Errorf("walk returned %d objects, want 92:\n%s", n, walk)
	}
	if !strings.Contains(walk, ".1.3.6.1.4.1.200.1.8.1.6.7 = Hex-STRING: 07 EA 0B 15 06 00 00 00 2B 00 00") {
		t.Errorf("walk lacks the event time in DateAndTime form:\n%s", walk)
	}
}

// assertLines compares a tool's output with the wanted lines, in order.
func assertLines(t *testing.T, out string, want []string) {
	t.Helper()
	got := strings.Split(out, "\n")
	for i := range got {
		got[i] = strings.TrimSpace(got[i])
	}
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(got), len(want), out)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, got[i], want[i])
		}
	}
}

func TestResponseTooBig(t *testing.T) {
	h := startHarness(t, func(c *Config) { c.MaxMessageSize = minMessageSize })
	many := make([]string, 12)
	for i := range many {
		many[i] = mib.SysDescr0
	}
	for _, args := range [][]string{h.v2(roCommunity, many...), h.v1(roCommunity, append([]string{"-Cf"}, many...)...)} {
		out, err := h.run(t, "snmpget", args...)
		if err == nil || !strings.Contains(out, "tooBig") {
			t.Errorf("%s: want tooBig, got err=%v:\n%s", args[0], err, out)
		}
	}
	if got := h.r.Stats().OutTooBigs; got != 2 {
		t.Errorf("snmpOutTooBigs = %d, want 2", got)
	}
}

func TestGetBulkRepeaterReachingTheEnd(t *testing.T) {
	h := startHarness(t, nil)
	out := h.must(t, "snmpbulkget", h.v2(roCommunity, "-Cn0", "-Cr3", ".1.3.6.1.6.3.15.1.1.5.0", mib.SysName0)...)
	lines := strings.Split(out, "\n")
	if len(lines) != 6 {
		t.Fatalf("got %d varbinds, want 3 repetitions of 2:\n%s", len(lines), out)
	}
	for i, want := range []string{
		".1.3.6.1.6.3.15.1.1.6.0 = Counter32: 0",
		".1.3.6.1.2.1.1.6.0 = \"\"",
		".1.3.6.1.6.3.15.1.1.6.0 = No more variables left in this MIB View (It is past the end of the MIB tree)",
		".1.3.6.1.2.1.1.7.0 = INTEGER: 72",
		".1.3.6.1.6.3.15.1.1.6.0 = No more variables left in this MIB View (It is past the end of the MIB tree)",
		".1.3.6.1.2.1.1.8.0 = Timeticks: (0) 0:00:00.00",
	} {
		if strings.TrimSpace(lines[i]) != want {
			t.Errorf("varbind %d: got %q, want %q", i+1, lines[i], want)
		}
	}
}

func TestUpTimeAndEngineTimeFollowTheClock(t *testing.T) {
	h := startHarness(t, nil)
	h.clock.Advance(90*time.Second + 250*time.Millisecond)
	out := h.must(t, "snmpget", h.v2(roCommunity, mib.SysUpTime0, ".1.3.6.1.6.3.10.2.1.3.0", ".1.3.6.1.6.3.10.2.1.2.0")...)
	assertLines(t, out, []string{
		".1.3.6.1.2.1.1.3.0 = Timeticks: (9025) 0:01:30.25",
		".1.3.6.1.6.3.10.2.1.3.0 = INTEGER: 90",
		".1.3.6.1.6.3.10.2.1.2.0 = INTEGER: 1",
	})
}

// TestGetViewDigestWithheld: net-snmp's snmpget reads diagViewDigest.0 as 8
// octets, and as the empty string while the agent withholds its view (it
// holds verdicts made while cut off, hiadsd/isolation.go).
func TestGetViewDigestWithheld(t *testing.T) {
	h := startHarness(t, nil)
	s := testSnapshot()
	s.Digest = 0x0102030405060708
	if err := h.r.Publish(s); err != nil {
		t.Fatal(err)
	}
	assertLines(t, h.must(t, "snmpget", h.v2(roCommunity, "-Ox", mib.DiagViewDigest0)...),
		[]string{`.1.3.6.1.4.1.200.1.12.0 = Hex-STRING: 01 02 03 04 05 06 07 08`})
	w := testSnapshot()
	w.Digest, w.Withheld = 0x0102030405060708, true
	if err := h.r.Publish(w); err != nil {
		t.Fatal(err)
	}
	assertLines(t, h.must(t, "snmpget", h.v2(roCommunity, mib.DiagViewDigest0)...),
		[]string{`.1.3.6.1.4.1.200.1.12.0 = ""`})
	for _, c := range []struct {
		doubt, loss bool
		ninth       string
	}{{true, false, "01"}, {false, true, "02"}, {true, true, "01"}} { // doubting says more than seeing loss
		d := testSnapshot()
		d.Digest, d.SelfDoubt, d.SeesLoss = 0x0102030405060708, c.doubt, c.loss
		if err := h.r.Publish(d); err != nil {
			t.Fatal(err)
		}
		assertLines(t, h.must(t, "snmpget", h.v2(roCommunity, "-Ox", mib.DiagViewDigest0)...),
			[]string{`.1.3.6.1.4.1.200.1.12.0 = Hex-STRING: 01 02 03 04 05 06 07 08 ` + c.ninth})
	}
}
