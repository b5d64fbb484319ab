//go:build integration && linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/diagagent/diagagent/agent/keyring"
)

// sh runs a command and fails the test with its output if it fails.
func sh(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// packagePaths are what the package puts on the machine (besides
// directories others share) and the paths its scripts and the agent make;
// after a purge none may be left.
var packagePaths = []string{
	"/usr/bin/diagagent", "/lib/systemd/system/diagagent.service", "/etc/diagagent",
	"/usr/share/man/man8/diagagent.8.gz", "/usr/share/snmp/mibs/DIAGNOSIS-MIB.txt",
	"/usr/share/diagagent", "/usr/share/doc/diagagent", "/var/lib/diagagent", "/var/lib/private/diagagent",
	"/usr/share/snmp/mibs/ietf/SNMPv2-SMI.txt",
}

// TestDebianPackage builds the package with `make deb` (nfpm), installs it
// with dpkg on this machine, checks what an administrator relies on (the
// installed configuration passes -config.check, systemd accepts the unit,
// net-snmp finds the MIB by name from anywhere, the manual page formats
// cleanly), and purges it, leaving nothing behind.
func TestDebianPackage(t *testing.T) {
	slot(t, true)
	if out, err := exec.Command("dpkg", "-s", "diagagent").CombinedOutput(); err == nil {
		t.Fatalf("diagagent is already installed on this machine; the test would replace it:\n%s", out)
	}
	dir := t.TempDir()
	sh(t, "make", "-C", "../..", "deb", "DEB_DIR="+dir)
	debs, _ := filepath.Glob(filepath.Join(dir, "diagagent_*_amd64.deb"))
	if len(debs) != 1 {
		t.Fatalf("make deb made %v, want one package", debs)
	}
	fi, err := os.Stat(debs[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %.1f MB", filepath.Base(debs[0]), float64(fi.Size())/1e6)
	if info := sh(t, "dpkg-deb", "-I", debs[0]); !strings.Contains(info, "conffiles") {
		t.Errorf("the package declares no conffiles:\n%s", info)
	}

	t.Cleanup(func() { exec.Command("dpkg", "--purge", "diagagent").Run() })
	sh(t, "dpkg", "-i", debs[0])
	if conf := sh(t, "dpkg-query", "-W", "-f=${Conffiles}", "diagagent"); !strings.Contains(conf, "/etc/diagagent/diagagent.yaml") {
		t.Errorf("the configuration is not a conffile: %q", conf)
	}
	if fi, err := os.Stat("/etc/diagagent/diagagent.yaml"); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the installed configuration: %v, mode %v; want 0600 (it holds pass phrases)", err, fi.Mode())
	}
	if v := sh(t, "/usr/bin/diagagent", "-version"); !regexp.MustCompile(`^diagagent \d+\.\d+\.\d+(-[0-9A-Za-z.]+)?(\+[0-9a-f]+(\.dirty)?)? \(`).MatchString(v) {
		t.Errorf("the installed binary says %q", v)
	}
	// The shipped configuration is an example LAN this machine is not in:
	// -id picks its first node, as an administrator would on ws-01. It names
	// the cluster key, which the administrator makes as the README says.
	check := exec.Command("/usr/bin/diagagent", "-config", "/etc/diagagent/diagagent.yaml", "-id", "0", "-config.check")
	if out, err := check.CombinedOutput(); err == nil || !strings.Contains(string(out), "diagagent keygen > /etc/diagagent/keyring") {
		t.Errorf("-config.check without the key: %v, %s; want a refusal saying how to make it", err, out)
	}
	sh(t, "sh", "-c", "umask 077 && /usr/bin/diagagent keygen > /etc/diagagent/keyring")
	if out := sh(t, "/usr/bin/diagagent", "-config", "/etc/diagagent/diagagent.yaml", "-id", "0", "-config.check"); !strings.Contains(out, "configuration is valid") || strings.Contains(out, "warning") {
		t.Errorf("-config.check on the installed configuration and its key: %s (want valid, without warnings)", out)
	}
	sh(t, "systemd-analyze", "verify", "/lib/systemd/system/diagagent.service")
	unit, _ := os.ReadFile("/lib/systemd/system/diagagent.service")
	for _, want := range []string{"ExecStart=/usr/bin/diagagent ", "DynamicUser=yes", "StateDirectory=diagagent",
		"ExecStartPre=+/usr/bin/diagagent stage -config /etc/diagagent/diagagent.yaml -to /run/diagagent",
		"ExecReload=+/usr/bin/diagagent stage -config /etc/diagagent/diagagent.yaml -to /run/diagagent",
		"ExecStart=/usr/bin/diagagent -config /run/diagagent/diagagent.yaml", "RuntimeDirectory=diagagent",
		"AmbientCapabilities=CAP_NET_RAW CAP_NET_BIND_SERVICE", "CapabilityBoundingSet=CAP_NET_RAW CAP_NET_BIND_SERVICE", "ProtectSystem=strict"} {
		if !strings.Contains(string(unit), want) {
			t.Errorf("the installed unit lacks %q", want)
		}
	}
	serviceUnderSystemd(t)
	// net-snmp's tools with Debian's own snmp.conf ("mibs :"), from another directory.
	tr := exec.Command("snmptranslate", "-m", "DIAGNOSIS-MIB", "-On", "DIAGNOSIS-MIB::nodeStatus")
	tr.Dir = dir
	tr.Env = append(os.Environ(), "HOME="+dir)
	if out, err := tr.CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != ".1.3.6.1.4.1.200.1.1.1.3" {
		t.Errorf("snmptranslate -m DIAGNOSIS-MIB DIAGNOSIS-MIB::nodeStatus: %v\n%s", err, out)
	}
	if out := sh(t, "sh", "-c", "zcat /usr/share/man/man8/diagagent.8.gz | groff -man -ww -z 2>&1"); out != "" {
		t.Errorf("the manual page has warnings:\n%s", out)
	}
	if out := sh(t, "man", "-P", "cat", "diagagent"); !strings.Contains(out, "snmp.communities.read") {
		t.Errorf("man diagagent does not list the keys:\n%.500s", out)
	}

	sh(t, "dpkg", "--purge", "diagagent")
	if out, err := exec.Command("dpkg", "-s", "diagagent").CombinedOutput(); err == nil || !strings.Contains(string(out), "not installed") {
		t.Errorf("after the purge dpkg -s says: %s", out)
	}
	for _, p := range packagePaths {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("after the purge %s is left", p)
		}
	}
}

// serviceUnderSystemd runs the installed unit under a real systemd
// (bootSystemd) as the node 0 of a LAN of two on that systemd's loopback,
// beside a node 1 started by hand. It checks what the unit promises:
//   - it starts as a dynamic user, with the configuration and the key staged
//     0600 for that user, and the agent holds its peer fault-free;
//   - systemctl reload applies an edited keyring (a second key, installed
//     at every agent through the diagnosis), and a reload of a configuration
//     that does not load fails and changes nothing;
//   - systemctl stop ends it cleanly.
func serviceUnderSystemd(t *testing.T) {
	s := bootSystemd(t)
	const lan = `interval: 1s
snmp:
  listen: auto
  communities: {read: public, write: ""}
  allow: {read: [127.0.0.0/8], write: [127.0.0.0/8]}
nodes:
  - {address: 127.0.0.1, name: unit}
  - {address: 127.0.0.2, name: peer}
test: {timeout: 300ms, retries: 1, ping_timeout: 500ms, ping_count: 1}
keyring: keyring
`
	if err := os.WriteFile("/etc/diagagent/diagagent.yaml", []byte("id: 0\n"+lan), 0o600); err != nil {
		t.Fatal(err)
	}
	peer := t.TempDir()
	if err := os.WriteFile(filepath.Join(peer, "diagagent.yaml"), []byte("id: 1\nweb: {listen: \"\"}\n"+lan), 0o600); err != nil {
		t.Fatal(err)
	}
	key, err := os.ReadFile("/etc/diagagent/keyring")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(peer, "keyring"), key, 0o600); err != nil {
		t.Fatal(err)
	}
	// Node 1: in systemd's network only, as root, stopped by PID.
	node1 := exec.Command("nsenter", "-t", strconv.Itoa(s.pid), "-n", "/usr/bin/diagagent",
		"-config", filepath.Join(peer, "diagagent.yaml"), "-state_dir", filepath.Join(peer, "state"))
	var node1Log strings.Builder
	node1.Stdout, node1.Stderr = &node1Log, &node1Log
	if err := node1.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		node1.Process.Signal(syscall.SIGTERM)
		node1.Wait()
		if t.Failed() {
			t.Logf("node 1's log:\n%s", node1Log.String())
		}
	})
	t.Cleanup(func() {
		if t.Failed() {
			out, _ := s.command("journalctl", "-u", "diagagent", "--no-pager", "-o", "cat").CombinedOutput()
			t.Logf("journalctl -u diagagent:\n%s", out)
		}
	})

	s.run("systemctl", "start", "diagagent")
	if st := s.show("diagagent", "ActiveState"); st != "active" {
		t.Fatalf("after systemctl start the unit is %s", st)
	}
	statuses := func() string {
		out, _ := s.command("snmpwalk", "-v2c", "-c", "public", "-t", "0.5", "-r", "1", "-On", "-Oq",
			"127.0.0.1:161", ".1.3.6.1.4.1.200.1.1.1.3").CombinedOutput()
		return string(out)
	}
	const bothFaultFree = ".1.3.6.1.4.1.200.1.1.1.3.1 0\n.1.3.6.1.4.1.200.1.1.1.3.2 0\n"
	// Type=simple: systemctl start returns once systemd has forked, before
	// the exec; the agent runs once it answers.
	waitUntil(t, "the unit's agent holds both nodes fault-free", 30*time.Second, func() bool { return statuses() == bothFaultFree })

	main := s.show("diagagent", "MainPID")
	// The status file, not the directory's owner: /proc/PID of a process
	// that gained capabilities is root's.
	var uid string
	for _, l := range strings.Split(s.run("cat", "/proc/"+main+"/status"), "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "Uid:" {
			uid = f[1]
		}
	}
	if uid == "0" || uid == "" {
		t.Errorf("the agent runs as uid %q; want the unit's dynamic user", uid)
	}
	staged := func(what string) string {
		t.Helper()
		for _, f := range []string{"diagagent.yaml", "keyring"} {
			fi, err := os.Stat(s.file("/run/diagagent/" + f))
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if st := fi.Sys().(*syscall.Stat_t); fi.Mode().Perm() != 0o600 || strconv.Itoa(int(st.Uid)) != uid {
				t.Errorf("%s: /run/diagagent/%s has mode %v, owner %d; want 0600 and the service's user %s", what, f, fi.Mode().Perm(), st.Uid, uid)
			}
		}
		b, err := os.ReadFile(s.file("/run/diagagent/keyring"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if staged("start") != string(key) {
		t.Errorf("the unit staged a key other than /etc/diagagent/keyring's")
	}
	// A configuration that does not load: the reload fails, the agent stays.
	good, _ := os.ReadFile("/etc/diagagent/diagagent.yaml")
	if err := os.WriteFile("/etc/diagagent/diagagent.yaml", append(good, "interval: soon\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := s.command("systemctl", "reload", "diagagent").CombinedOutput(); err == nil {
		t.Errorf("systemctl reload of a configuration that does not load succeeded:\n%s", out)
	}
	if st, pid := s.show("diagagent", "ActiveState"), s.show("diagagent", "MainPID"); st != "active" || pid != main {
		t.Errorf("after a failed reload the unit is %s with MainPID %s; want active, %s", st, pid, main)
	}
	if err := os.WriteFile("/etc/diagagent/diagagent.yaml", good, 0o600); err != nil {
		t.Fatal(err)
	}

	// Install a second key by editing the file at node 0 alone.
	next, err := keyring.Generate()
	if err != nil {
		t.Fatal(err)
	}
	edited := string(key) + next.String() + "\n"
	if err := os.WriteFile("/etc/diagagent/keyring", []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	s.run("systemctl", "reload", "diagagent")
	if staged("reload") != edited {
		t.Errorf("after the key file was edited, systemctl reload staged the old key")
	}
	var list string
	waitUntil(t, "node 1 holds the key installed at node 0", 30*time.Second, func() bool {
		out, _ := s.command("/usr/bin/diagagent", "keyring", "-list", "-config", "/etc/diagagent/diagagent.yaml", "-agent", "127.0.0.2:161").CombinedOutput()
		list = string(out)
		for _, l := range strings.Split(list, "\n") {
			if f := strings.Fields(l); len(f) > 1 && f[0] == next.ID() && f[1] == "2/2" {
				return true
			}
		}
		return false
	})
	t.Logf("after systemctl reload, keyring -list at node 1:\n%s", list)
	if pid := s.show("diagagent", "MainPID"); pid != main {
		t.Errorf("systemctl reload restarted the agent (MainPID %s, was %s)", pid, main)
	}
	if statuses() != bothFaultFree {
		t.Errorf("after the reloads the agent holds %q", statuses())
	}
	journal := s.run("journalctl", "-u", "diagagent", "--no-pager", "-o", "cat")
	for _, want := range []string{"SIGHUP: the node list or the keys change at the next interval", "Reloaded diagagent"} {
		if !strings.Contains(journal, want) {
			t.Errorf("the journal lacks %q", want)
		}
	}

	s.run("systemctl", "stop", "diagagent")
	if st, res := s.show("diagagent", "ActiveState"), s.show("diagagent", "Result"); st != "inactive" || res != "success" {
		t.Errorf("after systemctl stop the unit is %s, result %s; want inactive, success", st, res)
	}
	if _, err := os.Stat("/var/lib/private/diagagent"); err != nil {
		t.Errorf("the unit's StateDirectory: %v", err)
	}
}
