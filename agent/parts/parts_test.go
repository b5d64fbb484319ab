package parts

import (
	"testing"

	"github.com/diagagent/diagagent/agent/config"
	"github.com/diagagent/diagagent/agent/daemon"
	"github.com/diagagent/diagagent/agent/notify"
	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/agent/snmp"
	"github.com/diagagent/diagagent/traps"
)

// TestDefaultsAreTheParts: the file's defaults are the parts' own, each
// under its key, and every key named is one of the file's (Default panics
// otherwise).
func TestDefaultsAreTheParts(t *testing.T) {
	c := config.Default(Defaults())
	d, p, r, n := daemon.Default(), probe.Default(), snmp.Default(), traps.Default()
	checks := []struct {
		key       string
		got, want any
	}{
		{"algorithm", c.Algorithm, d.Algorithm.String()},
		{"interval", c.Interval, d.Interval},
		{"snmp.max_workers", c.SNMP.MaxWorkers, r.Workers},
		{"snmp.communities.read", c.SNMP.Communities.Read, p.Community},
		{"test.timeout", c.Test.Timeout, p.Timeout},
		{"test.timeout_min", c.Test.TimeoutMin, p.TimeoutMin},
		{"test.retries", c.Test.Retries, p.Retries},
		{"test.ping_timeout", c.Test.PingTimeout, p.PingTimeout},
		{"test.ping_count", c.Test.PingCount, p.PingCount},
		{"test.concurrency", c.Test.Concurrency, p.Concurrency},
		{"test.vantage", c.Test.Vantage, daemon.DefaultVantage},
		{"traps.kind", Kind(c.Traps.Kind), n.Kind},
		{"traps.scope", Scope(c.Traps.Scope), d.Notify},
		{"traps.community", c.Traps.Community, n.Community},
		{"traps.retries", c.Traps.Retries + 1, n.MaxAttempts},
		{"traps.queue", c.Traps.Queue, n.QueueSize},
		{"traps.timeout", c.Traps.Timeout, n.Timeout},
		{"traps.recovery_hold", c.Traps.RecoveryHold, d.RecoveryHold},
		{"traps.partial_hold", c.Traps.PartialHold, d.PartialHold},
		{"traps.flapping.changes", c.Traps.Flapping.Changes, d.Flapping.MinChanges},
		{"state_dir", c.StateDir, d.StateDir},
	}
	for _, k := range checks {
		if k.got != k.want {
			t.Errorf("%s defaults to %v, the part's is %v", k.key, k.got, k.want)
		}
	}
	if (c.Test.Plan == config.PlanRotate) != d.Rotate {
		t.Errorf("test.plan %q, the daemon rotates: %v", c.Test.Plan, d.Rotate)
	}
	if c.SNMP.Mode != config.ModeStandalone || c.ID != config.AutoID {
		t.Errorf("the file's own defaults are lost under the parts': mode %q, id %d", c.SNMP.Mode, c.ID)
	}
}

// TestNamesAreTheFiles: every kind and scope the file accepts stands for a
// value of its own, and the defaults name one of them.
func TestNamesAreTheFiles(t *testing.T) {
	kindsSeen := map[traps.Kind]string{}
	for _, name := range []string{config.KindTrap, config.KindInform, config.KindV3Inform} {
		if _, ok := kinds[name]; !ok {
			t.Errorf("traps.kind %q stands for no notifier kind", name)
		}
		if other, ok := kindsSeen[Kind(name)]; ok {
			t.Errorf("traps.kind %q and %q stand for one kind", name, other)
		}
		kindsSeen[Kind(name)] = name
	}
	if len(kinds) != len(kindsSeen) {
		t.Errorf("%d kinds, the file accepts %d", len(kinds), len(kindsSeen))
	}
	want := []string{config.ScopeOwner, config.ScopeDetected, config.ScopeAll}
	for i, name := range want {
		if scopes[i] != name || Scope(name) != notify.Scope(i) {
			t.Errorf("traps.scope %q is the daemon's scope %d, want %d (%q)", name, Scope(name), i, scopes[i])
		}
	}
}
