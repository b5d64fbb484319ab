//go:build integration && linux

package snmp

import (
	"strings"
	"testing"

	"github.com/diagagent/diagagent/agent/board"
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
