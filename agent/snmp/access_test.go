//go:build integration

package snmp

import (
	"strings"
	"testing"

	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"

	"github.com/diagagent/diagagent/mib"
)

func TestBadCommunityIsDroppedAndCounted(t *testing.T) {
	h := startHarness(t, nil)
	out, err := h.run(t, "snmpget", silent(h.v2("wrong", mib.SysName0))...)
	if err == nil || !strings.Contains(out, "Timeout") {
		t.Fatalf("want a timeout for a wrong community, got err=%v:\n%s", err, out)
	}
	out = h.must(t, "snmpget", h.v2(roCommunity, ".1.3.6.1.2.1.11.4.0")...)
	if out != ".1.3.6.1.2.1.11.4.0 = Counter32: 1" {
		t.Errorf("snmpInBadCommunityNames: %q, want 1", out)
	}
}

func TestCommunityFromDisallowedSourceIsDropped(t *testing.T) {
	h := startHarness(t, nil)
	out, err := h.run(t, "snmpget", silent(h.v1("elsewhere", mib.SysName0))...)
	if err == nil || !strings.Contains(out, "Timeout") {
		t.Fatalf("want a timeout for a community from the wrong network, got err=%v:\n%s", err, out)
	}
	out = h.must(t, "snmpget", h.v2(roCommunity, ".1.3.6.1.2.1.11.5.0")...)
	if out != ".1.3.6.1.2.1.11.5.0 = Counter32: 1" {
		t.Errorf("snmpInBadCommunityUses: %q, want 1", out)
	}
}

func TestBadCommunityIsLoggedAtDebugWithItsSource(t *testing.T) {
	logger, hook := logtest.NewNullLogger()
	logger.SetLevel(logrus.DebugLevel)
	h := startHarness(t, func(c *Config) { c.Log = logrus.NewEntry(logger) })
	if out, err := h.run(t, "snmpget", silent(h.v2("wrong", mib.SysName0))...); err == nil {
		t.Fatalf("snmpget with a wrong community succeeded:\n%s", out)
	}
	e := hook.LastEntry()
	if e == nil || e.Level != logrus.DebugLevel || e.Data["src"] == nil || !strings.Contains(e.Message, "unknown community") {
		t.Fatalf("want a debug record with the source, got %+v", e)
	}
}
