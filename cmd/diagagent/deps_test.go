package main

import (
	"os/exec"
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
