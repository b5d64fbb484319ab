package config

import (
	"net/netip"
	"time"
)

// Config is the whole configuration of one diagagent daemon; every node of a LAN
// normally reads the same file, and only the node's id differs.
type Config struct {
	// ID is this node's index in Nodes; AutoID finds it by matching a local address.
	ID int `mapstructure:"id" doc:"this node's index in nodes (0-based); -1 finds it by matching a local address"`
	// Algorithm names the diagnosis algorithm (one of the Algorithm* constants).
	Algorithm string `mapstructure:"algorithm" doc:"diagnosis algorithm: hiadsd, vcube, vring or bruteforce"`
	// Interval is the testing interval: how often this node runs its tests.
	Interval time.Duration `mapstructure:"interval" doc:"testing interval (a Go duration such as 30s or 1m)"`
	// SNMP configures the node's own SNMP responder and who may use it.
	SNMP SNMP `mapstructure:"snmp"`
	// Nodes is the node list shared by every node; a node's id is its index here.
	Nodes []Node `mapstructure:"nodes" doc:"the node list, the same on every node (file only)"`
	// Test configures how this node tests its peers.
	Test Test `mapstructure:"test"`
	// Traps configures the notifications sent to the management station.
	Traps Traps `mapstructure:"traps"`
	// Web configures the status page and its /metrics.
	Web Web `mapstructure:"web"`
	// StateDir holds what survives a restart; "{id}" in it is replaced by the node's id.
	StateDir string `mapstructure:"state_dir" doc:"directory for state that survives a restart; {id} is replaced by the node's id"`
	// FaultInjection enables the MIB object that silences the agent for a while.
	FaultInjection bool `mapstructure:"fault_injection" doc:"enable the fault-injection object (SET through a write community or user)"`
	// Log configures the daemon's log lines.
	Log Log `mapstructure:"log"`
	// Keyring is the file of cluster keys; empty when agents speak with
	// communities or test.v3_user.
	Keyring string `mapstructure:"keyring" doc:"file of cluster keys, one per line (diagagent keygen), mode 0600, the same on every agent: agents test, read and push each other as SNMPv3 users derived from them (authPriv, SHA-256, AES), and only they may push; the first key sends, all are accepted. A relative path is taken from the configuration file's directory. Empty: agents use the communities or test.v3_user"`
	// ResolveInterval is how often nodes given by host name are resolved again; 0 never.
	ResolveInterval time.Duration `mapstructure:"resolve_interval" doc:"how often nodes given by host name are resolved again (a change is logged and followed); 0s: only at start"`
}

// SNMP configures the agent's SNMP responder.
type SNMP struct {
	// Mode is ModeStandalone (serve Listen) or ModeAgentX (through the host's snmpd).
	Mode string `mapstructure:"mode" doc:"standalone: serve snmp.listen; agentx: serve the DIAGNOSIS-MIB through the host's snmpd (master agentx) at snmp.agentx"`
	// AgentX is the master's socket: "unix:PATH" or "tcp:HOST:PORT", as snmpd.conf's agentXSocket.
	AgentX string `mapstructure:"agentx" doc:"the AgentX master's socket, unix:PATH or tcp:HOST:PORT (snmpd.conf's agentXSocket)"`
	// Listen is the UDP address served: "a.b.c.d:port", or ListenAuto for this node's entry in Nodes.
	Listen string `mapstructure:"listen" doc:"UDP address to serve, a.b.c.d:port, or auto for this node's address and port in nodes"`
	// Communities are the SNMPv2c community strings.
	Communities Communities `mapstructure:"communities"`
	// Allow lists the source networks each community is accepted from.
	Allow Allow `mapstructure:"allow"`
	// Users are the SNMPv3 users the responder serves.
	Users []User `mapstructure:"users" doc:"SNMPv3 users served (file only): name, auth_protocol, auth_passphrase, priv_protocol, priv_passphrase, access"`
	// EngineID is snmpEngineID in hex (5 to 32 octets); empty lets the agent choose one.
	EngineID string `mapstructure:"engine_id" doc:"snmpEngineID in hex, 5 to 32 octets; empty lets the agent choose"`
	// MaxWorkers bounds how many requests the responder handles at once.
	MaxWorkers int `mapstructure:"max_workers" doc:"requests the responder handles at once"`
	// Contact is sysContact.0, as snmpd.conf's syscontact.
	Contact string `mapstructure:"sys_contact" doc:"sysContact.0: who looks after this host (as snmpd.conf's syscontact)"`
	// Location is sysLocation.0, as snmpd.conf's syslocation.
	Location string `mapstructure:"sys_location" doc:"sysLocation.0: where this host is (as snmpd.conf's syslocation)"`
}

