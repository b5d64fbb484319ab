package config

import (
	"net/netip"
	"strconv"
	"strings"
	"time"
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

// The notification scopes Traps.Scope may name.
const (
	ScopeDetected = "detected"
	ScopeAll      = "all"
)

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

// DefaultPort is the UDP port of a node whose entry gives none.
const DefaultPort = 161

// TrapPort is the UDP port of a station given without one (snmptrapd's).
const TrapPort = 162

// SysUpTimeOID is the object a tested-only node is tested with unless its entry names another.
const SysUpTimeOID = ".1.3.6.1.2.1.1.3.0"

// Default returns the configuration every key falls back to; it has no nodes, so it does not validate.
func Default() Config {
	return Config{
		ID:        AutoID,
		Algorithm: AlgorithmVCube,
		Interval:  2 * time.Second,
		SNMP: SNMP{
			Mode:        ModeStandalone,
			AgentX:      "unix:/var/agentx/master",
			Listen:      "0.0.0.0:" + strconv.Itoa(DefaultPort),
			Communities: Communities{Read: "public"},
			Allow:       Allow{Read: everywhere(), Write: everywhere()},
			MaxWorkers:  4,
		},
		Test: Test{
			Plan:        PlanRotate,
			TimeoutMin:  50 * time.Millisecond,
			Timeout:     time.Second,
			Retries:     3,
			PingTimeout: 2 * time.Second,
			PingCount:   2,
			Concurrency: 8,
		},
		Traps: Traps{
			Kind:         KindTrap,
			Scope:        ScopeDetected,
			Community:    "public",
			Timeout:      5 * time.Second,
			Retries:      3,
			Queue:        256,
			StartupGrace: 30 * time.Second,
		},
		Web:             Web{Listen: "127.0.0.1:8161"},
		StateDir:        "/var/lib/diagagent",
		ResolveInterval: 5 * time.Minute,
		Log:             Log{Level: "info", Format: "text"},
	}
}

// everywhere is the allow list that accepts every IPv4 source.
func everywhere() []netip.Prefix {
	return []netip.Prefix{netip.PrefixFrom(netip.IPv4Unspecified(), 0), netip.PrefixFrom(netip.IPv6Unspecified(), 0)}
}

// StateDirFor returns StateDir with every "{id}" replaced by id, so that agents sharing
// one file and one host keep their state apart.
func (c Config) StateDirFor(id int) string {
	return strings.ReplaceAll(c.StateDir, "{id}", strconv.Itoa(id))
}
