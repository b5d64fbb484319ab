//go:build integration && linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
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
	"/usr/share/diagagent", "/usr/share/doc/diagagent", "/var/lib/diagagent",
	"/usr/share/snmp/mibs/ietf/SNMPv2-SMI.txt",
}

// TestDebianPackage builds the package with `make deb` (nfpm), installs it
// with dpkg on this machine, checks what an administrator relies on (the
// installed configuration passes -config.check, systemd accepts the unit,
// net-snmp finds the MIB by name from anywhere, the manual page formats
// cleanly), and purges it, leaving nothing behind.
func TestDebianPackage(t *testing.T) {
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
	if v := sh(t, "/usr/bin/diagagent", "-version"); !strings.HasPrefix(v, "diagagent 0.1.0+git") {
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
	stageAsSystemd(t, string(unit))
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

// stageAsSystemd runs the unit's staging as systemd would, without a
// systemd to run it (this machine's PID 1 is none): its ExecStartPre=+
// line as root into a runtime directory owned by another user (nobody,
// standing for the dynamic user), then -config.check as that user on the
// staged copy; then, after the key file is edited, its ExecReload=+ line,
// which must hand that user the edited key.
func stageAsSystemd(t *testing.T, unit string) {
	t.Helper()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// Under /tmp itself, as /run/diagagent is under /run: t.TempDir's
	// parents are root's alone, which the service's user cannot traverse.
	run, err := os.MkdirTemp("", "diagagent-run-")
	must(err)
	t.Cleanup(func() { os.RemoveAll(run) })
	must(os.Chmod(run, 0o700))
	must(os.Chown(run, 65534, 65534))
	line := func(key string) []string {
		for _, l := range strings.Split(unit, "\n") {
			if v, ok := strings.CutPrefix(l, key+"=+"); ok {
				return strings.Fields(strings.ReplaceAll(v, "/run/diagagent", run))
			}
		}
		t.Fatalf("the unit has no %s=+ line", key)
		return nil
	}
	key := func() string {
		b, err := os.ReadFile("/etc/diagagent/keyring")
		must(err)
		return string(b)
	}
	staged := func(what string) string {
		t.Helper()
		for _, f := range []string{"diagagent.yaml", "keyring"} {
			fi, err := os.Stat(filepath.Join(run, f))
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if st := fi.Sys().(*syscall.Stat_t); fi.Mode().Perm() != 0o600 || st.Uid != 65534 {
				t.Errorf("%s: %s has mode %v, owner %d; want 0600 and the service's user", what, f, fi.Mode().Perm(), st.Uid)
			}
		}
		b, err := os.ReadFile(filepath.Join(run, "keyring"))
		must(err)
		return string(b)
	}
	start := line("ExecStartPre")
	sh(t, start[0], start[1:]...)
	if staged("ExecStartPre") != key() {
		t.Errorf("ExecStartPre staged a key other than /etc/diagagent/keyring's")
	}
	state := filepath.Join(run, "state") // systemd's StateDirectory, the service user's
	must(os.Mkdir(state, 0o700))
	must(os.Chown(state, 65534, 65534))
	if out := sh(t, "setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", "/usr/bin/diagagent",
		"-config", filepath.Join(run, "diagagent.yaml"), "-id", "0", "-state_dir", state, "-config.check"); !strings.Contains(out, "configuration is valid") {
		t.Errorf("-config.check as the service's user on the staged copy: %s", out)
	}
	sh(t, "sh", "-c", "umask 077 && /usr/bin/diagagent keygen > /etc/diagagent/keyring")
	reload := line("ExecReload")
	sh(t, reload[0], reload[1:]...)
	if staged("ExecReload") != key() {
		t.Errorf("after the key file was edited, ExecReload staged the old key")
	}
}
