// Package parts is where the configuration file's keys meet the agent's
// parts. Each part keeps its own defaults (daemon.Default, probe.Default,
// snmp.Default, traps.Default, nodelist.Default); Defaults gives each one
// under the key that sets it, for agent/config to fill what a file leaves
// out, and Kind and Scope turn the names the file writes into the parts'
// values. agent/config imports no part, so the parts and the file meet only
// here and in the program (cmd/diagagent), which builds each part's
// configuration from the file.
package parts

import (
	"slices"
	"strconv"

	"github.com/diagagent/diagagent/agent/daemon"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/agent/notify"
	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/agent/snmp"
	"github.com/diagagent/diagagent/traps"
)

// kinds are the names traps.kind may take, by the notifier's kind they stand for.
var kinds = map[string]traps.Kind{"trap": traps.TrapV2c, "inform": traps.InformV2c, "v3inform": traps.InformV3}

// scopes are the names traps.scope may take, by the daemon's scope.
var scopes = []string{notify.Owner: "owner", notify.Detected: "detected", notify.All: "all"}

// Kind returns the notifier's kind that traps.kind's name stands for
// (a v2c trap for a name it does not know; the file's check refuses those).
func Kind(name string) traps.Kind {
	if k, ok := kinds[name]; ok {
		return k
	}
	return traps.TrapV2c
}

// Scope returns the daemon's scope that traps.scope's name stands for
// (owner for a name it does not know; the file's check refuses those).
func Scope(name string) notify.Scope {
	return notify.Scope(max(slices.Index(scopes, name), 0))
}

// Defaults returns every key a part gives the default of, by its dotted
// name, with the part's own value.
func Defaults() map[string]any {
	d, p, r, t, l := daemon.Default(), probe.Default(), snmp.Default(), traps.Default(), nodelist.Default()
	plan := "full"
	if d.Rotate {
		plan = "rotate"
	}
	kind := ""
	for name, k := range kinds {
		if k == t.Kind {
			kind = name
		}
	}
	return map[string]any{
		"algorithm": d.Algorithm.String(),
		"interval":  d.Interval,

		"snmp.listen":           "0.0.0.0:" + strconv.Itoa(nodelist.DefaultPort),
		"snmp.communities.read": p.Community,
		"snmp.max_workers":      r.Workers,

		"test.plan":         plan,
		"test.timeout_min":  p.TimeoutMin,
		"test.timeout":      p.Timeout,
		"test.retries":      p.Retries,
		"test.ping_timeout": p.PingTimeout,
		"test.ping_count":   p.PingCount,
		"test.concurrency":  p.Concurrency,
		"test.vantage":      daemon.DefaultVantage,

		"traps.kind":             kind,
		"traps.scope":            scopes[d.Notify],
		"traps.community":        t.Community,
		"traps.timeout":          t.Timeout,
		"traps.retries":          t.MaxAttempts - 1,
		"traps.queue":            t.QueueSize,
		"traps.startup_grace":    d.StartupGrace,
		"traps.recovery_hold":    d.RecoveryHold,
		"traps.partial_hold":     d.PartialHold,
		"traps.flapping.high":    d.Flapping.High,
		"traps.flapping.low":     d.Flapping.Low,
		"traps.flapping.changes": d.Flapping.MinChanges,

		"state_dir":        d.StateDir,
		"resolve_interval": l.ResolveInterval,
	}
}
