//go:build integration && linux

package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMakeDemo runs scripts/demo.sh, the README's first command, with this
// test's build and net-snmp's tools hidden, as on a fresh machine (a mount
// namespace of its own puts /dev/null, which does not run, over each): it
// must end with agent 5 partial at every other agent and the station's
// notification about it.
func TestMakeDemo(t *testing.T) {
	slot(t, false)
	hide := "for t in /usr/bin/snmp* /usr/sbin/snmpd /usr/sbin/snmptrapd; do [ -e \"$t\" ] && mount --bind /dev/null \"$t\"; done; " +
		"! snmpwalk -V 2>/dev/null || { echo 'snmpwalk still runs'; exit 1; }; exec ../../scripts/demo.sh"
	cmd := exec.Command("unshare", "-m", "--propagation", "private", "bash", "-c", hide)
	cmd.Env = append(os.Environ(), "DIAGAGENT="+binPath(t), "DEMO_WAIT=0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its agents with it, so that a timeout stops them all
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		t.Fatalf("demo still running after 2 minutes:\n%s", out)
	}
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	text := string(out)
	rows := regexp.MustCompile(`(?m)^  127\.0\.0\.\d:1161 +0 0 0 0 2 0 0 0 $`).FindAllString(text, -1)
	if len(rows) != 7 || !strings.Contains(text, "127.0.0.5:1161      (not answering)") {
		t.Fatalf("want 7 agents showing node 5 partial and agent 5 silent:\n%s", text)
	}
	for _, want := range []string{"diagNodeStatusChange from 127.0.0.", "diagEventStatus.", "= partial(2)", "how=direct new=partial node=5",
		"(with net-snmp's tools, apt-get install snmp"} {
		if !strings.Contains(text, want) {
			t.Fatalf("demo output lacks %q:\n%s", want, text)
		}
	}
}
