//go:build integration && linux

package snmp

import (
	"errors"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/diagagent/diagagent/mib"
)

// nmsRecorder records the stations the responder hands to OnSetNMS.
type nmsRecorder struct {
	mu   sync.Mutex
	got  []netip.Addr
	fail error
}

func (n *nmsRecorder) set(a netip.Addr) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.fail != nil {
		return n.fail
	}
	n.got = append(n.got, a)
	return nil
}

func (n *nmsRecorder) calls() []netip.Addr {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]netip.Addr(nil), n.got...)
}

func startSetHarness(t *testing.T) (*harness, *nmsRecorder) {
	rec := &nmsRecorder{}
	h := startHarness(t, func(c *Config) { c.OnSetNMS = rec.set })
	return h, rec
}

func TestSetNMSThroughWriteCommunity(t *testing.T) {
	h, rec := startSetHarness(t)
	out := h.must(t, "snmpset", h.v2(rwCommunity, mib.NMSID0, "a", "127.0.0.42")...)
	if out != ".1.3.6.1.4.1.200.1.3.0 = IpAddress: 127.0.0.42" {
		t.Errorf("snmpset printed %q", out)
	}
	if got := rec.calls(); len(got) != 1 || got[0] != netip.MustParseAddr("127.0.0.42") {
		t.Errorf("OnSetNMS calls = %v, want [127.0.0.42]", got)
	}
}

func TestSetErrors(t *testing.T) {
	h, rec := startSetHarness(t)
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"read-only community v2c", h.v2(roCommunity, mib.NMSID0, "a", "127.0.0.1"),
			[]string{"Reason: noAccess", "Failed object: .1.3.6.1.4.1.200.1.3.0"}},
		{"read-only community v1", h.v1(roCommunity, mib.NMSID0, "a", "127.0.0.1"),
			[]string{"(noSuchName)", "Failed object: .1.3.6.1.4.1.200.1.3.0"}},
		{"read-only object", h.v2(rwCommunity, mib.SysName0, "s", "x"),
			[]string{"Reason: notWritable", "Failed object: .1.3.6.1.2.1.1.5.0"}},
		{"unknown object", h.v2(rwCommunity, ".1.3.6.1.4.1.200.1.99.0", "i", "1"),
			[]string{"Reason: notWritable", "Failed object: .1.3.6.1.4.1.200.1.99.0"}},
		{"table column", h.v2(rwCommunity, mib.TreeCell(mib.ColNodeStatus, 1), "i", "1"),
			[]string{"Reason: notWritable"}},
		{"no creation", h.v2(rwCommunity, mib.NMSID+".1", "a", "127.0.0.1"),
			[]string{"Reason: noCreation", "Failed object: .1.3.6.1.4.1.200.1.3.1"}},
		{"wrong type at index 2", h.v2(rwCommunity, mib.NMSID0, "a", "127.0.0.7", mib.DiagFaultInject0, "s", "10"),
			[]string{"Reason: wrongType", "Failed object: .1.3.6.1.4.1.200.1.6.0"}},
		{"broadcast station", h.v2(rwCommunity, mib.NMSID0, "a", "255.255.255.255"),
			[]string{"Reason: wrongValue", "Failed object: .1.3.6.1.4.1.200.1.3.0"}},
		{"multicast station", h.v2(rwCommunity, mib.NMSID0, "a", "224.0.0.1"),
			[]string{"Reason: wrongValue", "Failed object: .1.3.6.1.4.1.200.1.3.0"}},
		{"link-local station", h.v2(rwCommunity, mib.NMSID0, "a", "169.254.1.1"),
			[]string{"Reason: wrongValue", "Failed object: .1.3.6.1.4.1.200.1.3.0"}},
		{"reserved station", h.v2(rwCommunity, mib.NMSID0, "a", "240.0.0.1"),
			[]string{"Reason: wrongValue", "Failed object: .1.3.6.1.4.1.200.1.3.0"}},
		{"wrong value", h.v2(rwCommunity, mib.DiagFaultInject0, "i", "86401"),
			[]string{"Reason: wrongValue", "Failed object: .1.3.6.1.4.1.200.1.6.0"}},
		{"v1 bad value at index 2", h.v1(rwCommunity, mib.NMSID0, "a", "127.0.0.7", mib.DiagFaultInject0, "i", "-1"),
			[]string{"(badValue)", "Failed object: .1.3.6.1.4.1.200.1.6.0"}},
		{"v1 read-only object", h.v1(rwCommunity, mib.SysName0, "s", "x"),
			[]string{"(noSuchName)", "Failed object: .1.3.6.1.2.1.1.5.0"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := h.run(t, "snmpset", c.args...)
			if err == nil {
				t.Fatalf("snmpset succeeded:\n%s", out)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
	if got := rec.calls(); len(got) != 0 {
		t.Errorf("a failed SET reached OnSetNMS: %v", got)
	}
	if s := h.r.Stats(); s.OutBadValues != 1 || s.InSetRequests != uint64(len(cases)) || s.InBadCommunityUses != 2 {
		t.Errorf("OutBadValues = %d (want 1), InSetRequests = %d (want %d), InBadCommunityUses = %d (want 2)",
			s.OutBadValues, s.InSetRequests, len(cases), s.InBadCommunityUses)
	}
}

func TestSetCommitFailureWritesNothing(t *testing.T) {
	rec := &nmsRecorder{fail: errors.New("station refused")}
	h := startHarness(t, func(c *Config) { c.OnSetNMS = rec.set })
	out, err := h.run(t, "snmpset", h.v2(rwCommunity, mib.DiagFaultInject0, "i", "30", mib.NMSID0, "a", "127.0.0.8")...)
	if err == nil || !strings.Contains(out, "commitFailed") || !strings.Contains(out, "Failed object: .1.3.6.1.4.1.200.1.3.0") {
		t.Fatalf("want commitFailed on nmsID, got err=%v:\n%s", err, out)
	}
	if h.r.fault.silenced(h.clock.Now()) {
		t.Error("fault injection was committed although the SET failed")
	}
}

func TestSetNMSReadOnlyWithoutCallback(t *testing.T) {
	h := startHarness(t, nil)
	out, err := h.run(t, "snmpset", h.v2(rwCommunity, mib.NMSID0, "a", "127.0.0.42")...)
	if err == nil || !strings.Contains(out, "Reason: notWritable") {
		t.Fatalf("want notWritable without OnSetNMS, got err=%v:\n%s", err, out)
	}
}
