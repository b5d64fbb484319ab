//go:build integration && linux

package main

import (
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestRelease runs make release and checks every artifact as this machine
// can: the set of files and their checksums, each binary's format and
// architecture (ELF, PE, Mach-O), the version and date every one carries,
// the arm64 binary and the arm64 package's binary under qemu-user, the
// RPMs with rpm, and two arm64 agents under qemu-user that diagnose each
// other.
func TestRelease(t *testing.T) {
	slot(t, true)
	dir := t.TempDir()
	sh(t, "make", "-C", "../..", "release", "RELEASE_DIR="+dir)
	hosts, _ := filepath.Glob(filepath.Join(dir, "diagagent_*_linux_amd64"))
	if len(hosts) != 1 {
		t.Fatalf("no single linux/amd64 binary in %s: %v", dir, hosts)
	}
	line := strings.TrimSpace(sh(t, hosts[0], "-version"))
	v := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(hosts[0]), "diagagent_"), "_linux_amd64")
	date := strings.TrimSpace(sh(t, "git", "log", "-1", "--format=%cd", "--date=format:%Y-%m-%d"))
	if !strings.HasPrefix(line, "diagagent "+v+" (") || !strings.HasSuffix(line, ", "+date+")") {
		t.Errorf("-version of %s printed %q, want version %s and date %s", hosts[0], line, v, date)
	}
	pv := strings.ReplaceAll(v, "-", "~") // a prerelease sorts before its release in dpkg and rpm
	want := []string{"SHA256SUMS", "diagagent-" + pv + "-1.aarch64.rpm", "diagagent-" + pv + "-1.x86_64.rpm",
		"diagagent_" + pv + "_amd64.deb", "diagagent_" + pv + "_arm64.deb", "diagagent_" + v + "_darwin_amd64",
		"diagagent_" + v + "_darwin_arm64", "diagagent_" + v + "_linux_amd64", "diagagent_" + v + "_linux_arm64",
		"diagagent_" + v + "_windows_amd64.exe"}
	entries, _ := os.ReadDir(dir)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("make release made\n%v\nwant\n%v", got, want)
	}
	sum := exec.Command("sha256sum", "-c", "--strict", "SHA256SUMS")
	sum.Dir = dir
	if out, err := sum.CombinedOutput(); err != nil || strings.Count(string(out), ": OK") != len(want)-1 {
		t.Errorf("sha256sum -c SHA256SUMS: %v\n%s", err, out)
	}
	bin := func(suffix string) string { return filepath.Join(dir, "diagagent_"+v+"_"+suffix) }
	checkELF(t, bin("linux_amd64"), elf.EM_X86_64)
	checkELF(t, bin("linux_arm64"), elf.EM_AARCH64)
	if f, err := pe.Open(bin("windows_amd64.exe")); err != nil || f.Machine != pe.IMAGE_FILE_MACHINE_AMD64 {
		t.Errorf("windows_amd64.exe: %v, not an amd64 PE executable", err)
	}
	for suffix, cpu := range map[string]macho.Cpu{"darwin_arm64": macho.CpuArm64, "darwin_amd64": macho.CpuAmd64} {
		if f, err := macho.Open(bin(suffix)); err != nil || f.Cpu != cpu || f.Type != macho.TypeExec {
			t.Errorf("%s: %v, not a Mach-O executable for %v", suffix, err, cpu)
		}
	}
	arm := bin("linux_arm64")
	if out := strings.TrimSpace(sh(t, "qemu-aarch64", arm, "-version")); out != line {
		t.Errorf("qemu-aarch64 %s -version printed %q, want %q", arm, out, line)
	}
	deb := filepath.Join(dir, "diagagent_"+pv+"_arm64.deb")
	if a := strings.TrimSpace(sh(t, "dpkg-deb", "-f", deb, "Architecture")); a != "arm64" {
		t.Errorf("%s: Architecture %q", deb, a)
	}
	root := filepath.Join(t.TempDir(), "arm64")
	sh(t, "dpkg-deb", "-x", deb, root)
	if out := strings.TrimSpace(sh(t, "qemu-aarch64", filepath.Join(root, "usr/bin/diagagent"), "-version")); out != line {
		t.Errorf("the arm64 package's binary under qemu-aarch64 printed %q, want %q", out, line)
	}
	if got := strings.TrimSpace(sh(t, "dpkg-deb", "-f", deb, "Version")); got != pv {
		t.Errorf("%s: Version %q, want %q", deb, got, pv)
	}
	for arch, file := range map[string]string{"x86_64": "diagagent-" + pv + "-1.x86_64.rpm", "aarch64": "diagagent-" + pv + "-1.aarch64.rpm"} {
		checkRPM(t, filepath.Join(dir, file), arch, pv)
	}

	c := newCluster(t, clusterSpec{algo: "vcube", agents: 2, station: "127.0.0.100:9"})
	c.runWith = map[int][]string{0: {"qemu-aarch64", arm}, 1: {"qemu-aarch64", arm}}
	c.startAll()
	bound := latencyBound("vcube", 2)
	c.waitFor("the two arm64 agents hold each other fault-free", 2*bound, func() bool { return c.allFaultFree(2) })
	c.stop(1, syscall.SIGTERM)
	c.waitFor("arm64 agent 1 holds the stopped agent 2 partial", 2*bound, func() bool { return c.everyoneSees(2, 2) })
}

