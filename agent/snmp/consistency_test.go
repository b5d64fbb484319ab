//go:build integration && linux

package snmp

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// stampedSnapshot has every counter of the view equal to k, so a response that
// mixes two snapshots shows two different numbers.
func stampedSnapshot(k uint32) *board.Snapshot {
	s := &board.Snapshot{Station: hiadsd.Station{Addr: netip.MustParseAddr("127.0.0.9"), Counter: k}}
	for id := uint32(1); id <= 3; id++ {
		s.Nodes = append(s.Nodes, board.Row{ID: id, Member: nodelist.Member{Addr: netip.AddrFrom4([4]byte{127, 0, 0, byte(id)})}, Counter: k})
	}
	return s
}

func TestRequestsReadOneSnapshotWhileItChanges(t *testing.T) {
	h := startHarness(t, nil)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(100 * time.Microsecond)
		defer tick.Stop()
		for k := uint32(1); ; k++ {
			if err := h.r.Publish(stampedSnapshot(k)); err != nil {
				t.Errorf("Publish: %v", err)
				return
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	defer func() { close(stop); <-done }()
	oids := []string{mib.TreeCell(mib.ColNodeEventCounter, 1), mib.TreeCell(mib.ColNodeEventCounter, 2),
		mib.TreeCell(mib.ColNodeEventCounter, 3), mib.NMSIDCounter0}
	seen := map[string]bool{}
	for range 20 {
		out := h.must(t, "snmpget", append(h.v2(roCommunity, "-Oqv"), oids...)...)
		vals := strings.Fields(out)
		if len(vals) != len(oids) {
			t.Fatalf("got %d values, want %d: %q", len(vals), len(oids), out)
		}
		for _, v := range vals[1:] {
			if v != vals[0] {
				t.Fatalf("one response mixes snapshots: %q", out)
			}
		}
		seen[vals[0]] = true
	}
	if len(seen) < 2 {
		t.Errorf("the snapshot never changed between requests (saw %v); the test proves nothing", seen)
	}
	walk := h.must(t, "snmpbulkwalk", h.v2(roCommunity, "-Cr4", mib.DiagTree)...)
	if n := len(strings.Split(walk, "\n")); n != 57 { // 3 nodes x 19 columns
		t.Errorf("walk during swaps returned %d objects, want 57:\n%s", n, walk)
	}
}

func TestPublishRefusesRowsOutOfOrder(t *testing.T) {
	h := startHarness(t, nil)
	bad := []*board.Snapshot{
		nil,
		{Nodes: []board.Row{{ID: 2}, {ID: 1}}},
		{Nodes: []board.Row{{ID: 0}}},
		{Events: []mib.Event{{Seq: 5}, {Seq: 5}}},
	}
	for i, s := range bad {
		if err := h.r.Publish(s); err == nil {
			t.Errorf("case %d: Publish accepted a bad snapshot", i)
		}
	}
	out := h.must(t, "snmpget", h.v2(roCommunity, mib.TreeCell(mib.ColNodeStatus, 2))...)
	if want := fmt.Sprintf("%s = INTEGER: 1", mib.TreeCell(mib.ColNodeStatus, 2)); out != want {
		t.Errorf("the old snapshot was lost: %q, want %q", out, want)
	}
}
