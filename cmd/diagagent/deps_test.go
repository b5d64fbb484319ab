package main

import (
	"os/exec"
	"runtime"
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

// TestLeanHeap: the agent sets GOGC and GOMAXPROCS unless its environment
// gives them.
func TestLeanHeap(t *testing.T) {
	was, procs := debug.SetGCPercent(100), runtime.GOMAXPROCS(0)
	defer debug.SetGCPercent(was)
	defer runtime.GOMAXPROCS(procs)
	for _, env := range [][]string{{"PATH=/bin"}, {"GOGC=", "GOMAXPROCS="}} {
		runtime.GOMAXPROCS(2)
		leanHeap(env)
		if got := debug.SetGCPercent(100); got != agentGOGC {
			t.Errorf("GOGC %d with the environment %q; want %d", got, env, agentGOGC)
		}
		if got := runtime.GOMAXPROCS(0); got != agentProcs {
			t.Errorf("GOMAXPROCS %d with the environment %q; want %d", got, env, agentProcs)
		}
	}
	runtime.GOMAXPROCS(2)
	leanHeap([]string{"GOGC=200", "GOMAXPROCS=2"})
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC %d with GOGC=200 given; want the runtime's own reading of it left alone (100 here)", got)
	}
	if got := runtime.GOMAXPROCS(0); got != 2 {
		t.Errorf("GOMAXPROCS %d with GOMAXPROCS=2 given; want it left alone", got)
	}
}
