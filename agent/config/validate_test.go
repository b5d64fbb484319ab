package config

import (
	"errors"
	"flag"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/diagagent/diagagent/agent/parts"
)

// minimal is the smallest valid file; cases add one mistake to it.
const minimal = "nodes: [{address: 192.0.2.1}, {address: 192.0.2.2}]\n"

// user is a valid snmp.users entry for cases that need one.
const user = "{name: mon, auth_protocol: sha256, auth_passphrase: 12345678, priv_protocol: aes, priv_passphrase: 87654321, access: read}"

// mistakeCase is one configuration with exactly one mistake.
type mistakeCase struct {
	name  string
	yaml  string
	env   []string
	flags []string
	key   string // the key the one error line must name
	want  error  // the sentinel it must wrap
	hint  string // part of what to change
}

// mistakeCases lists one case per kind of mistake.
func mistakeCases() []mistakeCase {
	return []mistakeCase{
		{name: "no nodes", yaml: "interval: 30s\n", key: "nodes", want: ErrBadValue, hint: "list every node"},
		{name: "empty node list", yaml: "nodes: []\n", key: "nodes", want: ErrBadValue, hint: "list every node"},
		{name: "duplicate address", yaml: "nodes: [{address: 192.0.2.1}, {address: 192.0.2.1, port: 161}]\n", key: "nodes[1]", want: ErrBadValue, hint: "repeats nodes[0]"},
		{name: "id out of range", yaml: minimal + "id: 2\n", key: "id", want: ErrBadValue, hint: "use 0..1"},
		{name: "id below -1", yaml: minimal + "id: -2\n", key: "id", want: ErrBadValue, hint: "use 0..1"},
		{name: "id not a number", yaml: minimal + "id: two\n", key: "id", want: ErrBadValue, hint: "digits"},
		{name: "id is tested-only", yaml: "id: 1\nnodes: [{address: 192.0.2.1}, {address: 192.0.2.50, tested_only: true}]\n", key: "id", want: ErrBadValue, hint: "without tested_only"},
		{name: "bad duration", yaml: minimal + "interval: 30 seconds\n", key: "interval", want: ErrBadValue, hint: "such as 30s"},
		{name: "duration without unit", yaml: minimal + "interval: 30\n", key: "interval", want: ErrBadValue, hint: "no unit"},
		{name: "negative duration", yaml: minimal + "interval: -5s\n", key: "interval", want: ErrBadValue, hint: "positive"},
		{name: "bad test timeout", yaml: minimal + "test: {timeout: 1x}\n", key: "test.timeout", want: ErrBadValue, hint: "such as 30s"},
		{name: "unknown algorithm", yaml: minimal + "algorithm: paxos\n", key: "algorithm", want: ErrBadValue, hint: "hiadsd, vcube, vring or bruteforce"},
		{name: "unknown top key", yaml: minimal + "intervall: 30s\n", key: "intervall", want: ErrUnknownKey, hint: "did you mean interval?"},
		{name: "unknown nested key", yaml: minimal + "snmp: {lisen: 0.0.0.0:161}\n", key: "snmp.lisen", want: ErrUnknownKey, hint: "did you mean listen?"},
		{name: "unknown key in node", yaml: "nodes: [{address: 192.0.2.1}, {address: 192.0.2.2}, {adress: 192.0.2.3}]\n", key: "nodes[2].adress", want: ErrUnknownKey, hint: "did you mean address?"},
		{name: "unknown key in user", yaml: minimal + "snmp: {users: [{name: a, acces: read}]}\n", key: "snmp.users[0].acces", want: ErrUnknownKey, hint: "did you mean access?"},
		{name: "unknown key far from any", yaml: minimal + "log: {colour: red}\n", key: "log.colour", want: ErrUnknownKey, hint: "valid keys here: level, format"},
		{name: "map where a value goes", yaml: minimal + "interval: {s: 30}\n", key: "interval", want: ErrBadValue, hint: "a map is not allowed"},
		{name: "value where a map goes", yaml: minimal + "snmp: public\n", key: "snmp", want: ErrBadValue, hint: "write a map of keys"},
		{name: "value where a list goes", yaml: "nodes: 192.0.2.1\n", key: "nodes", want: ErrBadValue, hint: "write a list"},
		{name: "address not IPv4", yaml: "nodes: [{address: 10.0.0.300}]\n", key: "nodes[0].address", want: ErrBadValue, hint: "a.b.c.d"},
		{name: "address is a host name", yaml: "nodes: [{address: printer.example}]\n", key: "nodes[0].address", want: ErrBadValue, hint: "not resolved"},
		{name: "address is link-local IPv6", yaml: "nodes: [{address: 'fe80::1'}, {address: '2001:db8::2'}]\n", key: "nodes[0].address", want: ErrBadValue, hint: "global or unique local"},
		{name: "address is IPv4-mapped", yaml: "nodes: [{address: '::ffff:192.0.2.1'}, {address: '2001:db8::2'}]\n", key: "nodes[0].address", want: ErrBadValue, hint: "write the IPv4 address 192.0.2.1"},
		{name: "address missing", yaml: "nodes: [{address: 192.0.2.1}, {port: 1161}]\n", key: "nodes[1].address", want: ErrBadValue, hint: "give the node's IPv4 address"},
		{name: "address not a host", yaml: "nodes: [{address: 0.0.0.0}]\n", key: "nodes[0].address", want: ErrBadValue, hint: "not a host address"},
		{name: "port zero", yaml: "nodes: [{address: 192.0.2.1, port: 0}]\n", key: "nodes[0].port", want: ErrBadValue, hint: "1..65535"},
		{name: "port too big", yaml: "nodes: [{address: 192.0.2.1, port: 70000}]\n", key: "nodes[0].port", want: ErrBadValue, hint: "1..65535"},
		{name: "port not a number", yaml: "nodes: [{address: 192.0.2.1, port: snmp}]\n", key: "nodes[0].port", want: ErrBadValue, hint: "digits"},
		{name: "tested_only not a bool", yaml: "nodes: [{address: 192.0.2.1, tested_only: maybe}]\n", key: "nodes[0].tested_only", want: ErrBadValue, hint: "true or false"},
		{name: "every node tested-only", yaml: "nodes: [{address: 192.0.2.50, tested_only: true}]\n", key: "nodes", want: ErrBadValue, hint: "at least one must run the agent"},
		{name: "oid on a testing node", yaml: "nodes: [{address: 192.0.2.1, oid: .1.3.6.1.2.1.1.5.0}]\n", key: "nodes[0].oid", want: ErrBadValue, hint: "tested_only: true"},
		{name: "bad oid", yaml: minimal[:len(minimal)-2] + ", {address: 192.0.2.50, tested_only: true, oid: sysUpTime.0}]\n", key: "nodes[2].oid", want: ErrBadValue, hint: "numeric OID"},
		{name: "empty node community", yaml: "nodes: [{address: 192.0.2.1}, {address: 192.0.2.50, tested_only: true, community: ''}]\n", key: "nodes[1].community", want: ErrBadValue, hint: "community the node answers to"},
		{name: "bad CIDR", yaml: minimal + "snmp: {allow: {read: [10.0.0.0/33]}}\n", key: "snmp.allow.read[0]", want: ErrBadValue, hint: "a.b.c.d/n"},
		{name: "empty allow list in use", yaml: minimal + "snmp: {allow: {read: []}}\n", key: "snmp.allow.read", want: ErrBadValue, hint: "0.0.0.0/0"},
		{name: "bad listen", yaml: minimal + "snmp: {listen: 'localhost:161'}\n", key: "snmp.listen", want: ErrBadValue, hint: "[2001:db8::1]:port or auto"},
		{name: "listen without port", yaml: minimal + "snmp: {listen: 0.0.0.0}\n", key: "snmp.listen", want: ErrBadValue, hint: "with a port"},
		{name: "no read community, no v3", yaml: minimal + "snmp: {communities: {read: ''}}\n", key: "snmp.communities.read", want: ErrBadValue, hint: "test.v3_user"},
		{name: "bad engine id", yaml: minimal + "snmp: {engine_id: 80zz}\n", key: "snmp.engine_id", want: ErrBadValue, hint: "hex digits"},
		{name: "short engine id", yaml: minimal + "snmp: {engine_id: '8000'}\n", key: "snmp.engine_id", want: ErrBadValue, hint: "2 octets"},
		{name: "unknown mode", yaml: minimal + "snmp: {mode: proxy}\n", key: "snmp.mode", want: ErrBadValue, hint: "standalone or agentx"},
		{name: "bad master socket", yaml: minimal + "snmp: {mode: agentx, agentx: 'udp:localhost:705'}\n", key: "snmp.agentx", want: ErrBadValue, hint: "unix:/path"},
		{name: "no workers", yaml: minimal + "snmp: {max_workers: 0}\n", key: "snmp.max_workers", want: ErrBadValue, hint: "1..1024"},
		{name: "contact too long", yaml: minimal + "snmp: {sys_contact: " + strings.Repeat("a", 256) + "}\n", key: "snmp.sys_contact",
			want: ErrBadValue, hint: "at most 255"},
		{name: "location not ASCII", yaml: minimal + "snmp: {sys_location: \"Salle 3, étage 2\"}\n", key: "snmp.sys_location",
			want: ErrBadValue, hint: "ASCII only"},
		{name: "short auth passphrase", yaml: minimal + "snmp: {users: [{name: mon, auth_protocol: sha, auth_passphrase: short, access: read}]}\n", key: "snmp.users[0].auth_passphrase", want: ErrBadValue, hint: "8 at least"},
		{name: "short priv passphrase", yaml: minimal + "snmp: {users: [{name: mon, auth_protocol: sha, auth_passphrase: 12345678, priv_protocol: aes, priv_passphrase: short, access: read}]}\n", key: "snmp.users[0].priv_passphrase", want: ErrBadValue, hint: "8 at least"},
		{name: "md5 refused", yaml: minimal + "snmp: {users: [{name: mon, auth_protocol: md5, auth_passphrase: 12345678, access: read}]}\n", key: "snmp.users[0].auth_protocol", want: ErrBadValue, hint: "sha, sha224"},
		{name: "des refused", yaml: minimal + "snmp: {users: [{name: mon, auth_protocol: sha, auth_passphrase: 12345678, priv_protocol: des, priv_passphrase: 12345678, access: read}]}\n", key: "snmp.users[0].priv_protocol", want: ErrBadValue, hint: "aes192"},
		{name: "priv passphrase without priv", yaml: minimal + "snmp: {users: [{name: mon, auth_protocol: sha, auth_passphrase: 12345678, priv_passphrase: 12345678, access: read}]}\n", key: "snmp.users[0].priv_passphrase", want: ErrBadValue, hint: "priv_protocol is none"},
		{name: "bad access", yaml: minimal + "snmp: {users: [{name: mon, auth_protocol: sha, auth_passphrase: 12345678, access: admin}]}\n", key: "snmp.users[0].access", want: ErrBadValue, hint: "read or write"},
		{name: "user twice", yaml: minimal + "snmp: {users: [" + user + ", " + user + "]}\n", key: "snmp.users[1].name", want: ErrBadValue, hint: "repeats snmp.users[0]"},
		{name: "community on an agent tested with v3", yaml: "nodes: [{address: 192.0.2.1, community: public}, {address: 192.0.2.2}]\nsnmp: {users: [" + user + "]}\ntest: {v3_user: mon}\n", key: "nodes[0].community", want: ErrBadValue, hint: "every agent is tested with SNMPv3"},
		{name: "community on an agent under a keyring", yaml: "nodes: [{address: 192.0.2.1, community: public}, {address: 192.0.2.2}]\nkeyring: /etc/diagagent/keyring\n", key: "nodes[0].community", want: ErrBadValue, hint: "keyring or test.v3_user"},
		{name: "keyring and v3 user", yaml: minimal + "keyring: /etc/diagagent/keyring\nsnmp: {users: [" + user + "]}\ntest: {v3_user: mon}\n", key: "test.v3_user", want: ErrBadValue, hint: "remove test.v3_user"},
		{name: "keyring under agentx", yaml: minimal + "keyring: /etc/diagagent/keyring\nsnmp: {mode: agentx}\n", key: "keyring", want: ErrBadValue, hint: "give the users to snmpd"},
		{name: "unknown test user", yaml: minimal + "test: {v3_user: ghost}\n", key: "test.v3_user", want: ErrBadValue, hint: "not in snmp.users"},
		{name: "retries out of range", yaml: minimal + "test: {retries: 99}\n", key: "test.retries", want: ErrBadValue, hint: "0..10"},
		{name: "no ping", yaml: minimal + "test: {ping_count: 0}\n", key: "test.ping_count", want: ErrBadValue, hint: "1..100"},
		{name: "unknown notification kind", yaml: minimal + "traps: {kind: email}\n", key: "traps.kind", want: ErrBadValue, hint: "trap, inform or v3inform"},
		{name: "unknown scope", yaml: minimal + "traps: {scope: some}\n", key: "traps.scope", want: ErrBadValue, hint: "owner, detected or all"},
		{name: "IPv6 primary station", yaml: minimal + "traps: {nms: '[2001:db8::100]:162'}\n", key: "traps.nms", want: ErrBadValue, hint: "list it in traps.fallbacks"},
		{name: "station at port 0", yaml: minimal + "traps: {nms: '192.0.2.100:0'}\n", key: "traps.nms", want: ErrBadValue, hint: "a.b.c.d:port"},
		{name: "bad fall-back", yaml: minimal + "traps: {fallbacks: [192.0.2.100:162, '0.0.0.0:162']}\n", key: "traps.fallbacks[1]", want: ErrBadValue, hint: "a.b.c.d:port"},
		{name: "v3 inform without user", yaml: minimal + "traps: {kind: v3inform}\n", key: "traps.v3", want: ErrBadValue, hint: "station's user"},
		{name: "v3 inform short passphrase", yaml: minimal + "traps: {kind: v3inform, v3: {name: nms, auth_protocol: sha, auth_passphrase: x}}\n", key: "traps.v3.auth_passphrase", want: ErrBadValue, hint: "8 at least"},
		{name: "empty trap community", yaml: minimal + "traps: {community: ''}\n", key: "traps.community", want: ErrBadValue, hint: "community the station accepts"},
		{name: "empty queue", yaml: minimal + "traps: {queue: 0}\n", key: "traps.queue", want: ErrBadValue, hint: "1..65536"},
		{name: "bad web listen", yaml: minimal + "web: {listen: ':8161'}\n", key: "web.listen", want: ErrBadValue, hint: "auto:port"},
		{name: "empty state dir", yaml: minimal + "state_dir: ''\n", key: "state_dir", want: ErrBadValue, hint: "/var/lib/diagagent"},
		{name: "bad log level", yaml: minimal + "log: {level: loud}\n", key: "log.level", want: ErrBadValue, hint: "debug, info, warn or error"},
		{name: "bad log format", yaml: minimal + "log: {format: xml}\n", key: "log.format", want: ErrBadValue, hint: "text or json"},
		{name: "fault_injection not a bool", yaml: minimal + "fault_injection: 1\n", key: "fault_injection", want: ErrBadValue, hint: "true or false"},
		{name: "invalid YAML", yaml: "nodes: [{address: 192.0.2.1}\n", key: "test.yaml", want: ErrFile, hint: "not valid YAML"},
		{name: "duplicate YAML key", yaml: minimal + "interval: 1s\ninterval: 2s\n", key: "test.yaml", want: ErrFile, hint: "already defined"},
		{name: "bad duration in env", yaml: minimal, env: []string{"DIAG_TEST_TIMEOUT=soon"}, key: "test.timeout", want: ErrBadValue, hint: "such as 30s"},
		{name: "unknown env variable", yaml: minimal, env: []string{"DIAG_INTERVALL=1s"}, key: "DIAG_INTERVALL", want: ErrUnknownKey, hint: "DIAG_SNMP_LISTEN"},
		{name: "list in env", yaml: minimal, env: []string{"DIAG_NODES=192.0.2.9"}, key: "DIAG_NODES", want: ErrUnknownKey, hint: "only be given in the configuration file"},
		{name: "bad CIDR in env", yaml: minimal, env: []string{"DIAG_SNMP_ALLOW_READ=10.0.0.0/8,10.0.0.1"}, key: "snmp.allow.read[1]", want: ErrBadValue, hint: "a.b.c.d/n"},
		{name: "bad algorithm in flag", yaml: minimal, flags: []string{"-algorithm", "raft"}, key: "algorithm", want: ErrBadValue, hint: "hiadsd"},
		{name: "bad port in flag", yaml: minimal, flags: []string{"-snmp.listen", "0.0.0.0:99999"}, key: "snmp.listen", want: ErrBadValue, hint: "1..65535"},
	}
}

