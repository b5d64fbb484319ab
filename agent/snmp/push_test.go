//go:build integration

package snmp

import (
	"encoding/hex"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/diagagent/diagagent/agent/board"
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
