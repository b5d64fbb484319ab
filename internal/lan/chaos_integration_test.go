//go:build integration && linux

package lan

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestChaosOneMinute is the short chaos run of issue 13: 16 agents, a
// printer and a station, 1% loss on every host for a minute of random
// faults (SIGKILL and restart, SIGSTOP and SIGCONT, link down and up, the
// station going away and back), with every invariant checked (Chaos). The
// seed is random and logged; CHAOS_SEED replays one.
func TestChaosOneMinute(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("CHAOS_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("CHAOS_SEED=%q: %v", s, err)
		}
		seed = v
	}
	spec := ciSpec(t, "ch", "vcube", 16, true)
	spec.Retries, spec.Inform, spec.AtOnce = 2, true, true
	c := startCluster(t, spec)
	var log strings.Builder
	res, err := c.Chaos(ChaosSpec{Duration: time.Minute, Loss: 1, Seed: seed}, &log)
	t.Logf("seed %d (CHAOS_SEED=%d replays it)\n%s\n%s", seed, seed, log.String(), ChaosTable("CI", res))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Violations) > 0 {
		t.Fatalf("%d invariant violations:\n%s", len(res.Violations), strings.Join(res.Violations, "\n"))
	}
	if total := res.Faults[faults[0].name] + res.Faults[faults[1].name] + res.Faults[faults[2].name] + res.Faults[stationAway]; total < 2 || res.Expected == 0 {
		t.Fatalf("a minute of chaos injected %d faults and expected %d notifications: it tested nothing", total, res.Expected)
	}
}
