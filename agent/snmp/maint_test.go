//go:build integration && linux

package snmp

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/diagagent/diagagent/agent/keyring"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/agent/usm"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// TestMaintenanceObjects sets maintenance windows with net-snmp's
// snmpset: by seconds (nodeMaintenanceFor) and by DateAndTime
// (nodeMaintenanceUntil), with the write community while the cluster's
// users guard the agents' own objects (a window is the operator's), and
// checks the RFC 3416 error of each bad request and what snmpget reads of
// a row's window.
func TestMaintenanceObjects(t *testing.T) {
	type set struct {
		node  uint32
		until time.Time
	}
	var mu sync.Mutex
	var got []set
	h := startHarness(t, func(c *Config) {
		c.OnRowChange = (&rowRecorder{}).change
		c.OnMaintenance = func(node uint32, until time.Time) error {
			mu.Lock()
			defer mu.Unlock()
			if node > 3 {
				return fmt.Errorf("row %d: %w", node, nodelist.ErrNoMember)
			}
			got = append(got, set{node, until})
			return nil
		}
	})
	k, _ := keyring.Generate()
	if err := h.r.SetClusterUsers([]usm.User{k.User()}); err != nil {
		t.Fatal(err)
	}
	now := h.clock.Now()
	cell := func(col, id int) string { return mib.TreeCell(col, id) }
	h.must(t, "snmpset", h.v2(rwCommunity, cell(mib.ColNodeMaintFor, 2), "u", "3600")...)
	h.must(t, "snmpset", h.v2(rwCommunity, cell(mib.ColNodeMaintUntil, 3), "x", "07EA0B1A0C1E00002B0100")...) // 2026-11-26 12:30 +01:00
	h.must(t, "snmpset", h.v2(rwCommunity, cell(mib.ColNodeMaintUntil, 3), "x", "07EA0B1A0C1E0000")...)       // the same, local time
	h.must(t, "snmpset", h.v2(rwCommunity, cell(mib.ColNodeMaintFor, 2), "u", "0")...)
	want := []set{
		{2, now.Add(time.Hour)},
		{3, time.Date(2026, 11, 26, 11, 30, 0, 0, time.UTC)},
		{3, time.Date(2026, 11, 26, 12, 30, 0, 0, time.Local)},
		{2, time.Time{}},
	}
	mu.Lock()
	if len(got) != len(want) {
		t.Fatalf("OnMaintenance got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].node != want[i].node || !got[i].until.Equal(want[i].until) {
			t.Errorf("set %d: node %d until %v, want node %d until %v", i+1, got[i].node, got[i].until, want[i].node, want[i].until)
		}
	}
	mu.Unlock()
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"read community", h.v2(roCommunity, cell(mib.ColNodeMaintFor, 2), "u", "60"), "noAccess"},
		{"more than 366 days", h.v2(rwCommunity, cell(mib.ColNodeMaintFor, 2), "u", "31622401"), "wrongValue"},
		{"an integer", h.v2(rwCommunity, cell(mib.ColNodeMaintFor, 2), "i", "60"), "wrongType"},
		{"three octets", h.v2(rwCommunity, cell(mib.ColNodeMaintUntil, 2), "x", "07EA0B"), "wrongLength"},
		{"month 13", h.v2(rwCommunity, cell(mib.ColNodeMaintUntil, 2), "x", "07EA0D1A0C000000"), "wrongValue"},
		{"years ahead", h.v2(rwCommunity, cell(mib.ColNodeMaintUntil, 2), "x", "08000B1A0C000000"), "wrongValue"},
		{"no such node", h.v2(rwCommunity, cell(mib.ColNodeMaintFor, 9), "u", "60"), "noCreation"},
		{"beside a row change", h.v2(rwCommunity, cell(mib.ColNodeMaintFor, 2), "u", "60", cell(mib.ColNodeRowStatus, 2), "i", "6"), "inconsistentValue"},
	}
	for _, c := range cases {
		out, err := h.run(t, "snmpset", c.args...)
		if err == nil || !strings.Contains(out, "Reason: "+c.want) {
			t.Errorf("%s: snmpset printed %q (%v), want Reason: %s", c.name, out, err, c.want)
		}
	}
	mu.Lock()
	if len(got) != len(want) {
		t.Errorf("a refused request reached the daemon: %+v", got[len(want):])
	}
	mu.Unlock()

	snap := testSnapshot()
	snap.Nodes[1].Maint = &nodelist.Window{Until: now.Add(90 * time.Second), Status: hiadsd.FaultFree}
	if err := h.r.Publish(snap); err != nil {
		t.Fatal(err)
	}
	out := h.must(t, "snmpget", h.v2(roCommunity, cell(mib.ColNodeMaintFor, 2), cell(mib.ColNodeMaintStatus, 2), cell(mib.ColNodeMaintUntil, 2),
		cell(mib.ColNodeMaintFor, 1), cell(mib.ColNodeMaintStatus, 1), cell(mib.ColNodeMaintUntil, 1))...)
	for _, w := range []string{"Gauge32: 90", "INTEGER: 0", "07 EA 0B 15 06 01 1E 00 2B 00 00", "Gauge32: 0", "INTEGER: 3", "00 00 00 00 00 00 00 00"} {
		if !strings.Contains(out, w) {
			t.Errorf("snmpget of the windows of nodes 2 (90 s left) and 1 (none):\n%s\nwant %q", out, w)
		}
	}
	h.clock.Advance(2 * time.Minute)
	if out := h.must(t, "snmpget", h.v2(roCommunity, cell(mib.ColNodeMaintFor, 2))...); !strings.Contains(out, "Gauge32: 0") {
		t.Errorf("nodeMaintenanceFor.2 once the window is over: %s, want 0", out)
	}
}
