package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"maps"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/diagagent/diagagent/agent/config"
	"github.com/diagagent/diagagent/agent/keyring"
	"github.com/diagagent/diagagent/agent/parts"
)

// TestConfigCheckRefusesUnwritableStateDir is issue 13's defect 11 at the
// command line: -config.check fails with one line naming state_dir when the
// state cannot be written, instead of passing and letting the agent die on
// its first save.
func TestConfigCheckRefusesUnwritableStateDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		stateDir string
		code     int
	}{{filepath.Join(file, "state"), 2}, {filepath.Join(dir, "state"), 0}} {
		conf := filepath.Join(dir, "diagagent.yaml")
		yaml := "id: 0\nnodes: [{address: 192.0.2.1}, {address: 192.0.2.2}]\nstate_dir: " + c.stateDir + "\n"
		if err := os.WriteFile(conf, []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		code := run([]string{"-config", conf, "-config.check"}, nil, io.Discard, &stderr)
		msg := stderr.String()
		if code != c.code {
			t.Fatalf("state_dir %s: exit %d, want %d: %s", c.stateDir, code, c.code, msg)
		}
		if c.code != 0 && (!strings.HasPrefix(msg, "state_dir: ") || strings.Count(msg, "\n") != 1) {
			t.Fatalf("state_dir %s: %q, want one line naming state_dir", c.stateDir, msg)
		}
	}
}

// TestVersion: -version prints one line naming the build and reads no
// configuration (the default file need not exist).
func TestVersion(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"-version", "-config", filepath.Join(t.TempDir(), "absent.yaml")}, nil, &stdout, &stderr)
	if code != 0 || stderr.Len() != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	if out := stdout.String(); !strings.HasPrefix(out, "diagagent ") || !strings.Contains(out, "(revision ") || strings.Count(out, "\n") != 1 {
		t.Errorf("-version printed %q", out)
	}
}

// TestBindErrorSaysWhatToDo: the two ways a bind fails on a workstation
// each name their fix; any other error is passed on with the key.
func TestBindErrorSaysWhatToDo(t *testing.T) {
	wrap := func(errno syscall.Errno) error {
		return &net.OpError{Op: "listen", Net: "udp4", Err: os.NewSyscallError("bind", errno)}
	}
	for _, c := range []struct {
		key  string
		err  error
		want []string
	}{
		{"snmp.listen", wrap(syscall.EACCES), []string{"snmp.listen: cannot bind udp/0.0.0.0:161", "CAP_NET_BIND_SERVICE", "setcap"}},
		{"snmp.listen", wrap(syscall.EADDRINUSE), []string{"already in use", "snmpd", "snmp.mode: agentx", "1161"}},
		{"web.listen", wrap(syscall.EADDRINUSE), []string{"web.listen: cannot bind", "leave web.listen empty"}},
		{"snmp.listen", wrap(syscall.EADDRNOTAVAIL), []string{"snmp.listen: cannot bind", "cannot assign requested address"}},
	} {
		msg := bindError(c.key, "udp", "0.0.0.0:161", c.err).Error()
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%v: %q lacks %q", c.err, msg, w)
			}
		}
	}
}