// Communities are the SNMPv2c community strings; an empty string disables that access.
type Communities struct {
	// Read is the read-only community; tests of peers use it unless test.v3_user is set.
	Read string `mapstructure:"read" doc:"read-only community; which also tests peers unless test.v3_user is set"`
	// Write is the read-write community (NMSid, fault injection); empty disables SNMPv2c writes.
	Write string `mapstructure:"write" doc:"read-write community (NMSid, fault injection); empty disables v2c writes"`
}

// Allow lists the source networks a community is accepted from.
type Allow struct {
	// Read lists the networks the read community is accepted from.
	Read []netip.Prefix `mapstructure:"read" doc:"networks (a.b.c.d/n or 2001:db8::/32) the read community is accepted from"`
	// Write lists the networks the write community is accepted from.
	Write []netip.Prefix `mapstructure:"write" doc:"networks (a.b.c.d/n or 2001:db8::/32) the write community is accepted from"`
}

// Credentials are one SNMPv3 (USM) user as the file gives it. Its fields
// are usm.User's, so the program converts it (usm.User(c)) into the one
// type of a user everywhere, without this package importing it.
type Credentials struct {
	// Name is the USM user name.
	Name string `mapstructure:"name" doc:"USM user name"`
	// AuthProtocol is sha, sha224, sha256, sha384 or sha512.
	AuthProtocol string `mapstructure:"auth_protocol" doc:"authentication protocol: sha, sha224, sha256, sha384 or sha512"`
	// AuthPassphrase is the authentication pass phrase (8 characters at least).
	AuthPassphrase string `mapstructure:"auth_passphrase" doc:"authentication pass phrase, 8 characters at least"`
	// PrivProtocol is none, aes, aes192, aes256, aes192c or aes256c.
	PrivProtocol string `mapstructure:"priv_protocol" doc:"privacy protocol: none, aes, aes192, aes256 (Blumenthal keys), aes192c or aes256c (Reeder keys)"`
	// PrivPassphrase is the privacy pass phrase (8 characters at least unless PrivProtocol is none).
	PrivPassphrase string `mapstructure:"priv_passphrase" doc:"privacy pass phrase, 8 characters at least; empty when priv_protocol is none"`
}

// User is an SNMPv3 user served by the responder, with its access.
type User struct {
	// Credentials are the user's name, protocols and pass phrases.
	Credentials `mapstructure:",squash"`
	// Access is AccessRead or AccessWrite.
	Access string `mapstructure:"access" doc:"read or write"`
}

// Node is one entry of the shared node list.
type Node struct {
	// Address is the node's IPv4 or IPv6 address; with Host, the one Host resolved to.
	Address netip.Addr `mapstructure:"address" doc:"IPv4 or IPv6 address (or give host instead)"`
	// Host is the node's host name, resolved at start and every resolve_interval.
	Host string `mapstructure:"host" doc:"host name instead of address: resolved at start (IPv4 first) and again every resolve_interval"`
	// Port is the UDP port the node's SNMP agent answers on.
	Port int `mapstructure:"port" doc:"UDP port of the node's SNMP agent (default 161)"`
	// TestedOnly marks a device that runs no agent (a printer): tested, never a tester or a source.
	TestedOnly bool `mapstructure:"tested_only" doc:"the node runs no agent (a printer): it is tested but never tests or informs"`
	// Community is the community this node is tested with (SNMPv2c).
	Community string `mapstructure:"community" doc:"community the node is tested with (default snmp.communities.read; agents get none when test.v3_user is set, as they are tested with SNMPv3)"`
	// OID is the object a tested-only node is tested with.
	OID string `mapstructure:"oid" doc:"object read to test a tested-only node (default sysUpTime.0, .1.3.6.1.2.1.1.3.0); only for tested_only"`
	// Name is an optional label for logs and the web page.
	Name string `mapstructure:"name" doc:"label for logs and the web page"`
}

