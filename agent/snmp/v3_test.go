//go:build integration && linux

package snmp

import (
	"strings"
	"testing"

	"github.com/diagagent/diagagent/mib"
)

func TestV3SecurityLevels(t *testing.T) {
	h := startHarness(t, nil)
	cases := []struct{ name, user, level, auth, priv string }{
		{"noAuthNoPriv", "noauth", "noAuthNoPriv", "", ""},
		{"authNoPriv SHA", "authsha", "authNoPriv", "SHA", ""},
		{"authPriv SHA AES", "privsha", "authPriv", "SHA", "AES"},
		{"authNoPriv SHA-224", "authsha224", "authNoPriv", "SHA-224", ""},
		{"authPriv SHA-384 AES", "authsha384", "authPriv", "SHA-384", "AES"},
		{"authPriv SHA-256 AES", "privsha256", "authPriv", "SHA-256", "AES"},
		{"authPriv SHA-512 AES-256", "privsha512", "authPriv", "SHA-512", "AES-256"},
		{"authPriv SHA AES-192 (Blumenthal key extension)", "aes192blumenthal", "authPriv", "SHA", "AES-192"},
		{"authPriv SHA AES-256-C (Reeder key extension)", "aes256reeder", "authPriv", "SHA", "AES-256-C"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := usmArgs(c.user, c.level, c.auth, c.priv)
			out := h.must(t, "snmpget", h.v3(o, mib.SysName0, mib.TreeCell(mib.ColNodeStatus, 3))...)
			assertLines(t, out, []string{
				`.1.3.6.1.2.1.1.5.0 = STRING: "node-under-test"`,
				`.1.3.6.1.4.1.200.1.1.1.3.3 = INTEGER: 2`,
			})
			walk := h.must(t, "snmpbulkwalk", h.v3(o, "-Cr5", mib.DiagTree)...)
			if n := len(strings.Split(walk, "\n")); n != 57 { // 3 nodes x 19 columns
				t.Errorf("bulkwalk of diagTree returned %d objects, want 57:\n%s", n, walk)
			}
		})
	}
}

func TestV3UnknownUserGetsReport(t *testing.T) {
	h := startHarness(t, nil)
	out, err := h.run(t, "snmpget", h.v3(usmArgs("nobody", "authPriv", "SHA", "AES"), mib.SysName0)...)
	if err == nil || !strings.Contains(out, "Unknown user name") {
		t.Fatalf("want an unknown user error, got err=%v:\n%s", err, out)
	}
	if got := h.r.Stats().UnknownUserNames; got != 1 {
		t.Errorf("usmStatsUnknownUserNames = %d, want 1", got)
	}
	out = h.must(t, "snmpget", h.v2(roCommunity, ".1.3.6.1.6.3.15.1.1.3.0")...)
	if out != ".1.3.6.1.6.3.15.1.1.3.0 = Counter32: 1" {
		t.Errorf("usmStatsUnknownUserNames over SNMP: %q", out)
	}
}

func TestV3WrongPassphraseIsAnAuthenticationFailure(t *testing.T) {
	h := startHarness(t, nil)
	o := []string{"-u", "authsha", "-l", "authNoPriv", "-a", "SHA", "-A", "not-the-passphrase"}
	out, err := h.run(t, "snmpget", h.v3(o, mib.SysName0)...)
	if err == nil || !strings.Contains(out, "Authentication failure") {
		t.Fatalf("want an authentication failure, got err=%v:\n%s", err, out)
	}
	if got := h.r.Stats().WrongDigests; got != 1 {
		t.Errorf("usmStatsWrongDigests = %d, want 1", got)
	}
}

func TestV3LevelAboveTheUsersIsUnsupported(t *testing.T) {
	h := startHarness(t, nil)
	out, err := h.run(t, "snmpget", h.v3(usmArgs("authsha", "authPriv", "SHA", "AES"), mib.SysName0)...)
	if err == nil || !strings.Contains(out, "Unsupported security level") {
		t.Fatalf("want an unsupported security level error, got err=%v:\n%s", err, out)
	}
	if got := h.r.Stats().UnsupportedSecLevels; got != 1 {
		t.Errorf("usmStatsUnsupportedSecLevels = %d, want 1", got)
	}
}

func TestV3LevelBelowTheUsersIsNotAuthorized(t *testing.T) {
	h := startHarness(t, nil)
	out, err := h.run(t, "snmpget", h.v3(usmArgs("privsha", "noAuthNoPriv", "", ""), mib.SysName0)...)
	if err == nil || !strings.Contains(out, "authorizationError") {
		t.Fatalf("want authorizationError, got err=%v:\n%s", err, out)
	}
}

