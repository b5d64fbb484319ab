//go:build integration && linux

package lan

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestVersusCrash is the short version of make versus: 8 hosts, each with a
// memberlist member (cmd/swimmember, built from its own module) and a
// diagagent at memberlist's timing; one member of each is killed with
// SIGKILL and restarted. Both systems must learn the crash and the restart
// everywhere, and the steady window must have counted both systems' traffic.
func TestVersusCrash(t *testing.T) {
	t.Parallel()
	admit(t, 16) // 8 agents, 8 memberlist members
	swim := filepath.Join(t.TempDir(), "swimmember")
	if out, err := exec.Command("go", "build", "-C", "../../cmd/swimmember", "-o", swim, ".").CombinedOutput(); err != nil {
		t.Fatalf("build swimmember: %v\n%s", err, out)
	}
	spec := VersusSpec{N: 8, Dir: t.TempDir(), DiagBin: binPath(t), SwimBin: swim, SwimProbe: time.Second, Algorithm: "vcube",
		Settings: []Setting{{Label: "diagagent 1 s", Interval: time.Second, Timeout: 500 * time.Millisecond,
			Retries: 2, PingTimeout: time.Second, PingCount: 1}},
		Steady: 10 * time.Second, Cap: time.Minute, Kinds: []string{"crash"}, Startup: time.Minute}
	var log strings.Builder
	r, err := Versus(spec, &log)
	t.Logf("%s\n%s", log.String(), VersusTables(r))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Systems) != 2 || len(r.Steady) != 2 || len(r.Events) != 2 {
		t.Fatalf("got %d systems, %d costs and %d events: want 2, 2 and 2 (crash, repaired)", len(r.Systems), len(r.Steady), len(r.Events))
	}
	for i, c := range r.Steady {
		if c.PacketsPerSec <= 0 || c.BytesPerSec <= 0 || c.RSSMB <= 0 {
			t.Errorf("%s: steady cost %+v: the counters or /proc saw nothing", r.Systems[i], c)
		}
	}
	for _, e := range r.Events {
		for i, k := range e.Per {
			if k.Of != spec.N-1 || k.Knew != k.Of || k.Last <= 0 || k.First > k.Median || k.Median > k.Last {
				t.Errorf("%s at %d: %s: %+v: want all %d live members to know, first <= median <= last", e.Event, e.Host, r.Systems[i], k, spec.N-1)
			}
		}
	}
}