// TestKeygenAndKeyring: keygen prints a key a keyring file takes; a file
// naming that keyring (relative to itself) checks clean, without the
// warning about agents on SNMPv2c; keyring -snmp prints the options of the
// key's user for net-snmp's tools; and a missing keyring is refused with
// how to make it.
func TestKeygenAndKeyring(t *testing.T) {
	var key, stderr bytes.Buffer
	if code := run([]string{"keygen"}, nil, &key, &stderr); code != 0 || len(strings.TrimSpace(key.String())) != 44 {
		t.Fatalf("keygen: exit %d, printed %q, %s", code, key.String(), stderr.String())
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "diagagent.yaml")
	yaml := "id: 0\nnodes: [{address: 192.0.2.1}, {address: 192.0.2.2}]\nstate_dir: " + filepath.Join(dir, "state") + "\nkeyring: keyring\n"
	if err := os.WriteFile(conf, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	if code := run([]string{"-config", conf, "-config.check"}, nil, io.Discard, &stderr); code != 2 || !strings.Contains(stderr.String(), "diagagent keygen > "+filepath.Join(dir, "keyring")) {
		t.Fatalf("without the keyring: exit %d, %q; want a refusal saying how to make it", code, stderr.String())
	}
	if err := os.WriteFile(filepath.Join(dir, "keyring"), key.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	if code := run([]string{"-config", conf, "-config.check"}, nil, io.Discard, &stderr); code != 0 || strings.Contains(stderr.String(), "warning") {
		t.Fatalf("with the keyring: exit %d, %q; want valid without warnings", code, stderr.String())
	}
	var opts bytes.Buffer
	if code := run([]string{"keyring", "-snmp", "-config", conf}, nil, &opts, &stderr); code != 0 {
		t.Fatalf("keyring -snmp: exit %d, %s", code, stderr.String())
	}
	k, err := keyring.ParseKey(key.String())
	if err != nil {
		t.Fatal(err)
	}
	u := k.User()
	want := "-v3 -l authPriv -u " + u.Name + " -a SHA-256 -A " + u.AuthPassphrase + " -x AES -X " + u.PrivPassphrase + "\n"
	if opts.String() != want {
		t.Errorf("keyring -snmp printed %q, want %q", opts.String(), want)
	}
}

// TestManPageNamesEveryCommand: diagagent(8) has a line for each command
// main answers, so a new one cannot ship without its manual entry.
func TestManPageNamesEveryCommand(t *testing.T) {
	page := config.ManPage(parts.Defaults(), "1.2.3", "2026-11-26")
	for _, name := range append([]string{"keygen"}, slices.Sorted(maps.Keys(subcommands))...) {
		if !strings.Contains(page, ".B diagagent "+name) {
			t.Errorf("diagagent(8) has no entry for diagagent %s", name)
		}
	}
}

// TestLaunchdPlist: the macOS plist is well-formed XML and starts the
// binary where docs/platforms.md installs it, with the configuration at
// macOS's default path (agent/config/path_darwin.go).
func TestLaunchdPlist(t *testing.T) {
	b, err := os.ReadFile("../../configs/macos/net.diagagent.agent.plist")
	if err != nil {
		t.Fatal(err)
	}
	var plist struct {
		Dict struct {
			Items []struct {
				XMLName xml.Name
				Value   string   `xml:",chardata"`
				Strings []string `xml:"string"`
			} `xml:",any"`
		} `xml:"dict"`
	}
	if err := xml.Unmarshal(b, &plist); err != nil {
		t.Fatalf("the plist is not XML: %v", err)
	}
	keys := map[string]int{}
	for i, it := range plist.Dict.Items {
		if it.XMLName.Local == "key" {
			keys[it.Value] = i + 1
		}
	}
	args := plist.Dict.Items[keys["ProgramArguments"]].Strings
	want := []string{"/usr/local/bin/diagagent", "-config", "/usr/local/etc/diagagent/diagagent.yaml"}
	if keys["Label"] == 0 || plist.Dict.Items[keys["Label"]].Value != "net.diagagent.agent" || !slices.Equal(args, want) {
		t.Errorf("plist: Label at %d, ProgramArguments %q; want net.diagagent.agent and %q", keys["Label"], args, want)
	}
}

// TestLogLevelOf: the Windows service files each log line under the event
// log type its level says, text or JSON, and a line with none as an error.
func TestLogLevelOf(t *testing.T) {
	for line, want := range map[string]string{
		`time="2026-11-26T03:21:53.851Z" level=info msg="diagagent started"`:            "info",
		`time="2026-11-26T03:21:53.851Z" level=warning msg="snmp.allow.write: ..."`:     "warning",
		`{"level":"error","msg":"cannot save state","time":"2026-11-26T03:10:52.098Z"}`: "error",
		`{"level":"debug","msg":"fetch failed"}`:                                        "info",
		`config: nodes[2].adress: no such key; did you mean address?`:                   "error",
		`time="2026-11-26T03:21:53.851Z" level=fatal msg="x"`:                           "error",
	} {
		if got := logLevelOf(line); got != want {
			t.Errorf("logLevelOf(%q) = %q, want %q", line, got, want)
		}
	}
}

// TestCommandLine: diagagent alone, help and -h list every command, one line
// each, then the agent's flags; version needs no configuration; every
// command answers -h with exit 0.
func TestCommandLine(t *testing.T) {
	for _, args := range [][]string{nil, {"help"}, {"-h"}} {
		var stdout, stderr bytes.Buffer
		code := run(args, nil, &stdout, &stderr)
		out := stdout.String() + stderr.String()
		want := 0
		if args == nil {
			want = 2
		}
		if code != want {
			t.Errorf("diagagent %v: exit %d, want %d", args, code, want)
		}
		for _, c := range config.Commands {
			if !regexp.MustCompile(`(?m)^  ` + c.Name + ` +\S`).MatchString(out) {
				t.Errorf("diagagent %v does not list %s on a line of its own:\n%s", args, c.Name, out)
			}
		}
		if !strings.Contains(out, "  -config file") || strings.Index(out, "  -config file") < strings.Index(out, "  help ") {
			t.Errorf("diagagent %v: the flags do not follow the commands:\n%s", args, out)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"version"}, []string{"DIAG_CONFIG=/nonexistent"}, &stdout, &stderr); code != 0 || !strings.HasPrefix(stdout.String(), "diagagent ") {
		t.Errorf("diagagent version: exit %d, %q %q", code, stdout.String(), stderr.String())
	}
	for _, c := range config.Commands {
		if c.Name == "help" {
			continue
		}
		var stdout, stderr bytes.Buffer
		if code := run([]string{c.Name, "-h"}, nil, &stdout, &stderr); code != 0 || stdout.Len()+stderr.Len() == 0 {
			t.Errorf("diagagent %s -h: exit %d, printed %q", c.Name, code, stdout.String()+stderr.String())
		}
	}
}

// TestChangingCommandsShareCredentials: the three commands that change the
// cluster (nodes, maintenance, keyring) answer -h with the same credential
// flags, each with the same help, and -wait; keyring refuses
// -write-community in one line, before reading anything.
func TestChangingCommandsShareCredentials(t *testing.T) {
	flagsOf := func(cmd string) map[string]string {
		var out bytes.Buffer
		run([]string{cmd, "-h"}, nil, io.Discard, &out)
		got := map[string]string{}
		lines := strings.Split(out.String(), "\n")
		for k, l := range lines {
			name, ok := strings.CutPrefix(strings.TrimSpace(l), "-")
			if !ok || !strings.HasPrefix(l, "  -") {
				continue
			}
			name, _, _ = strings.Cut(name, " ")
			if k+1 < len(lines) && strings.HasPrefix(lines[k+1], "    \t") {
				got[name] = strings.TrimSpace(lines[k+1])
			}
		}
		return got
	}
	want := flagsOf("nodes")
	if _, ok := flagsOf("keyring")["install"]; !ok || want["add"] == "" {
		t.Fatalf("the help read is not the commands': nodes %v", want)
	}
	for _, cmd := range []string{"nodes", "maintenance", "keyring"} {
		got := flagsOf(cmd)
		for _, f := range []string{"config", "agent", "write-community", "wait"} {
			if _, ok := got[f]; !ok {
				t.Errorf("diagagent %s -h has no -%s", cmd, f)
			}
		}
		for _, f := range []string{"config", "agent", "write-community"} {
			if got[f] != want[f] {
				t.Errorf("diagagent %s -%s: %q; nodes says %q", cmd, f, got[f], want[f])
			}
		}
	}
	var stderr bytes.Buffer
	if code := run([]string{"keyring", "-list", "-write-community", "private", "-config", "/nonexistent"}, nil, io.Discard, &stderr); code != 2 ||
		strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), "-write-community cannot carry keys") {
		t.Fatalf("keyring -write-community: exit %d, %q", code, stderr.String())
	}
}
