package config

import (
	"flag"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/diagagent/diagagent/agent/parts"
)

// parseFlags registers the key flags on a new set and parses args.
func parseFlags(t testing.TB, args ...string) (*flag.FlagSet, *Flags) {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	f := RegisterFlags(fs, parts.Defaults())
	if err := fs.Parse(args); err != nil {
		t.Fatalf("parse %v: %v", args, err)
	}
	return fs, f
}

// TestPrecedence checks defaults < file < DIAG_* variables < flags, key by key.
func TestPrecedence(t *testing.T) {
	file := minimal + "interval: 10s\ntest: {timeout: 2s, retries: 4}\nlog: {level: warn}\n"
	env := []string{"DIAG_TEST_TIMEOUT=3s", "DIAG_LOG_LEVEL=error", "PATH=/bin", "DIAG_TEST_RETRIES=5"}
	fs, _ := parseFlags(t, "-test.retries", "6")
	c, err := Parse(parts.Defaults(), "test.yaml", []byte(file), env, fs)
	if err != nil {
		t.Fatal(err)
	}
	got := []any{c.Algorithm, c.Interval, c.Test.Timeout, c.Log.Level, c.Test.Retries}
	want := []any{AlgorithmVCube, 10 * time.Second, 3 * time.Second, "error", 6}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v (default, file, env over file, env over file, flag over env)", got, want)
	}
}

// TestEnvAndFlagLists checks that lists of values are comma-separated outside the file.
func TestEnvAndFlagLists(t *testing.T) {
	fs, _ := parseFlags(t, "-traps.fallbacks", "192.0.2.8:162, 192.0.2.9:1162")
	c, err := Parse(parts.Defaults(), "test.yaml", []byte(minimal), []string{"DIAG_SNMP_ALLOW_READ=10.0.0.0/8,127.0.0.0/8"}, fs)
	if err != nil {
		t.Fatal(err)
	}
	wantAllow := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("127.0.0.0/8")}
	wantFall := []Station{StationAt(netip.MustParseAddr("192.0.2.8"), 162), StationAt(netip.MustParseAddr("192.0.2.9"), 1162)}
	if !reflect.DeepEqual(c.SNMP.Allow.Read, wantAllow) || !reflect.DeepEqual(c.Traps.Fallbacks, wantFall) {
		t.Errorf("allow %v fallbacks %v, want %v %v", c.SNMP.Allow.Read, c.Traps.Fallbacks, wantAllow, wantFall)
	}
}

