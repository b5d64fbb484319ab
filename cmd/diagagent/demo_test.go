//go:build integration && linux

package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestMakeDemo runs scripts/demo.sh, the README's first command, with this
// test's build: it must end with agent 5 partial at every other agent and the
// station's notification about it.
func TestMakeDemo(t *testing.T) {
	cmd := exec.Command("../../scripts/demo.sh")
	cmd.Env = append(os.Environ(), "DIAGAGENT="+binPath(t), "DEMO_WAIT=0")
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
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
	for _, want := range []string{"DIAGNOSIS-MIB::diagNodeStatusChange", "diagEventStatus.", "INTEGER: partial(2)", "how=direct new=partial node=5"} {
		if !strings.Contains(text, want) {
			t.Fatalf("demo output lacks %q:\n%s", want, text)
		}
	}
}