// TestMistakes checks that each mistake yields exactly one line naming its key and what
// to change, wrapping the documented sentinel.
func TestMistakes(t *testing.T) {
	for _, tc := range mistakeCases() {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			RegisterFlags(fs, parts.Defaults())
			if err := fs.Parse(tc.flags); err != nil {
				t.Fatalf("flags: %v", err)
			}
			_, err := Parse(parts.Defaults(), "test.yaml", []byte(tc.yaml), tc.env, fs)
			if err == nil {
				t.Fatalf("no error for %q", tc.yaml)
			}
			checkOneLine(t, err, tc.key, tc.hint)
			if !errors.Is(err, tc.want) {
				t.Errorf("error %q does not wrap %v", err, tc.want)
			}
		})
	}
}

// checkOneLine asserts that err is a single mistake about key whose text holds hint.
func checkOneLine(t *testing.T, err error, key, hint string) {
	t.Helper()
	text := err.Error()
	if strings.Contains(text, "\n") {
		t.Fatalf("want one line, got:\n%s", text)
	}
	if prefix := "config: " + key + ": "; !strings.HasPrefix(text, prefix) {
		t.Errorf("error %q does not start with %q", text, prefix)
	}
	if !strings.Contains(text, hint) {
		t.Errorf("error %q does not say %q", text, hint)
	}
	if ms := Mistakes(err); len(ms) != 1 || ms[0].Key != key {
		t.Errorf("Mistakes = %v, want one about %s", ms, key)
	}
}

