//go:build integration && linux

package snmp

import (
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/mib"
)

// rowRecorder records the row changes the responder hands to OnRowChange;
// it accepts a row at index 4 only, as a daemon with 3 ids would.
type rowRecorder struct {
	mu  sync.Mutex
	got []RowChange
}

func (r *rowRecorder) change(ch RowChange) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case !ch.Destroy && ch.ID != 4:
		return fmt.Errorf("%w: the next id is 4", ErrRowNoCreation)
	case ch.Destroy && ch.ID > 3:
		return fmt.Errorf("%w: no member %d", ErrRowInconsistent, ch.ID)
	}
	r.got = append(r.got, ch)
	return nil
}

// TestRowSets creates and destroys diagTree rows with net-snmp's snmpset and
// checks what reaches the daemon and the RFC 3416 error of each bad request.
func TestRowSets(t *testing.T) {
	rec := &rowRecorder{}
	h := startHarness(t, func(c *Config) { c.OnRowChange = rec.change })
	cell := func(col, id int) string { return mib.TreeCell(col, id) }
	create := func(id int, addr string) []string {
		return []string{cell(mib.ColNodeAddrType, id), "i", "1", cell(mib.ColNodeAddr, id), "x", addr,
			cell(mib.ColNodePort, id), "u", "1161", cell(mib.ColNodeTestedOnly, id), "i", "1", cell(mib.ColNodeRowStatus, id), "i", "4"}
	}
	h.must(t, "snmpset", h.v2(rwCommunity, create(4, "0a000009")...)...)
	h.must(t, "snmpset", h.v2(rwCommunity, cell(mib.ColNodeRowStatus, 2), "i", "6")...)
	// By text, with a name and a community: no octets in hexadecimal.
	h.must(t, "snmpset", h.v2(rwCommunity, cell(mib.ColNodeHost, 4), "s", "2001:db8::9", cell(mib.ColNodeName, 4), "s", "printer-9",
		cell(mib.ColNodeCommunity, 4), "s", "pr1nt", cell(mib.ColNodeRowStatus, 4), "i", "4")...)
	h.must(t, "snmpset", h.v2(rwCommunity, cell(mib.ColNodeHost, 4), "s", "ws-9.lan", cell(mib.ColNodeRowStatus, 4), "i", "4")...)
	want := []RowChange{{ID: 4, Member: nodelist.Member{Addr: netip.MustParseAddr("10.0.0.9"), Port: 1161, TestedOnly: true}}, {ID: 2, Destroy: true},
		{ID: 4, Member: nodelist.Member{Addr: netip.MustParseAddr("2001:db8::9"), Port: 161, Name: "printer-9", Community: "pr1nt"}},
		{ID: 4, Member: nodelist.Member{Host: "ws-9.lan", Port: 161}}}
	if fmt.Sprint(rec.got) != fmt.Sprint(want) {
		t.Errorf("OnRowChange got %+v, want %+v", rec.got, want)
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"read community", h.v2(roCommunity, create(4, "0a000009")...), "noAccess"},
		{"not the next id", h.v2(rwCommunity, create(7, "0a000009")...), "noCreation"},
		{"no such member", h.v2(rwCommunity, cell(mib.ColNodeRowStatus, 9), "i", "6"), "inconsistentValue"},
		{"no address", h.v2(rwCommunity, cell(mib.ColNodeRowStatus, 4), "i", "4"), "inconsistentValue"},
		{"createAndWait", h.v2(rwCommunity, cell(mib.ColNodeRowStatus, 4), "i", "5"), "wrongValue"},
		{"no row status", h.v2(rwCommunity, cell(mib.ColNodeAddr, 4), "x", "0a000009"), "inconsistentName"},
		{"two rows", h.v2(rwCommunity, cell(mib.ColNodeRowStatus, 4), "i", "6", cell(mib.ColNodeRowStatus, 5), "i", "6"), "inconsistentName"},
		{"a 3-octet address", h.v2(rwCommunity, append(create(4, "0a0000")[3:], cell(mib.ColNodeAddrType, 4), "i", "1")...), "wrongValue"},
		{"status column", h.v2(rwCommunity, cell(mib.ColNodeStatus, 4), "i", "1", cell(mib.ColNodeRowStatus, 4), "i", "4"), "notWritable"},
		{"string row status", h.v2(rwCommunity, cell(mib.ColNodeRowStatus, 4), "s", "x"), "wrongType"},
		{"host and address", h.v2(rwCommunity, append(create(4, "0a000009"), cell(mib.ColNodeHost, 4), "s", "10.0.0.9")...), "inconsistentValue"},
		{"not a host name", h.v2(rwCommunity, cell(mib.ColNodeHost, 4), "s", "ws_9 lan", cell(mib.ColNodeRowStatus, 4), "i", "4"), "wrongValue"},
		{"a name too long", h.v2(rwCommunity, cell(mib.ColNodeHost, 4), "s", "10.0.0.9", cell(mib.ColNodeName, 4), "s", strings.Repeat("n", 65),
			cell(mib.ColNodeRowStatus, 4), "i", "4"), "wrongLength"},
	}
	for _, c := range cases {
		out, err := h.run(t, "snmpset", c.args...)
		if err == nil || !strings.Contains(out, "Reason: "+c.want) {
			t.Errorf("%s: snmpset printed %q (%v), want Reason: %s", c.name, out, err, c.want)
		}
	}
	if len(rec.got) != 4 {
		t.Errorf("a refused request reached the daemon: %+v", rec.got)
	}
}
