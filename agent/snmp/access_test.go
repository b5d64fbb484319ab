//go:build integration && linux

package snmp

import (
	"net/netip"
	"strings"
	"sync"
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

// TestAuthenticationFailuresAreReported: with OnAuthFailure set, each
// message that fails authentication (an unknown community, a community from
// a source it is not allowed from, an unknown SNMPv3 user, a wrong digest)
// is reported once with its source, a good request is not, and
// snmpEnableAuthenTraps reads enabled(1); without it, disabled(2).
func TestAuthenticationFailuresAreReported(t *testing.T) {
	var mu sync.Mutex
	var got []netip.Addr
	h := startHarness(t, func(c *Config) {
		c.OnAuthFailure = func(src netip.Addr) { mu.Lock(); got = append(got, src); mu.Unlock() }
	})
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(got) }
	for _, c := range []struct {
		what string
		args []string
	}{
		{"unknown community", silent(h.v2("wrong", mib.SysName0))},
		{"community from elsewhere", silent(h.v1("elsewhere", mib.SysName0))},
		{"unknown user", h.v3([]string{"-u", "nobody", "-l", "noAuthNoPriv"}, mib.SysName0)},
		{"wrong digest", h.v3([]string{"-u", "authsha", "-l", "authNoPriv", "-a", "SHA", "-A", "not-the-passphrase"}, mib.SysName0)},
	} {
		before := count()
		if out, err := h.run(t, "snmpget", c.args...); err == nil {
			t.Fatalf("%s: answered:\n%s", c.what, out)
		}
		if n := count() - before; n != 1 {
			t.Errorf("%s: reported %d times, want once", c.what, n)
		}
	}
	before := count()
	if out := h.must(t, "snmpget", h.v2(roCommunity, "-Oqv", ".1.3.6.1.2.1.11.30.0")...); out != "1" {
		t.Errorf("snmpEnableAuthenTraps = %q, want 1 (enabled)", out)
	}
	if n := count() - before; n != 0 {
		t.Errorf("a good request was reported %d times", n)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, src := range got {
		if src != netip.MustParseAddr("127.0.0.1") {
			t.Errorf("reported source %v, want 127.0.0.1", src)
		}
	}
	off := startHarness(t, nil)
	if out := off.must(t, "snmpget", off.v2(roCommunity, "-Oqv", ".1.3.6.1.2.1.11.30.0")...); out != "2" {
		t.Errorf("without OnAuthFailure snmpEnableAuthenTraps = %q, want 2 (disabled)", out)
	}
}