// TestUnreadableFile checks the one-line error for a file that is missing or a directory.
func TestUnreadableFile(t *testing.T) {
	dir := t.TempDir()
	for _, path := range []string{filepath.Join(dir, "missing.yaml"), dir} {
		_, err := Load(parts.Defaults(), path, nil, nil)
		if err == nil {
			t.Fatalf("Load(parts.Defaults(), %s): no error", path)
		}
		checkOneLine(t, err, path, "check the -config path")
		if !errors.Is(err, ErrFile) {
			t.Errorf("error %q does not wrap ErrFile", err)
		}
	}
	_, err := Load(parts.Defaults(), filepath.Join(dir, "missing.yaml"), nil, nil)
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("error %q does not wrap os.ErrNotExist", err)
	}
}

// TestSeveralMistakes checks that Validate reports every mistake, one line each.
func TestSeveralMistakes(t *testing.T) {
	_, err := Parse(parts.Defaults(), "test.yaml", []byte(minimal+"algorithm: x\nlog: {level: x, format: x}\ninterval: 0s\n"), nil, nil)
	ms := Mistakes(err)
	var keys []string
	for _, m := range ms {
		keys = append(keys, m.Key)
	}
	if got, want := strings.Join(keys, " "), "algorithm interval log.level log.format"; got != want {
		t.Fatalf("keys %q, want %q", got, want)
	}
	if lines := strings.Split(err.Error(), "\n"); len(lines) != len(ms) {
		t.Errorf("%d lines for %d mistakes:\n%s", len(lines), len(ms), err)
	}
}