// Test configures how this node tests its peers.
type Test struct {
	// Plan is PlanRotate or PlanFull: which of vCube's tests run in an interval.
	Plan string `mapstructure:"plan" doc:"vcube's testing plan: rotate (each node is tested by one tester an interval, the clusters taken in turn by the clock, so agents' clocks should agree within a fraction of the interval) or full (by all its log2 N testers every interval)"`
	// TimeoutMin and Timeout are the floor and ceiling of the wait for each
	// SNMP reply of a test, which is SRTT + 4·RTTVAR of the peer's measured
	// round trips in between (the ceiling before any); a faulty or partial
	// verdict is re-tested at once waiting the ceiling before it is announced.
	TimeoutMin time.Duration `mapstructure:"timeout_min" doc:"floor of the wait for each SNMP reply of a test, which follows the peer's measured round trip (SRTT + 4·RTTVAR)"`
	Timeout    time.Duration `mapstructure:"timeout" doc:"ceiling of the wait for each SNMP reply of a test; the wait of each of the two requests of a re-test (a faulty or partial verdict is tested again at once before it is announced), of a fetch and of a push"`
	// Retries is how many times an unanswered SNMP request is sent again.
	Retries int `mapstructure:"retries" doc:"times an unanswered SNMP request of a first test is sent again"`
	// PingTimeout bounds the whole ICMP echo check that tells partial from faulty.
	PingTimeout time.Duration `mapstructure:"ping_timeout" doc:"time allowed for the ICMP echo check (partial or faulty) of a re-test; a first test allows it one round-trip wait past its last request"`
	// PingCount is how many echo requests the check sends; one reply is enough.
	PingCount int `mapstructure:"ping_count" doc:"echo requests sent; one reply makes the node partial"`
	// Concurrency bounds how many tests run at once.
	Concurrency int `mapstructure:"concurrency" doc:"tests run at once, each with its own socket"`
	// Vantage is how many other agents confirm a new failure (daemon.Config.Vantage).
	Vantage int `mapstructure:"vantage" doc:"other agents asked to test a node this agent's test finds newly faulty or partial, while it re-tests it; the verdict is believed only if none of them reaches the node and one finds it down too (a flaky member's word is not spread). Needs pushes (the cluster key or a write community); 0 believes every test, and the agent keeps no health window: it never doubts its own tests"`
	// V3User names the entry of snmp.users that tests peers; empty tests with SNMPv2c.
	V3User string `mapstructure:"v3_user" doc:"name of an snmp.users entry to test peers with SNMPv3; empty tests with the read community"`
}