// TestNodeDefaults checks the port, community and object an entry gets when it omits them.
func TestNodeDefaults(t *testing.T) {
	file := "nodes:\n  - {address: 192.0.2.1}\n  - {address: 192.0.2.2, port: 1161, community: other}\n" +
		"  - {address: 192.0.2.50, tested_only: true}\n  - {address: 192.0.2.51, tested_only: true, oid: .1.3.6.1.2.1.1.5.0}\n"
	c, err := Parse(parts.Defaults(), "test.yaml", []byte(file), []string{"DIAG_SNMP_COMMUNITIES_READ=lan"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Node{
		{Address: netip.MustParseAddr("192.0.2.1"), Port: 161, Community: "lan"},
		{Address: netip.MustParseAddr("192.0.2.2"), Port: 1161, Community: "other"},
		{Address: netip.MustParseAddr("192.0.2.50"), Port: 161, TestedOnly: true, Community: "lan", OID: SysUpTimeOID},
		{Address: netip.MustParseAddr("192.0.2.51"), Port: 161, TestedOnly: true, Community: "lan", OID: ".1.3.6.1.2.1.1.5.0"},
	}
	if !reflect.DeepEqual(c.Nodes, want) {
		t.Errorf("nodes\n got %+v\nwant %+v", c.Nodes, want)
	}
}

// TestDefaultsRoundTrip checks that an empty file plus nodes gives exactly Default.
func TestDefaultsRoundTrip(t *testing.T) {
	c, err := Parse(parts.Defaults(), "test.yaml", []byte(minimal), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Default(parts.Defaults())
	want.Nodes = c.Nodes
	if !reflect.DeepEqual(c, want) {
		t.Errorf("loaded\n %+v\nwant\n %+v", c, want)
	}
}

// TestLoadFile checks Load on a file on disk, and that no path means no file.
func TestLoadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.yaml")
	if err := os.WriteFile(path, []byte(minimal+"algorithm: hiadsd\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(parts.Defaults(), path, nil, nil)
	if err != nil || c.Algorithm != AlgorithmHiADSD || len(c.Nodes) != 2 {
		t.Fatalf("Load = %+v, %v", c, err)
	}
	_, err = Load(parts.Defaults(), "", nil, nil)
	checkOneLine(t, err, "nodes", "list every node")
}

// TestFlagsRegistered checks -config, -config.check and one flag per settable key.
func TestFlagsRegistered(t *testing.T) {
	fs, f := parseFlags(t, "-config", "x.yaml", "-config.check")
	if f.Path != "x.yaml" || !f.Check {
		t.Errorf("flags = %+v", f)
	}
	if _, f = parseFlags(t); f.Path != DefaultPath {
		t.Errorf("default path %q, want %q", f.Path, DefaultPath)
	}
	for _, k := range Keys(parts.Defaults()) {
		if got := fs.Lookup(k.Name) != nil; got == k.FileOnly {
			t.Errorf("key %s: flag registered %v, file-only %v", k.Name, got, k.FileOnly)
		}
	}
}

// TestKeys checks that every key has a doc, a unique variable, and a default that parses.
func TestKeys(t *testing.T) {
	envs := map[string]string{}
	for _, k := range Keys(parts.Defaults()) {
		if k.Doc == "" {
			t.Errorf("key %s has no doc tag", k.Name)
		}
		if other, dup := envs[k.Env]; dup && k.Env != "" {
			t.Errorf("keys %s and %s share %s", other, k.Name, k.Env)
		}
		envs[k.Env] = k.Name
		if typeAt(k.Name) == nil {
			t.Errorf("typeAt(%s) = nil", k.Name)
		}
	}
	for _, name := range []string{"id", "algorithm", "interval", "snmp.listen", "snmp.communities.read",
		"snmp.communities.write", "nodes", "traps.nms", "web.listen", "state_dir"} {
		if _, ok := envs[envName(name)]; !ok && name != "nodes" {
			t.Errorf("the issue's key %s is missing", name)
		}
	}
}

// TestV3UserLeavesAgentsWithoutCommunity is issue 13's defect 10: with
// test.v3_user set, the loader gave every node the read community, and the
// prober, which tests with v2c whenever a target has a community, sent
// "public" to every agent. Agents now get none (the prober then speaks v3);
// a tested-only node keeps the read community, or its own.
func TestV3UserLeavesAgentsWithoutCommunity(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "v3.yaml")
	yaml := "nodes: [{address: 192.0.2.1}, {address: 192.0.2.2}, {address: 192.0.2.50, tested_only: true}, {address: 192.0.2.51, tested_only: true, community: printers}]\n" +
		"snmp: {users: [{name: mon, auth_protocol: sha256, auth_passphrase: 12345678, priv_protocol: aes, priv_passphrase: 87654321, access: read}]}\n" +
		"test: {v3_user: mon}\n"
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(parts.Defaults(), path, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"", "", "public", "printers"}
	for k, n := range c.Nodes {
		if n.Community != want[k] {
			t.Errorf("nodes[%d].community = %q, want %q", k, n.Community, want[k])
		}
	}
}

// TestStationWithoutPort: a station written as a bare address, in the file,
// a variable or a flag, is snmptrapd's port 162; a port given is kept.
func TestStationWithoutPort(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.yaml")
	if err := os.WriteFile(path, []byte(minimal+"traps: {nms: 192.0.2.100, fallbacks: [192.0.2.101, '192.0.2.102:1162']}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(parts.Defaults(), path, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Station{StationAt(netip.MustParseAddr("192.0.2.101"), 162), StationAt(netip.MustParseAddr("192.0.2.102"), 1162)}
	if c.Traps.NMS != StationAt(netip.MustParseAddr("192.0.2.100"), 162) || !slices.Equal(c.Traps.Fallbacks, want) {
		t.Errorf("nms %v, fallbacks %v", c.Traps.NMS, c.Traps.Fallbacks)
	}
	c, err = Load(parts.Defaults(), path, []string{"DIAG_TRAPS_NMS=192.0.2.200"}, nil)
	if err != nil || c.Traps.NMS != StationAt(netip.MustParseAddr("192.0.2.200"), 162) {
		t.Errorf("from the environment: nms %v, %v", c.Traps.NMS, err)
	}
}

// TestIPv6FallbackStation: an IPv6 fall-back station, with or without a
// port, is accepted; a bare one is snmptrapd's port 162.
func TestIPv6FallbackStation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.yaml")
	if err := os.WriteFile(path, []byte(minimal+"traps: {fallbacks: ['2001:db8::100', '[2001:db8::101]:1162']}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(parts.Defaults(), path, nil, nil)
	want := []Station{StationAt(netip.MustParseAddr("2001:db8::100"), 162), StationAt(netip.MustParseAddr("2001:db8::101"), 1162)}
	if err != nil || !slices.Equal(c.Traps.Fallbacks, want) {
		t.Errorf("fallbacks %v, %v", c.Traps.Fallbacks, err)
	}
}
