package config

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"

	"github.com/diagagent/diagagent/mib"
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

// The notification kinds Traps.Kind may name (agent/parts.Kind gives the
// notifier's).
const (
	KindTrap     = "trap"
	KindInform   = "inform"
	KindV3Inform = "v3inform"
)

// The notification scopes Traps.Scope may name (agent/parts.Scope gives
// the daemon's).
const (
	ScopeOwner    = "owner"
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

// DefaultPort is the UDP port of a node whose entry gives none: SNMP's.
const DefaultPort = mib.AgentPort

// TrapPort is the UDP port of a station given without one: SNMP's notification port.
const TrapPort = mib.NotificationPort

// SysUpTimeOID is the object a tested-only node is tested with unless its entry names another.
const SysUpTimeOID = mib.SysUpTime0

// Defaults are the defaults of the keys the agent's parts own, by the
// key's dotted name ("test.timeout"), with a value of the key's type or
// its text. Each part keeps its own, and the program assembles them
// (agent/parts.Defaults), so this package imports no part.
type Defaults map[string]any

// Default returns the configuration every key falls back to: parts over
// the keys this package owns (id, snmp.mode, snmp.agentx, snmp.allow,
// traps.group_window, web.listen and log). It has no nodes, so it does
// not validate. A key parts names that is not a key, or a value of the
// wrong type, is a mistake of the program and panics.
func Default(parts Defaults) Config {
	c := Config{
		ID: AutoID,
		SNMP: SNMP{
			Mode:   ModeStandalone,
			AgentX: "unix:/var/agentx/master",
			Listen: "0.0.0.0:" + strconv.Itoa(DefaultPort),
			Allow:  Allow{Read: everywhere(), Write: everywhere()},
		},
		Traps: Traps{GroupWindow: -time.Second},
		Web:   Web{Listen: "127.0.0.1:8161"},
		Log:   Log{Level: "info", Format: "text"},
	}
	settings := map[string]any{}
	for k, v := range parts {
		setPath(settings, k, v)
	}
	dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{
		ErrorUnused: true, WeaklyTypedInput: true, Result: &c,
		DecodeHook: mapstructure.DecodeHookFuncType(decodeHook),
	})
	if err == nil {
		err = dec.Decode(settings)
	}
	if err != nil {
		panic(fmt.Sprintf("config: the parts' defaults do not fit the keys: %v", err))
	}
	return c
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