func TestV3SetRights(t *testing.T) {
	rec := &nmsRecorder{}
	h := startHarness(t, func(c *Config) { c.OnSetNMS = rec.set })
	out := h.must(t, "snmpset", h.v3(usmArgs("privsha256", "authPriv", "SHA-256", "AES"), mib.NMSID0, "a", "127.0.0.77")...)
	if out != ".1.3.6.1.4.1.200.1.3.0 = IpAddress: 127.0.0.77" {
		t.Errorf("snmpset printed %q", out)
	}
	out, err := h.run(t, "snmpset", h.v3(usmArgs("authsha", "authNoPriv", "SHA", ""), mib.NMSID0, "a", "127.0.0.78")...)
	if err == nil || !strings.Contains(out, "noAccess") {
		t.Errorf("want noAccess for a read-only user, got err=%v:\n%s", err, out)
	}
	if got := rec.calls(); len(got) != 1 {
		t.Errorf("OnSetNMS calls = %v, want exactly the write user's", got)
	}
}

func TestV3TimeWindow(t *testing.T) {
	h := startHarness(t, nil)
	o := usmArgs("authsha", "authNoPriv", "SHA", "")
	// -Z gives the tool fixed engine boots and time; 1000 s is outside the window.
	out, err := h.run(t, "snmpget", h.v3(append(o, "-e", "0x800000c80474657374", "-Z", "1,1000"), mib.SysName0)...)
	if err != nil {
		t.Fatalf("snmpget after a notInTimeWindow report should resynchronize: %v\n%s", err, out)
	}
	if got := h.r.Stats().NotInTimeWindows; got != 1 {
		t.Errorf("usmStatsNotInTimeWindows = %d, want 1", got)
	}
}

func TestV3WrongPrivacyPassphraseIsADecryptionError(t *testing.T) {
	h := startHarness(t, nil)
	o := []string{"-u", "privsha", "-l", "authPriv", "-a", "SHA", "-A", authPass, "-x", "AES", "-X", "not-the-privpass"}
	out, err := h.run(t, "snmpget", h.v3(o, mib.SysName0)...)
	if err == nil {
		t.Fatalf("snmpget succeeded with the wrong privacy pass phrase:\n%s", out)
	}
	if s := h.r.Stats(); s.DecryptionErrors != 1 || s.OutGetResponses != 0 {
		t.Errorf("usmStatsDecryptionErrors = %d (want 1), responses = %d (want 0); tool said:\n%s",
			s.DecryptionErrors, s.OutGetResponses, out)
	}
	if got := h.r.Stats().UnknownEngineIDs; got != 1 {
		t.Errorf("usmStatsUnknownEngineIDs = %d, want 1 (the tool's discovery)", got)
	}
}

// TestV3LatchedBootsRefuseAuthenticatedRequests: with snmpEngineBoots latched
// at 2147483647 (it could not be saved, RFC 3414 2.2.2) no authenticated
// request is in the time window, even one that carries the latched boots;
// unauthenticated users and v2c are still served.
func TestV3LatchedBootsRefuseAuthenticatedRequests(t *testing.T) {
	h := startHarness(t, func(c *Config) { c.EngineBoots = LatchedBoots })
	for _, o := range [][]string{usmArgs("privsha", "authPriv", "SHA", "AES"),
		append(usmArgs("authsha", "authNoPriv", "SHA", ""), "-e", "0x800000c80474657374", "-Z", "2147483647,0")} {
		out, err := h.run(t, "snmpget", silent(h.v3(o, mib.SysName0))...)
		t.Logf("snmpget %v: %v: %s", o, err, out)
		if err == nil || strings.Contains(out, "node-under-test") {
			t.Fatalf("latched boots served an authenticated request:\n%s", out)
		}
	}
	if s := h.r.Stats(); s.NotInTimeWindows < 2 || s.OutGetResponses != 0 {
		t.Errorf("usmStatsNotInTimeWindows = %d (want 2 or more), responses = %d (want 0)", s.NotInTimeWindows, s.OutGetResponses)
	}
	h.must(t, "snmpget", h.v3(usmArgs("noauth", "noAuthNoPriv", "", ""), mib.SysName0)...)
	if out := h.must(t, "snmpget", h.v2(roCommunity, ".1.3.6.1.6.3.10.2.1.2.0")...); out != ".1.3.6.1.6.3.10.2.1.2.0 = INTEGER: 2147483647" {
		t.Errorf("snmpEngineBoots over v2c: %q", out)
	}
}
