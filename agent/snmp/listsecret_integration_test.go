//go:build integration && linux

package snmp

import (
	"bytes"
	"encoding/hex"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/mib"
)

// TestListSecretsUnderV2c: without cluster users, diagListTable is walked
// with the read community while the list holds no device's community, and
// with the write community alone once it does (snmpwalk, as a manager
// holding only the read community would): the list carries no secret the
// read community cannot already read (nodeCommunity reads empty).
func TestListSecretsUnderV2c(t *testing.T) {
	h := startHarness(t, nil)
	snap := testSnapshot()
	snap.List = board.Chunks([]byte("a node list with no device's community"))
	if err := h.r.Publish(snap); err != nil {
		t.Fatal(err)
	}
	if out := h.must(t, "snmpwalk", h.v2(roCommunity, mib.DiagListTable)...); !strings.Contains(out, mib.DiagListChunk+".1 = STRING") {
		t.Fatalf("the read community's walk of a list without secrets:\n%s", out)
	}
	snap = testSnapshot()
	snap.List, snap.ListSecret = board.Chunks([]byte("a node list that holds a printer's community")), true
	if err := h.r.Publish(snap); err != nil {
		t.Fatal(err)
	}
	if out := h.must(t, "snmpwalk", h.v2(roCommunity, mib.DiagListTable)...); strings.Contains(out, mib.DiagListEntry) {
		t.Fatalf("the read community walks a list holding a community:\n%s", out)
	}
	if out := h.must(t, "snmpwalk", h.v2(rwCommunity, mib.DiagListTable)...); !strings.Contains(out, mib.DiagListChunk+".1 = STRING") {
		t.Fatalf("the write community's walk of a list holding a community:\n%s", out)
	}
}

// TestListDeltaRowsForTheSummaryAsked: diagListDeltaTable serves, for the
// summary a reader names in the instance, the changes it lacks, in the
// chunks a walk from that summary reads (snmpbulkget, as an agent's
// GETBULK asks); a walk of the MIB meets no row.
func TestListDeltaRowsForTheSummaryAsked(t *testing.T) {
	h := startHarness(t, nil)
	held := nodelist.New([]nodelist.Member{{Addr: netip.MustParseAddr("10.0.0.1"), Port: 161}, {Addr: netip.MustParseAddr("10.0.0.2"), Port: 161}})
	at := nodelist.Stamp{Time: uint64(time.Now().UnixMilli()) << 16, Origin: 7}
	held, _ = held.Add(2, nodelist.Member{Addr: netip.MustParseAddr("10.0.0.3"), Port: 161}, at)
	peer, _ := held.Add(3, nodelist.Member{Addr: netip.MustParseAddr("10.0.0.4"), Port: 161}, nodelist.Stamp{Time: at.Time + 1, Origin: 9})
	since := held.Summary()
	want, err := peer.Delta(since)
	if err != nil {
		t.Fatal(err)
	}
	snap := testSnapshot()
	snap.ListDelta = func(b []byte) ([][]byte, error) {
		d, err := peer.Delta(b)
		return board.Chunks(d), err
	}
	if err := h.r.Publish(snap); err != nil {
		t.Fatal(err)
	}
	row := mib.DiagListDeltaChunk + "." + strconv.Itoa(len(since))
	for _, b := range since {
		row += "." + strconv.Itoa(int(b))
	}
	out := h.must(t, "snmpbulkget", h.v2(roCommunity, "-Cr2", "-Ox", row)...)
	lines := strings.Split(strings.TrimSpace(strings.ReplaceAll(out, "\n.", "\x00.")), "\x00") // a long Hex-STRING wraps
	first := strings.SplitN(lines[0], " = Hex-STRING: ", 2)
	if len(lines) < 2 || len(first) != 2 || first[0] != row+".1" {
		t.Fatalf("snmpbulkget from the summary's row:\n%s", out)
	}
	got, err := hex.DecodeString(strings.Join(strings.Fields(first[1]), ""))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("the row serves %x, the delta is %x", got, want)
	}
	if strings.HasPrefix(lines[1], row) {
		t.Fatalf("a delta of one chunk has a second:\n%s", out)
	}
	if out := h.must(t, "snmpwalk", h.v2(roCommunity, mib.DiagListDeltaTable)...); strings.Contains(out, mib.DiagListDeltaChunk) {
		t.Fatalf("a walk of the table meets rows:\n%s", out)
	}
}
