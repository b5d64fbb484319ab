//go:build integration && linux

package snmp

import (
	"encoding/hex"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/keyring"
	"github.com/diagagent/diagagent/agent/usm"
	"github.com/diagagent/diagagent/mib"
)

// TestKeyObjects drives the key objects with net-snmp's tools: diagKeyTable
// and diagListTable are walked by the cluster's user alone (to the read
// community they do not exist); diagKeyChange takes a change from the cluster's user alone, with
// the RFC's error for one of the wrong length (wrongLength), an unknown verb
// (wrongValue) or one that contradicts the keys held (inconsistentValue);
// after SetClusterUsers the old key's user is unknown and the new one's
// works.
func TestKeyObjects(t *testing.T) {
	old, _ := keyring.Generate()
	next, _ := keyring.Generate()
	var mu sync.Mutex
	var changes []int
	h := startHarness(t, func(c *Config) {
		c.Users = append(c.Users, User{User: old.User(), Write: true, Cluster: true})
		c.OnKeyChange = func(verb int, k [32]byte) error {
			mu.Lock()
			defer mu.Unlock()
			changes = append(changes, verb)
			return nil
		}
	})
	snap := testSnapshot()
	snap.Keys = []board.Key{{Index: old.Index(), Primary: true, Value: old[:]}}
	snap.List = board.Chunks([]byte("a node list that holds a printer's community"))
	if err := h.r.Publish(snap); err != nil {
		t.Fatal(err)
	}
	as := func(k keyring.Key) []string {
		u := k.User()
		return []string{"-l", "authPriv", "-u", u.Name, "-a", "SHA-256", "-A", u.AuthPassphrase, "-x", "AES", "-X", u.PrivPassphrase}
	}
	walk := h.must(t, "snmpwalk", h.v3(as(old), mib.DiagKeyTable)...)
	if want := mib.DiagKeyValue + "." + strconv.FormatUint(uint64(old.Index()), 10); !strings.Contains(walk, want) || !strings.Contains(strings.ReplaceAll(walk, " ", ""), strings.ToUpper(hex.EncodeToString(old[:4]))) {
		t.Fatalf("the cluster user's walk of diagKeyTable:\n%s\nwant %s holding the key", walk, want)
	}
	if out := h.must(t, "snmpwalk", h.v2(roCommunity, mib.DiagKeyTable)...); strings.Contains(out, mib.DiagKeyEntry) {
		t.Fatalf("the read community walks diagKeyTable:\n%s", out)
	}
	// diagListTable holds the communities of tested-only nodes: with cluster
	// users, theirs alone, as diagKeyTable.
	if out := h.must(t, "snmpwalk", h.v3(as(old), mib.DiagListTable)...); !strings.Contains(out, mib.DiagListChunk+".1 = STRING") {
		t.Fatalf("the cluster user's walk of diagListTable:\n%s", out)
	}
	if out := h.must(t, "snmpwalk", h.v2(roCommunity, mib.DiagListTable)...); strings.Contains(out, mib.DiagListEntry) {
		t.Fatalf("the read community walks diagListTable:\n%s", out)
	}
	change := func(verb byte, k keyring.Key) string { return hex.EncodeToString(append([]byte{verb}, k[:]...)) }
	for _, c := range []struct {
		value, reason string
	}{
		{hex.EncodeToString([]byte{1, 2, 3}), "wrongLength"},
		{change(9, next), "wrongValue"},
		{change(mib.KeyInstall, old), "inconsistentValue"}, // held already
		{change(mib.KeyUse, next), "inconsistentValue"},    // not held
		{change(mib.KeyRemove, old), "inconsistentValue"},  // the key in use
	} {
		out, err := h.run(t, "snmpset", h.v3(as(old), mib.DiagKeyChange0, "x", c.value)...)
		if err == nil || !strings.Contains(out, "Reason: "+c.reason) {
			t.Errorf("diagKeyChange = %s: %q (%v), want %s", c.value, out, err, c.reason)
		}
	}
	out, err := h.run(t, "snmpset", h.v2(rwCommunity, mib.DiagKeyChange0, "x", change(mib.KeyInstall, next))...)
	if err == nil || !strings.Contains(out, "Reason: noAccess") {
		t.Errorf("a key change with the write community: %q (%v), want noAccess", out, err)
	}
	h.must(t, "snmpset", h.v3(as(old), mib.DiagKeyChange0, "x", change(mib.KeyInstall, next))...)
	mu.Lock()
	if len(changes) != 1 || changes[0] != mib.KeyInstall {
		t.Errorf("OnKeyChange got %v, want one install", changes)
	}
	mu.Unlock()

	if err := h.r.SetClusterUsers([]usm.User{next.User()}); err != nil {
		t.Fatal(err)
	}
	if out, err := h.run(t, "snmpget", h.v3(as(old), mib.HiADSDisUP0)...); err == nil || !strings.Contains(out, "Unknown user name") {
		t.Errorf("the removed key's user after SetClusterUsers: %q (%v), want an unknown user", out, err)
	}
	h.must(t, "snmpget", h.v3(as(next), mib.HiADSDisUP0)...)
	h.must(t, "snmpget", h.v2(roCommunity, mib.HiADSDisUP0)...) // the operator's credentials stay
}
