//go:build integration && linux

package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bootOuter runs on this host: it puts itself in a cgroup of its own in
// the cgroup2 hierarchy, prints that cgroup, and becomes the parent of
// new cgroup, PID, mount, network and UTS namespaces whose PID 1 runs
// bootInner ($1). --kill-child ends the namespaces if the parent dies.
const bootOuter = `set -eu
root=$(findmnt -n -t cgroup2 -o TARGET | head -n 1)
[ -n "$root" ] || { echo "no cgroup2 hierarchy is mounted" >&2; exit 1; }
cg="$root/diagagent-test-$$"
mkdir "$cg"
echo $$ > "$cg/cgroup.procs"
echo "$cg"
exec unshare --cgroup --pid --fork --kill-child --mount --net --uts --mount-proc sh -c "$1"
`

// bootInner runs as PID 1 of the namespaces and becomes systemd. Its
// mounts are its own: a cgroup2 file system rooted at the cgroup above
// (so systemd runs in the unified layout without touching the host's
// hierarchy), and empty /run, /tmp and /var/tmp (the copies of other
// tests' namespaces pinned under /run/netns let go first), so what systemd makes
// or cleans at boot (tmpfiles' "D /tmp") never reaches the host's. It
// boots to a target of its own, journald and nothing else: no unit the
// host enables (snmpd, a database) starts. The journal stays in memory.
const bootInner = `set -eu
mount --make-rprivate /
# Other tests' network namespaces, pinned under /run/netns: let go of them.
umount -R -l /run/netns 2>/dev/null || true
mount -t cgroup2 cgroup2 /sys/fs/cgroup
mount -t tmpfs -o mode=0755 tmpfs /run
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=1777 tmpfs /var/tmp
mkdir -p /run/systemd/system /run/systemd/journald.conf.d
printf '[Journal]\nStorage=volatile\n' > /run/systemd/journald.conf.d/diagagent-test.conf
printf '[Unit]\nDescription=diagagent test boot\nRequires=systemd-journald.socket\nAfter=systemd-journald.socket\n' > /run/systemd/system/diagagent-test.target
ip link set lo up
exec env container=diagagent-test /lib/systemd/systemd --unit=diagagent-test.target
`

// systemdNS is a real systemd, booted as PID 1 of namespaces of its own
// (this machine's PID 1 is none). It sees this host's files, so a unit a
// package installed here is one it can start; its network is a loopback
// of its own.
type systemdNS struct {
	t   *testing.T
	pid int // systemd, as this host numbers it
}

// bootSystemd boots systemd and waits until it says it is running. The
// namespaces, and everything in them, end with the test.
func bootSystemd(t *testing.T) *systemdNS {
	t.Helper()
	for _, tool := range []string{"unshare", "nsenter", "findmnt", "/lib/systemd/systemd"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s: %v (scripts/test-deps.sh installs systemd and util-linux)", tool, err)
		}
	}
	cmd := exec.Command("sh", "-c", bootOuter, "boot", bootInner)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	cgroup := strings.TrimSpace(line)
	if err != nil || !strings.HasPrefix(cgroup, "/sys/fs/cgroup") {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("booting systemd: %v %q\n%s", err, line, stderr.String())
	}
	s := &systemdNS{t: t}
	t.Cleanup(func() {
		if s.pid > 0 {
			syscall.Kill(s.pid, syscall.SIGKILL) // PID 1: the kernel ends its namespace with it
		}
		cmd.Process.Kill()
		cmd.Wait()
		// A cgroup is removed once no process is left in it or below.
		waitUntil(t, "the namespaces' processes gone", 10*time.Second, func() bool {
			b, err := os.ReadFile(filepath.Join(cgroup, "cgroup.events"))
			return err != nil || strings.Contains(string(b), "populated 0")
		})
		// Deepest first: systemd's slices and scopes, then the test's cgroup.
		var dirs []string
		filepath.WalkDir(cgroup, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, p)
			}
			return nil
		})
		for i := len(dirs) - 1; i >= 0; i-- {
			if err := os.Remove(dirs[i]); err != nil {
				t.Errorf("removing the test's cgroup: %v", err)
			}
		}
	})
	// unshare's one child is the namespaces' PID 1, sh until it execs systemd.
	children := fmt.Sprintf("/proc/%d/task/%d/children", cmd.Process.Pid, cmd.Process.Pid)
	waitUntil(t, "the namespaces' PID 1", 10*time.Second, func() bool {
		b, _ := os.ReadFile(children)
		f := strings.Fields(string(b))
		if len(f) == 1 {
			s.pid, _ = strconv.Atoi(f[0])
		}
		return s.pid > 0
	})
	var state string
	waitUntil(t, "systemd running", time.Minute, func() bool {
		b, _ := s.command("systemctl", "is-system-running").CombinedOutput()
		state = strings.TrimSpace(string(b))
		return state == "running" || state == "degraded"
	})
	if state == "degraded" {
		b, _ := s.command("systemctl", "--failed", "--no-pager").CombinedOutput()
		t.Fatalf("systemd booted degraded:\n%s", b)
	}
	return s
}

// command is name run inside the namespaces, as systemd sees the machine.
func (s *systemdNS) command(name string, args ...string) *exec.Cmd {
	return exec.Command("nsenter", append([]string{"-t", strconv.Itoa(s.pid), "-m", "-p", "-n", "-u", "-C", name}, args...)...)
}

// run runs name inside and fails the test if it fails.
func (s *systemdNS) run(name string, args ...string) string {
	s.t.Helper()
	out, err := s.command(name, args...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("%s %s (under systemd): %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// show is one property of a unit (systemctl show -p).
func (s *systemdNS) show(unit, prop string) string {
	s.t.Helper()
	return strings.TrimSpace(s.run("systemctl", "show", "-p", prop, "--value", unit))
}

// file is the path under which this host reads path as systemd's
// namespaces see it (their /run is theirs).
func (s *systemdNS) file(path string) string {
	return fmt.Sprintf("/proc/%d/root%s", s.pid, path)
}
