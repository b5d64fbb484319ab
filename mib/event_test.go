package mib

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/diagagent/diagagent/hiadsd"
)

func TestEventValidate(t *testing.T) {
	good := Event{Seq: 1, NodeID: 4, Addr: netip.MustParseAddr("10.1.2.4"), Status: hiadsd.Faulty,
		Prev: hiadsd.FaultFree, Counter: 9, How: SourceDirect, Detector: 3, Time: time.Date(2026, 11, 21, 6, 30, 15, 0, time.UTC)}
	cases := []struct {
		field string
		edit  func(*Event)
	}{
		{"", func(*Event) {}},
		{"Seq", func(e *Event) { e.Seq = 0 }},
		{"NodeID", func(e *Event) { e.NodeID = 0 }},
		{"NodeID", func(e *Event) { e.NodeID = MaxNodeID + 1 }},
		{"", func(e *Event) { e.Addr = netip.MustParseAddr("2001:db8::1") }}, // IPv6 nodes have events too
		{"Addr", func(e *Event) { e.Addr = netip.Addr{} }},
		{"Status", func(e *Event) { e.Status = 7 }},
		{"Prev", func(e *Event) { e.Prev = 200 }},
		{"How", func(e *Event) { e.How = SourceNone }},
		{"Detector", func(e *Event) { e.Detector = MaxNodeID + 1 }},
		{"Source", func(e *Event) { e.Source = MaxNodeID + 1 }},
	}
	for _, c := range cases {
		e := good
		c.edit(&e)
		err := e.Validate()
		switch {
		case c.field == "" && err != nil:
			t.Errorf("valid event rejected: %v", err)
		case c.field != "" && (!errors.Is(err, ErrInvalidEvent) || !strings.Contains(err.Error(), c.field)):
			t.Errorf("bad %s: got %v, want an ErrInvalidEvent naming the field", c.field, err)
		}
	}
}