// TestDefaultNeedsNodes checks that Default alone does not validate, and only for want of nodes.
func TestDefaultNeedsNodes(t *testing.T) {
	checkOneLine(t, Default(parts.Defaults()).Validate(), "nodes", "list every node")
}

func TestAgentXSocket(t *testing.T) {
	for in, want := range map[string][2]string{
		"unix:/var/agentx/master": {"unix", "/var/agentx/master"},
		"tcp:127.0.0.1:705":       {"tcp", "127.0.0.1:705"},
		"tcp:localhost:705":       {"tcp", "localhost:705"},
		"unix:relative":           {},
		"tcp:localhost":           {},
		"/var/agentx/master":      {},
	} {
		n, a, err := SNMP{AgentX: in}.AgentXSocket()
		if (err == nil) != (want[0] != "") || n != want[0] || a != want[1] {
			t.Errorf("%q: %q %q %v, want %q", in, n, a, err, want)
		}
	}
}

// TestIPv6Nodes: a LAN of IPv6 addresses, with IPv6 networks allowed and an
// IPv6 listen address, is a valid configuration.
func TestIPv6Nodes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v6.yaml")
	yaml := "nodes: [{address: '2001:db8::1'}, {address: 'fd00::2', port: 1161}, {address: 192.0.2.3}]\n" +
		"snmp: {listen: '[::]:161', allow: {read: ['2001:db8::/32', 'fd00::/8', 0.0.0.0/0]}}\nweb: {listen: '[::1]:8161'}\n"
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(parts.Defaults(), path, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Nodes[1].Address != netip.MustParseAddr("fd00::2") || c.SNMPListen(1) != netip.MustParseAddrPort("[::]:161") {
		t.Errorf("nodes %v, listen %v", c.Nodes, c.SNMPListen(1))
	}
}

