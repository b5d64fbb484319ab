package config

import (
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/diagagent/diagagent/agent/daemon"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/agent/snmp"
	"github.com/diagagent/diagagent/traps"
)

// AutoID as Config.ID means: find this node's id by matching a local address.
const AutoID = -1

// ListenAuto as SNMP.Listen means: serve on this node's own address and port from Nodes;
// as the host of Web.Listen ("auto:8161") it means this node's address.
const ListenAuto = "auto"

// The diagnosis algorithms Config.Algorithm may name.
const (
	AlgorithmHiADSD     = "hiadsd"
	AlgorithmVCube      = "vcube"
	AlgorithmVRing      = "vring"
	AlgorithmBruteForce = "bruteforce"
)

// The testing plans Test.Plan may name (hiadsd.Config.Rotate).
const (
	PlanRotate = "rotate"
	PlanFull   = "full"
)

// The notification kinds Traps.Kind may name.
const (
	KindTrap     = "trap"
	KindInform   = "inform"
	KindV3Inform = "v3inform"
)

// kinds are the notifier's kinds the names of Traps.Kind stand for.
var kinds = map[string]traps.Kind{KindTrap: traps.TrapV2c, KindInform: traps.InformV2c, KindV3Inform: traps.InformV3}

// NotifierKind returns the notifier's kind the name of Traps.Kind stands for.
func (t Traps) NotifierKind() traps.Kind { return kinds[t.Kind] }

// kindName returns the name of the notifier's kind k, "" if the file has none.
func kindName(k traps.Kind) string {
	for name, kind := range kinds {
		if kind == k {
			return name
		}
	}
	return ""
}

// The notification scopes Traps.Scope may name, in the order of
// daemon.Scope.
const (
	ScopeOwner    = "owner"
	ScopeDetected = "detected"
	ScopeAll      = "all"
)

// scopes are the names of daemon.Scope's values, by value.
var scopes = []string{daemon.NotifyOwner: ScopeOwner, daemon.NotifyDetected: ScopeDetected, daemon.NotifyAll: ScopeAll}

// ScopeOf returns the daemon's scope that name names; the names are
// checked by Load.
func ScopeOf(name string) daemon.Scope {
	return daemon.Scope(max(slices.Index(scopes, name), 0))
}

// The access rights User.Access may name.
const (
	AccessRead  = "read"
	AccessWrite = "write"
)

// The modes SNMP.Mode may name.
const (
	ModeStandalone = "standalone"
	ModeAgentX     = "agentx"
)

// DefaultPort is the UDP port of a node whose entry gives none (the node list's).
const DefaultPort = nodelist.DefaultPort

// TrapPort is the UDP port of a station given without one (the notifier's, snmptrapd's).
const TrapPort = traps.DefaultPort

// SysUpTimeOID is the object a tested-only node is tested with unless its entry names another (the prober's).
const SysUpTimeOID = probe.DefaultOID

// Default returns the configuration every key falls back to; it has no
// nodes, so it does not validate. Each default is the part's own: the
// daemon's, the prober's, the responder's, the notifier's and the node
// list's, so a part and the file cannot disagree.
func Default() Config {
	d, p, r, t, l := daemon.Default(), probe.Default(), snmp.Default(), traps.Default(), nodelist.Default()
	plan := PlanFull
	if d.Rotate {
		plan = PlanRotate
	}
	return Config{
		ID:        AutoID,
		Algorithm: d.Algorithm.String(),
		Interval:  d.Interval,
		SNMP: SNMP{
			Mode:        ModeStandalone,
			AgentX:      "unix:/var/agentx/master",
			Listen:      "0.0.0.0:" + strconv.Itoa(DefaultPort),
			Communities: Communities{Read: p.Community},
			Allow:       Allow{Read: everywhere(), Write: everywhere()},
			MaxWorkers:  r.Workers,
		},
		Test: Test{
			Plan:        plan,
			TimeoutMin:  p.TimeoutMin,
			Timeout:     p.Timeout,
			Retries:     p.Retries,
			PingTimeout: p.PingTimeout,
			PingCount:   p.PingCount,
			Concurrency: p.Concurrency,
			Vantage:     daemon.DefaultVantage,
		},
		Traps: Traps{
			Kind:         kindName(t.Kind),
			Scope:        scopes[d.Notify],
			Community:    t.Community,
			Timeout:      t.Timeout,
			Retries:      t.MaxAttempts - 1,
			Queue:        t.QueueSize,
			StartupGrace: d.StartupGrace,
			RecoveryHold: d.RecoveryHold,
			PartialHold:  d.PartialHold,
			GroupWindow:  -time.Second,
			Flapping:     Flapping{High: d.Flapping.High, Low: d.Flapping.Low, Changes: d.Flapping.MinChanges},
		},
		Web:             Web{Listen: "127.0.0.1:8161"},
		StateDir:        d.StateDir,
		ResolveInterval: l.ResolveInterval,
		Log:             Log{Level: "info", Format: "text"},
	}
}

// everywhere is the allow list that accepts every IPv4 source.
func everywhere() []netip.Prefix {
	return []netip.Prefix{netip.PrefixFrom(netip.IPv4Unspecified(), 0), netip.PrefixFrom(netip.IPv6Unspecified(), 0)}
}

// AgentsV3 reports whether agents speak SNMPv3 to each other: as the
// keyring's users, or as test.v3_user.
func (c Config) AgentsV3() bool { return c.Keyring != "" || c.Test.V3User != "" }

// StateDirFor returns StateDir with every "{id}" replaced by id, so that agents sharing
// one file and one host keep their state apart.
func (c Config) StateDirFor(id int) string {
	return strings.ReplaceAll(c.StateDir, "{id}", strconv.Itoa(id))
}