// Traps configures the notifications sent to the management station.
type Traps struct {
	// NMS is the initial station; the zero value means none until NMSid is set.
	NMS Station `mapstructure:"nms" doc:"initial station: a.b.c.d or a host name (resolved at start to its IPv4 address), with :port (162 unless given); empty for none until NMSid is set"`
	// Fallbacks are tried in order while the current station is diagnosed faulty or leaves
	// informs unanswered (it need not be a node).
	Fallbacks []Station `mapstructure:"fallbacks" doc:"stations (IPv4, [IPv6] or host name, with :port, 162 unless given) used in order while the current one is diagnosed faulty or leaves informs unanswered"`
	// Kind is KindTrap, KindInform or KindV3Inform.
	Kind string `mapstructure:"kind" doc:"trap, inform or v3inform"`
	// Scope is ScopeOwner (one agent notifies each event: the node's owner),
	// ScopeDetected (events this node detected) or ScopeAll (every event it learns).
	Scope string `mapstructure:"scope" doc:"owner (one agent notifies each event, whoever found it: the fault-free agent of the lowest id), detected (events this node found itself) or all (every event it learns)"`
	// Community is the community of SNMPv2c traps and informs.
	Community string `mapstructure:"community" doc:"community of v2c traps and informs"`
	// V3 are the station's USM credentials for v3 informs.
	V3 Credentials `mapstructure:"v3"`
	// Timeout bounds the wait for an inform's acknowledgement.
	Timeout time.Duration `mapstructure:"timeout" doc:"wait for an inform's acknowledgement"`
	// Retries is how many times an unacknowledged inform is sent again.
	Retries int `mapstructure:"retries" doc:"times an unacknowledged inform is sent again"`
	// Queue bounds the informs waiting to be sent; the oldest is dropped when full.
	Queue int `mapstructure:"queue" doc:"informs waiting to be sent; the oldest is dropped when full"`
	// StartupGrace holds back, for this long after start, a first verdict
	// about a node this agent has never seen up; 0 notifies at once.
	StartupGrace time.Duration `mapstructure:"startup_grace" doc:"after start, a first faulty or partial verdict about a node never seen up is notified only if it still holds after this long (agents started moments apart would report each other); 0s notifies at once"`
	// RecoveryHold holds the notification of a repair until it has held
	// this long; 0 notifies it at once.
	RecoveryHold time.Duration `mapstructure:"recovery_hold" doc:"a node fault-free again is notified once it has stayed so this long, as Prometheus's keep_firing_for; a repair that does not hold, and the fault that follows it, are not notified (a starved member answering now and then); 0s notifies at once"`
	// PartialHold holds the notification that a node is partial until it
	// has held this long; 0 notifies it at once.
	PartialHold time.Duration `mapstructure:"partial_hold" doc:"a node found partial (its host answers ping, its agent does not answer) is notified once it has stayed so this long, as a Prometheus alert waits out its for: clause; a partial that clears sooner (a starved or briefly stopped member) is not notified; faulty is notified at once; 0s notifies at once"`
	// GroupWindow is how long after a node's fault another node's fault
	// joins it in one notification; negative is one testing interval and
	// one test's budget, 0 notifies each node on its own.
	GroupWindow time.Duration `mapstructure:"group_window" doc:"nodes that become faulty or partial within this long of the first are one notification (diagCauseChange), and so is their return, which says whether they were down or cut off; the agent that sends them asks the other nodes once and sends as soon as every silent one is among them, waiting four windows at most; -1s (the default) is one testing interval and one test's budget; 0s notifies each node on its own"`
	// AuthFailure sends authenticationFailure for requests that fail authentication.
	AuthFailure bool `mapstructure:"auth_failure" doc:"send authenticationFailure when a request fails authentication, at most one a second (snmpd.conf's authtrapenable)"`
	// Flapping holds when a node's changes are notified as flapping instead.
	Flapping Flapping `mapstructure:"flapping"`
}

// Flapping holds the thresholds of Nagios's weighted percent state change,
// over the last 21 statuses the view held of a node (agent/flap).
type Flapping struct {
	High    float64 `mapstructure:"high" doc:"a node starts flapping when its weighted percent of state change over the view's last 21 samples rises above this (Nagios's high_host_flap_threshold)"`
	Low     float64 `mapstructure:"low" doc:"a flapping node stops flapping when its percent falls below this (Nagios's low_host_flap_threshold)"`
	Changes int     `mapstructure:"changes" doc:"changes a node must also make within the 21 samples to start flapping (6: three times down and up)"`
}

// Web configures the HTTP status page.
type Web struct {
	// Listen is "a.b.c.d:port", "auto:port" for this node's address, or empty to serve no page.
	Listen string `mapstructure:"listen" doc:"HTTP address, a.b.c.d:port or auto:port (this node's address); empty serves no page"`
}

// Log configures the daemon's log lines.
type Log struct {
	// Level is debug, info, warn or error.
	Level string `mapstructure:"level" doc:"debug, info, warn or error"`
	// Format is text or json.
	Format string `mapstructure:"format" doc:"text or json"`
}
