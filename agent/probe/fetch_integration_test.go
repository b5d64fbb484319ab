//go:build integration && linux

package probe

import (
	"errors"
	"net/netip"
	"reflect"
	"testing"
	"time"

	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

func TestFetchRowsFromSNMPD(t *testing.T) {
	d := treeProbeSNMPD(t)
	row := func(id int) Row { return Row{ID: uint32(id), Status: hiadsd.Status(id % 3), Counter: uint32(10 * id)} }
	cases := []struct {
		lo, hi, maxRep int
		want           []Row
	}{
		{1, 6, 64, []Row{row(1), row(2), row(3), row(5), row(6)}},
		{2, 5, 2, []Row{row(2), row(3), row(5)}}, // several GETBULKs
		{5, 5, 1, []Row{row(5)}},
		{4, 4, 64, nil},             // missing row: next one is past hi
		{6, 100, 64, []Row{row(6)}}, // the columns end before hi
		{7, 65535, 8, nil},          // nothing there
		{1, 3, 1, []Row{row(1), row(2), row(3)}},
	}
	for _, c := range cases {
		p := newTestProber(t, func(cfg *Config) { cfg.MaxRepetitions = c.maxRep })
		got, err := p.FetchRows(probeContext(t), d.target(), c.lo, c.hi)
		if err != nil {
			t.Fatalf("FetchRows(%d, %d): %v", c.lo, c.hi, err)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("FetchRows(%d, %d) max-rep %d = %+v, want %+v", c.lo, c.hi, c.maxRep, got, c.want)
		}
	}
}

func TestFetchRowsRejectsBadInput(t *testing.T) {
	p := newTestProber(t, nil)
	for _, r := range [][2]int{{0, 3}, {3, 2}, {1, 65536}, {-1, -1}} {
		if _, err := p.FetchRows(probeContext(t), Target{Addr: netip.MustParseAddr("127.0.0.1")}, r[0], r[1]); !errors.Is(err, ErrBadRange) {
			t.Errorf("FetchRows(%d, %d): %v, want ErrBadRange", r[0], r[1], err)
		}
	}
	cases := []struct {
		name  string
		lines []string
		want  error
	}{
		{"status out of range", rowLines(1, 7, 1), ErrUnexpectedValue},
		{"counter column missing", rowLines(1, 0, 1)[:1], ErrMalformedReply},
		{"counter of the wrong type", []string{rowLines(1, 0, 1)[0],
			"override " + mib.TreeCell(mib.ColNodeEventCounter, 1) + " integer 5"}, ErrUnexpectedValue},
		{"rows out of step", append(rowLines(1, 0, 1)[:1], rowLines(2, 0, 1)[1]), ErrMalformedReply},
		{"index of two arcs", []string{"override " + mib.TreeCell(mib.ColNodeStatus, 1) + ".9 integer 0",
			rowLines(1, 0, 1)[1]}, ErrMalformedReply},
	}
	for _, c := range cases {
		d := startProbeSNMPD(t, c.lines...)
		_, err := p.FetchRows(probeContext(t), d.target(), 1, 10)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
	}
}

func TestFetchEventsFromSNMPD(t *testing.T) {
	e3 := mib.Event{Seq: 3, NodeID: 4, Status: hiadsd.Faulty, Prev: hiadsd.FaultFree, Counter: 7,
		Time: time.Date(2026, 11, 21, 5, 10, 30, 0, time.UTC), How: mib.SourceDirect, Detector: 2}
	e9 := mib.Event{Seq: 9, NodeID: 60000, Status: hiadsd.Partial, Prev: hiadsd.Faulty, Counter: 8,
		Time: time.Date(2026, 11, 21, 5, 11, 0, 500_000_000, time.UTC), How: mib.SourceLearned}
	// e9 is written in local time 07:11:00.5 +02:00 and must come back in UTC.
	lines := append(eventLines(3, e3, "0x07EA0B15050A1E00"), eventLines(9, e9, "0x07EA0B15070B00052B0200")...)
	d := startProbeSNMPD(t, lines...)
	for _, c := range []struct {
		after  uint32
		maxRep int
		want   []mib.Event
	}{{0, 64, []mib.Event{e3, e9}}, {0, 7, []mib.Event{e3, e9}}, {3, 64, []mib.Event{e9}}, {9, 64, nil}} {
		p := newTestProber(t, func(cfg *Config) { cfg.MaxRepetitions = c.maxRep })
		got, err := p.FetchEvents(probeContext(t), d.target(), c.after)
		if err != nil {
			t.Fatalf("FetchEvents(%d): %v", c.after, err)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("FetchEvents(%d) max-rep %d = %+v, want %+v", c.after, c.maxRep, got, c.want)
		}
	}
}

func TestFetchEventsRejectsBadRows(t *testing.T) {
	good := mib.Event{NodeID: 1, Status: hiadsd.Faulty, Counter: 1, How: mib.SourceDirect}
	bad := func(edit func(*mib.Event)) mib.Event { e := good; edit(&e); return e }
	cases := []struct {
		name string
		ev   mib.Event
		when string
	}{
		{"short DateAndTime", good, "0x07EA0B1505"},
		{"month 13", good, "0x07EA0D15050A1E00"},
		{"NodeID 0", bad(func(e *mib.Event) { e.NodeID = 0 }), "0x07EA0B15050A1E00"},
		{"how learned none", bad(func(e *mib.Event) { e.How = mib.SourceNone }), "0x07EA0B15050A1E00"},
		{"status 9", bad(func(e *mib.Event) { e.Status = 9 }), "0x07EA0B15050A1E00"},
	}
	p := newTestProber(t, nil)
	for _, c := range cases {
		d := startProbeSNMPD(t, eventLines(1, c.ev, c.when)...)
		if got, err := p.FetchEvents(probeContext(t), d.target(), 0); !errors.Is(err, ErrUnexpectedValue) || got != nil {
			t.Errorf("%s: got %v, %v; want nil and ErrUnexpectedValue", c.name, got, err)
		}
	}
}
