//go:build integration && linux

package snmp

import (
	"strings"
	"testing"
	"time"

	"github.com/diagagent/diagagent/mib"
)

func TestFaultInjectionSilencesTheAgent(t *testing.T) {
	h := startHarness(t, nil)
	out := h.must(t, "snmpset", h.v2(rwCommunity, mib.DiagFaultInject0, "i", "30")...)
	if out != ".1.3.6.1.4.1.200.1.6.0 = INTEGER: 30" {
		t.Fatalf("snmpset printed %q", out)
	}
	out, err := h.run(t, "snmpget", silent(h.v2(roCommunity, mib.DiagFaultInject0))...)
	if err == nil || !strings.Contains(out, "Timeout") {
		t.Fatalf("want a timeout while silenced, got err=%v:\n%s", err, out)
	}
	if got := h.r.Stats().FaultDrops; got != 1 {
		t.Errorf("FaultDrops = %d, want 1", got)
	}
	h.clock.Advance(10 * time.Second)
	if got := h.r.fault.secondsLeft(h.clock.Now()); got != 20 {
		t.Errorf("seconds left after 10 s = %d, want 20", got)
	}
	h.clock.Advance(20 * time.Second)
	out = h.must(t, "snmpget", h.v2(roCommunity, mib.DiagFaultInject0)...)
	if out != ".1.3.6.1.4.1.200.1.6.0 = INTEGER: 0" {
		t.Errorf("after the silence: %q", out)
	}
}

func TestFaultInjectionRefused(t *testing.T) {
	off := startHarness(t, func(c *Config) { c.FaultInjection = false })
	out, err := off.run(t, "snmpset", off.v2(rwCommunity, mib.DiagFaultInject0, "i", "30")...)
	if err == nil || !strings.Contains(out, "notWritable") {
		t.Errorf("disabled: want notWritable, got err=%v:\n%s", err, out)
	}
	on := startHarness(t, nil)
	out, err = on.run(t, "snmpset", on.v2(roCommunity, mib.DiagFaultInject0, "i", "30")...)
	if err == nil || !strings.Contains(out, "noAccess") {
		t.Errorf("read-only community: want noAccess, got err=%v:\n%s", err, out)
	}
	if on.r.fault.silenced(on.clock.Now()) || off.r.fault.silenced(off.clock.Now()) {
		t.Error("a refused SET silenced the agent")
	}
}

// TestFaultInjectionLiftedEarly is issue 13's defect 8: while silenced the
// agent ignored everything, so a long injected fault needed a restart. A SET
// of diagFaultInject.0 to 0 alone, through the write community, is now the
// one request a silenced agent answers; anything else, that SET through the
// read community included, is still dropped.
func TestFaultInjectionLiftedEarly(t *testing.T) {
	h := startHarness(t, nil)
	h.must(t, "snmpset", h.v2(rwCommunity, mib.DiagFaultInject0, "i", "86400")...)
	for _, args := range [][]string{
		silent(h.v2(roCommunity, mib.SysName0)),
		silent(h.v2(roCommunity, mib.DiagFaultInject0, "i", "0")),
		silent(h.v2(rwCommunity, mib.DiagFaultInject0, "i", "5")),
		silent(h.v2(rwCommunity, mib.DiagFaultInject0, "i", "0", mib.NMSID0, "a", "127.0.0.9")),
	} {
		tool := "snmpget"
		if len(args) > 0 && strings.Contains(strings.Join(args, " "), " i ") {
			tool = "snmpset"
		}
		if out, err := h.run(t, tool, args...); err == nil || !strings.Contains(out, "Timeout") {
			t.Fatalf("%s %v while silenced: err=%v, want a timeout:\n%s", tool, args, err, out)
		}
	}
	if out := h.must(t, "snmpset", h.v2(rwCommunity, mib.DiagFaultInject0, "i", "0")...); out != ".1.3.6.1.4.1.200.1.6.0 = INTEGER: 0" {
		t.Fatalf("lifting SET printed %q", out)
	}
	if out := h.must(t, "snmpget", h.v2(roCommunity, mib.DiagFaultInject0)...); out != ".1.3.6.1.4.1.200.1.6.0 = INTEGER: 0" {
		t.Fatalf("after the lift: %q", out)
	}
	if got := h.r.Stats().FaultDrops; got != 4 {
		t.Errorf("FaultDrops = %d, want the 4 requests of the silence", got)
	}
}

// TestFaultInjectionSkewsTheListClock: diagFaultClockSkew takes seconds
// either way within a day, hands them to the daemon and reads them back;
// out of range is wrongValue, and without fault injection it is read-only.
func TestFaultInjectionSkewsTheListClock(t *testing.T) {
	var got []time.Duration
	h := startHarness(t, func(c *Config) { c.OnClockSkew = func(d time.Duration) error { got = append(got, d); return nil } })
	if out := h.must(t, "snmpset", h.v2(rwCommunity, mib.DiagFaultClockSkew0, "i", "600")...); out != ".1.3.6.1.4.1.200.1.21.0 = INTEGER: 600" {
		t.Fatalf("snmpset printed %q", out)
	}
	if out := h.must(t, "snmpget", h.v2(roCommunity, mib.DiagFaultClockSkew0)...); out != ".1.3.6.1.4.1.200.1.21.0 = INTEGER: 600" {
		t.Errorf("read back %q", out)
	}
	h.must(t, "snmpset", h.v2(rwCommunity, mib.DiagFaultClockSkew0, "i", "0")...)
	if out, err := h.run(t, "snmpset", h.v2(rwCommunity, mib.DiagFaultClockSkew0, "i", "86401")...); err == nil || !strings.Contains(out, "wrongValue") {
		t.Errorf("a skew over a day: %v\n%s", err, out)
	}
	if len(got) != 2 || got[0] != 10*time.Minute || got[1] != 0 {
		t.Errorf("the daemon was handed %v, want [10m0s 0s]", got)
	}
	off := startHarness(t, func(c *Config) {
		c.FaultInjection = false
		c.OnClockSkew = func(time.Duration) error { t.Error("a skew was taken without fault injection"); return nil }
	})
	if out, err := off.run(t, "snmpset", off.v2(rwCommunity, mib.DiagFaultClockSkew0, "i", "600")...); err == nil || !strings.Contains(out, "notWritable") {
		t.Errorf("without fault injection: %v\n%s", err, out)
	}
}
