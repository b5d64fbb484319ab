package main

import (
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
)

// heavyDeps are packages the agent was built without to keep its resident
// memory below memberlist's (docs/versus.md): client_golang and the
// protobuf runtime took 3.7 MB of each agent's RSS; agent/metrics writes
// the same text.
var heavyDeps = []string{"google.golang.org/protobuf/", "github.com/prometheus/client_golang/", "github.com/prometheus/procfs"}

// TestAgentLeavesHeavyDepsOut lists what the agent binary links and fails
// on any heavy package: adding one back must be a decision, with the
// memory re-measured, not an import made in passing.
func TestAgentLeavesHeavyDepsOut(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for p := range strings.FieldsSeq(string(out)) {
		for _, h := range heavyDeps {
			if strings.HasPrefix(p, h) || p == strings.TrimSuffix(h, "/") {
				t.Errorf("the agent links %s", p)
			}
		}
	}
}

// TestLeanHeap: the agent sets GOGC=50 unless its environment gives GOGC.
func TestLeanHeap(t *testing.T) {
	was := debug.SetGCPercent(100)
	defer debug.SetGCPercent(was)
	for _, env := range [][]string{{"PATH=/bin"}, {"GOGC="}} {
		leanHeap(env)
		if got := debug.SetGCPercent(100); got != agentGOGC {
			t.Errorf("GOGC %d with the environment %q; want %d", got, env, agentGOGC)
		}
	}
	leanHeap([]string{"GOGC=200"})
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC %d with GOGC=200 given; want the runtime's own reading of it left alone (100 here)", got)
	}
}
