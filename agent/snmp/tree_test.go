package snmp

import (
	"testing"
)

func TestOIDParseAndOrder(t *testing.T) {
	o, err := ParseOID(".1.3.6.1.4294967295")
	if err != nil || o.String() != ".1.3.6.1.4294967295" {
		t.Fatalf("ParseOID = %v, %v", o, err)
	}
	for _, bad := range []string{"1..3", ".1.3.x", "1.3.4294967296"} {
		if _, err := ParseOID(bad); err == nil {
			t.Errorf("ParseOID(%q) succeeded", bad)
		}
	}
	if mustOID("1.3.6").Compare(mustOID("1.3.6.0")) >= 0 || mustOID("1.3.10").Compare(mustOID("1.3.9.9")) <= 0 {
		t.Error("OID order is not lexicographic by sub-identifier")
	}
}

func TestTreeNextAcrossGapsAndTables(t *testing.T) {
	h := startHarness(t, nil)
	v := &view{r: h.r, snap: h.r.board.Load(), now: h.clock.Now(), ws: &workspace{}}
	cases := []struct{ from, want string }{
		{"", ".1.3.6.1.2.1.1.1.0"},
		{".1.3.6.1.2.1.1.8.0", ".1.3.6.1.2.1.11.1.0"},
		{".1.3.6.1.2.1.11.6.0", ".1.3.6.1.2.1.11.13.0"},
		{".1.3.6.1.4.1.200.1.1.1.1.3", ".1.3.6.1.4.1.200.1.1.1.2.1"},
		{".1.3.6.1.4.1.200.1.1.1.7.3", ".1.3.6.1.4.1.200.1.1.1.8.1"},
		{".1.3.6.1.4.1.200.1.1.1.9.3", ".1.3.6.1.4.1.200.1.1.1.10.1"},
		{".1.3.6.1.4.1.200.1.1.1.11.3", ".1.3.6.1.4.1.200.1.1.1.12.1"},
		{".1.3.6.1.4.1.200.1.1.1.12.3", ".1.3.6.1.4.1.200.1.1.1.13.1"},
		{".1.3.6.1.4.1.200.1.1.1.13", ".1.3.6.1.4.1.200.1.1.1.13.1"},
		{".1.3.6.1.4.1.200.1.1.1.15.3", ".1.3.6.1.4.1.200.1.1.1.16.1"},
		{".1.3.6.1.4.1.200.1.1.1.16", ".1.3.6.1.4.1.200.1.1.1.16.1"},
		{".1.3.6.1.4.1.200.1.1.1.18.3", ".1.3.6.1.4.1.200.1.2.0"},
		{".1.3.6.1.4.1.200.1.1.1.19", ".1.3.6.1.4.1.200.1.2.0"},
		{".1.3.6.1.4.1.200.1.1.1.3.2.99", ".1.3.6.1.4.1.200.1.1.1.3.3"},
		{".1.3.6.1.4.1.200.1.8", ".1.3.6.1.4.1.200.1.8.1.2.7"},
		{".1.3.6.1.4.1.200.1.8.1.1.999", ".1.3.6.1.4.1.200.1.8.1.2.7"},
		{".1.3.6.1.4.1.200.1.8.1.8.8", ".1.3.6.1.4.1.200.1.8.1.9.7"},
		{".1.3.6.1.4.1.200.1.8.1.9.8", ".1.3.6.1.4.1.200.1.9.0"},
		{".1.3.6.1.4.1.200.1.9.0", ".1.3.6.1.4.1.200.1.10.0"},
		{".1.3.6.1.4.1.200.1.11.0", ".1.3.6.1.4.1.200.1.12.0"},
		{".1.3.6.1.4.1.200.1.12.0", ".1.3.6.1.4.1.200.1.13.0"},
		{".1.3.6.1.4.1.200.1.13.0", ".1.3.6.1.4.1.200.1.14.0"},
		{".1.3.6.1.4.1.200.1.14.0", ".1.3.6.1.4.1.200.1.16.0"}, // diagKeyTable (.15): for the cluster's users alone
		{".1.3.6.1.4.1.200.1.16.0", ".1.3.6.1.4.1.200.1.17.0"},
		{".1.3.6.1.4.1.200.1.17.0", ".1.3.6.1.6.3.10.2.1.1.0"}, // diagListTable (.18): empty in this snapshot
		{".2", ""},
	}
	for _, c := range cases {
		n, _, ok := h.r.tree.next(v, mustOID(c.from))
		got := ""
		if ok {
			got = n.String()
		}
		if got != c.want {
			t.Errorf("next(%s) = %q, want %q", c.from, got, c.want)
		}
	}
}

func TestRegistrySubtreesDoNotOverlap(t *testing.T) {
	h := startHarness(t, nil)
	b := h.r.tree.bases
	if len(b) < 40 {
		t.Fatalf("registry has %d subtrees, want the standard groups and the DIAGNOSIS-MIB", len(b))
	}
	for i := 1; i < len(b); i++ {
		if b[i].Compare(b[i-1]) <= 0 || b[i].HasPrefix(b[i-1]) {
			t.Errorf("subtree %s does not follow %s without overlap", b[i], b[i-1])
		}
	}
}