// TestWarnings: agents over v2c and a write community open to anyone are
// warned about, one line each naming the key; a keyring and a narrow
// allow.write leave nothing to say.
func TestWarnings(t *testing.T) {
	nodes := "nodes: [{address: 192.0.2.1}, {address: 192.0.2.2}]\n"
	cases := []struct {
		yaml string
		want []string
	}{
		{nodes + "snmp: {communities: {write: rw}}\n", []string{"keyring: empty", "snmp.allow.write: the write community is accepted from anywhere (0.0.0.0/0)"}},
		{nodes + "keyring: /etc/diagagent/keyring\nsnmp: {communities: {write: rw}, allow: {write: [192.0.2.100/32]}}\n", nil},
		{nodes + "keyring: /etc/diagagent/keyring\n", nil},
	}
	for _, c := range cases {
		cfg, err := Parse(parts.Defaults(), "w.yaml", []byte(c.yaml), nil, nil)
		if err != nil {
			t.Fatalf("%q: %v", c.yaml, err)
		}
		got := cfg.Warnings()
		if len(got) != len(c.want) {
			t.Fatalf("%q: warnings %q, want %d", c.yaml, got, len(c.want))
		}
		for i, w := range c.want {
			if !strings.HasPrefix(got[i], w) {
				t.Errorf("%q: warning %q, want it to start %q", c.yaml, got[i], w)
			}
		}
	}
}
