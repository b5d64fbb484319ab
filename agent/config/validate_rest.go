package config

import (
	"fmt"
)

// validate checks the test keys; snmp gives the users test.v3_user may name.
func (t Test) validate(m *mistakes, snmp SNMP) {
	if !oneOf(t.Plan, PlanRotate, PlanFull) {
		m.add("test.plan", "%q is not a testing plan; use rotate or full", t.Plan)
	}
	positive(m, "test.timeout", t.Timeout)
	positive(m, "test.timeout_min", t.TimeoutMin)
	if t.TimeoutMin > t.Timeout && t.Timeout > 0 {
		m.add("test.timeout_min", "%s is above test.timeout %s; the floor of the wait must not exceed its ceiling", t.TimeoutMin, t.Timeout)
	}
	positive(m, "test.ping_timeout", t.PingTimeout)
	inRange(m, "test.retries", t.Retries, 0, 10)
	inRange(m, "test.ping_count", t.PingCount, 1, 100)
	inRange(m, "test.concurrency", t.Concurrency, 1, 1024)
	inRange(m, "test.vantage", t.Vantage, 0, 8)
	if _, ok := snmp.User(t.V3User); t.V3User != "" && !ok {
		m.add("test.v3_user", "%q is not in snmp.users; add that user there, or leave it empty to test with the read community", t.V3User)
	}
}

// validate checks the notification keys.
func (t Traps) validate(m *mistakes) {
	if !oneOf(t.Kind, KindTrap, KindInform, KindV3Inform) {
		m.add("traps.kind", "%q is not a notification kind; use trap, inform or v3inform", t.Kind)
	}
	if !oneOf(t.Scope, ScopeOwner, ScopeDetected, ScopeAll) {
		m.add("traps.scope", "%q is not a scope; use owner, detected or all", t.Scope)
	}
	switch {
	case t.NMS.Addr.Is6() && !t.NMS.Addr.Is4In6():
		m.add("traps.nms", "%s is an IPv6 station, which nmsID (an IpAddress) cannot carry; list it in traps.fallbacks "+
			"and leave traps.nms empty", t.NMS)
	case t.NMS.IsValid():
		validateStation(m, "traps.nms", t.NMS)
	}
	for i, s := range t.Fallbacks {
		validateStation(m, fmt.Sprintf("traps.fallbacks[%d]", i), s)
	}
	switch {
	case t.Kind == KindV3Inform && t.V3 == Credentials{}:
		m.add("traps.v3", "is empty while traps.kind is v3inform; give the station's user (name, auth_protocol, auth_passphrase, ...)")
	case t.Kind == KindV3Inform:
		validateUser(t.V3, m, "traps.v3")
	case t.Community == "":
		m.add("traps.community", "is empty; give the community the station accepts, such as public")
	}
	validateCommunity(m, "traps.community", t.Community)
	positive(m, "traps.timeout", t.Timeout)
	inRange(m, "traps.retries", t.Retries, 0, 10)
	inRange(m, "traps.queue", t.Queue, 1, 1<<16)
	if t.StartupGrace < 0 {
		m.add("traps.startup_grace", "%s is negative; write a duration such as 30s, or 0s to notify at once", t.StartupGrace)
	}
	if t.RecoveryHold < 0 {
		m.add("traps.recovery_hold", "%s is negative; write a duration such as 10s, or 0s to notify repairs at once", t.RecoveryHold)
	}
	if t.PartialHold < 0 {
		m.add("traps.partial_hold", "%s is negative; write a duration such as 5s, or 0s to notify partial verdicts at once", t.PartialHold)
	}
	f := t.Flapping
	switch {
	case f.High <= 0 || f.High > 100:
		m.add("traps.flapping.high", "%g is not a percent above 0; Nagios's default is 20", f.High)
	case f.Low <= 0 || f.Low >= f.High:
		m.add("traps.flapping.low", "%g must be above 0 and below traps.flapping.high (%g); Nagios's default is 5", f.Low, f.High)
	}
	inRange(m, "traps.flapping.changes", f.Changes, 2, 20)
}

// validateStation checks a station: a host name or a host's address, and a
// non-zero port.
func validateStation(m *mistakes, key string, s Station) {
	if (s.Host == "" && (!isHost(s.Addr) || s.Addr.Is4In6())) || s.Port == 0 {
		m.add(key, "%s is not a station address; write it as a.b.c.d or a.b.c.d:port, such as 192.0.2.100 or 192.0.2.100:1162 "+
			"(an IPv6 one as 2001:db8::100 or [2001:db8::100]:162)", s)
	}
}

// validate checks the log keys.
func (l Log) validate(m *mistakes) {
	if !oneOf(l.Level, "debug", "info", "warn", "error") {
		m.add("log.level", "%q is not a level; use debug, info, warn or error", l.Level)
	}
	if !oneOf(l.Format, "text", "json") {
		m.add("log.format", "%q is not a format; use text or json", l.Format)
	}
}

// positive checks that a duration is above zero.
func positive[D ~int64](m *mistakes, key string, d D) {
	if d <= 0 {
		m.add(key, "%v is not a positive duration; write one such as 1s", d)
	}
}

// inRange checks that n lies in lo..hi.
func inRange(m *mistakes, key string, n, lo, hi int) {
	if n < lo || n > hi {
		m.add(key, "%d is out of range; use %d..%d", n, lo, hi)
	}
}
