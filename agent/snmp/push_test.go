//go:build integration && linux

package snmp

import (
	"encoding/hex"
	"net/netip"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/keyring"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// TestPushThroughSnmpset writes diagPush with net-snmp's snmpset: through
// the write community the decoded push reaches OnPush once; through the
// read community, or with a value of a bad length or field, it gets the RFC
// 3416 error and reaches nothing; a GET reads a zero-length string.
func TestPushThroughSnmpset(t *testing.T) {
	var mu sync.Mutex
	var got []board.Push
	h := startHarness(t, func(c *Config) {
		c.OnPush = func(p board.Push) error { mu.Lock(); got = append(got, p); mu.Unlock(); return nil }
	})
	want := board.Push{From: 4, Cluster: 3, ListVersion: 2, ListHash: [8]byte{9, 9, 9, 9, 9, 9, 9, 9},
		Entries: []board.PushEntry{{NodeID: 6, Status: hiadsd.Partial, Counter: 5}}}
	b, err := board.MarshalPush(want)
	if err != nil {
		t.Fatal(err)
	}
	h.must(t, "snmpset", h.v2(rwCommunity, mib.DiagPush0, "x", hex.EncodeToString(b))...)
	mu.Lock()
	if len(got) != 1 || !reflect.DeepEqual(got[0], want) {
		t.Fatalf("OnPush got %+v, want %+v", got, want)
	}
	mu.Unlock()
	if out := h.must(t, "snmpget", h.v2(roCommunity, mib.DiagPush0)...); !strings.HasSuffix(out, `= ""`) {
		t.Errorf("GET diagPush.0 printed %q, want an empty string", out)
	}
	bad := []struct {
		name, community, hex, reason string
	}{
		{"read community", roCommunity, hex.EncodeToString(b), "noAccess"},
		{"half an entry", rwCommunity, hex.EncodeToString(b[:20]), "wrongLength"},
		{"format 2", rwCommunity, "02" + hex.EncodeToString(b[1:]), "wrongValue"},
	}
	for _, c := range bad {
		out, err := h.run(t, "snmpset", h.v2(c.community, mib.DiagPush0, "x", c.hex)...)
		if err == nil || !strings.Contains(out, "Reason: "+c.reason) {
			t.Errorf("%s: snmpset printed %q (%v), want %s", c.name, out, err, c.reason)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 {
		t.Fatalf("a refused push reached OnPush: %+v", got[1:])
	}
}

// TestPushOnlyFromClusterUsers: with a cluster user served (derived from a
// key of the keyring), diagPush and the diagTree rows take SETs from that
// user alone: the write community, which may still set nmsID, gets noAccess
// for a push and for a new row, each counted and notified as an
// authentication failure, and neither reaches the daemon; net-snmp's
// snmpset as the cluster user (authPriv, SHA-256, AES) delivers both.
func TestPushOnlyFromClusterUsers(t *testing.T) {
	k, err := keyring.Generate()
	if err != nil {
		t.Fatal(err)
	}
	u := k.User()
	var mu sync.Mutex
	var got []board.Push
	var rows []RowChange
	var failures []netip.Addr
	h := startHarness(t, func(c *Config) {
		c.OnRowChange = func(ch RowChange) error { mu.Lock(); rows = append(rows, ch); mu.Unlock(); return nil }
		c.Users = append(c.Users, User{User: u, Write: true, Cluster: true})
		c.OnPush = func(p board.Push) error { mu.Lock(); got = append(got, p); mu.Unlock(); return nil }
		c.OnAuthFailure = func(src netip.Addr) { mu.Lock(); failures = append(failures, src); mu.Unlock() }
		c.OnSetNMS = func(netip.Addr) error { return nil }
	})
	b, err := board.MarshalPush(board.Push{From: 2, Cluster: 1, Entries: []board.PushEntry{{NodeID: 6, Status: hiadsd.Faulty, Counter: 5}}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := h.run(t, "snmpset", h.v2(rwCommunity, mib.DiagPush0, "x", hex.EncodeToString(b))...)
	if err == nil || !strings.Contains(out, "Reason: noAccess") {
		t.Fatalf("a push with the write community: snmpset printed %q (%v), want noAccess", out, err)
	}
	h.must(t, "snmpset", h.v2(rwCommunity, mib.NMSID0, "a", "192.0.2.9")...) // the operator's write stays
	row := []string{mib.NodeRowStatus + ".9", "i", "4", mib.NodeAddrType + ".9", "i", "1", mib.NodeAddr + ".9", "x", "c0000209"}
	out, err = h.run(t, "snmpset", h.v2(rwCommunity, row...)...)
	if err == nil || !strings.Contains(out, "Reason: noAccess") {
		t.Fatalf("a new row with the write community: snmpset printed %q (%v), want noAccess", out, err)
	}
	cluster := []string{"-l", "authPriv", "-u", u.Name, "-a", "SHA-256", "-A", u.AuthPassphrase, "-x", "AES", "-X", u.PrivPassphrase}
	h.must(t, "snmpset", h.v3(cluster, mib.DiagPush0, "x", hex.EncodeToString(b))...)
	h.must(t, "snmpset", h.v3(cluster, row...)...)
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0].From != 2 || len(rows) != 1 || rows[0].ID != 9 {
		t.Errorf("OnPush got %+v, OnRowChange %+v; want the cluster user's push and row alone", got, rows)
	}
	if len(failures) != 2 || h.r.Stats().AgentsOnly != 2 {
		t.Errorf("%d authentication failures notified, %d counted, want 2 and 2", len(failures), h.r.Stats().AgentsOnly)
	}
}