// checkELF checks that path is a static ELF executable for machine.
func checkELF(t *testing.T, path string, machine elf.Machine) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Errorf("%s: %v", path, err)
		return
	}
	defer f.Close()
	static := true
	for _, p := range f.Progs {
		static = static && p.Type != elf.PT_INTERP
	}
	if f.Machine != machine || f.Type != elf.ET_EXEC || !static {
		t.Errorf("%s: %v %v, static %v; want a static %v executable", path, f.Machine, f.Type, static, machine)
	}
}

// checkRPM checks an RPM with rpm: its name, version and architecture, its
// digests, its files and configuration file, its scriptlets and what it
// recommends.
func checkRPM(t *testing.T, path, arch, version string) {
	t.Helper()
	if got := sh(t, "rpm", "-qp", "--qf", "%{NAME} %{VERSION} %{ARCH}", path); got != "diagagent "+version+" "+arch {
		t.Errorf("%s: %q, want diagagent %s %s", path, got, version, arch)
	}
	if out := sh(t, "rpm", "-K", "--nosignature", path); !strings.Contains(out, "digests OK") {
		t.Errorf("rpm -K %s: %s", path, out)
	}
	files := sh(t, "rpm", "-qpl", path)
	for _, f := range []string{"/usr/bin/diagagent", "/lib/systemd/system/diagagent.service", "/etc/diagagent/diagagent.yaml",
		"/usr/share/man/man8/diagagent.8.gz", "/usr/share/snmp/mibs/DIAGNOSIS-MIB.txt", "/usr/share/diagagent/mibs/ietf/SNMPv2-SMI.txt"} {
		if !strings.Contains(files, f+"\n") {
			t.Errorf("%s does not hold %s:\n%s", path, f, files)
		}
	}
	if conf := sh(t, "rpm", "-qp", "--configfiles", path); strings.TrimSpace(conf) != "/etc/diagagent/diagagent.yaml" {
		t.Errorf("%s: configuration files %q", path, conf)
	}
	scripts := sh(t, "rpm", "-qp", "--scripts", path)
	for _, s := range []string{"postinstall scriptlet", "preuninstall scriptlet", "postuninstall scriptlet", "systemctl --no-reload disable --now diagagent.service"} {
		if !strings.Contains(scripts, s) {
			t.Errorf("%s: no %q in its scriptlets:\n%s", path, s, scripts)
		}
	}
	if rec := sh(t, "rpm", "-qp", "--recommends", path); !strings.Contains(rec, "net-snmp-utils") {
		t.Errorf("%s recommends %q, want net-snmp-utils", path, rec)
	}
}
