//go:build linux && integration

package lan

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diagagent/diagagent/mib"
)

// release090 is the commit of 0.9.0 (tag v0.9.0): what LANs ran before the
// node list merged changes, and the release 1.0.0 upgrades from.
const release090 = "2af0946"

// buildRelease builds diagagent as it was at commit rev, from this
// repository's history, and returns the binary.
func buildRelease(t *testing.T, rev string) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	archive := exec.Command("sh", "-c", fmt.Sprintf("git -C %q archive %s | tar -x -C %q", root, rev, dir))
	if out, err := archive.CombinedOutput(); err != nil {
		t.Fatalf("git archive %s (the test needs the repository's history): %v\n%s", rev, err, out)
	}
	bin := filepath.Join(dir, "diagagent-"+rev)
	build := exec.Command("go", "build", "-trimpath", "-ldflags",
		"-X github.com/diagagent/diagagent/internal/version.Version=0.9.0", "-o", bin, "./cmd/diagagent")
	build.Dir, build.Env = dir, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", rev, err, out)
	}
	return bin
}

// TestMixedVersionLAN: 0.9.0, built from its commit, and this build on one
// LAN with the cluster key, half each. Together they converge and find a
// crash and a freeze. Every 0.9.0 agent is then upgraded, one at a time:
// the station gets no notification, and every status and the list stay as
// they were. A downgrade does what docs/upgrading.md says: 0.9.0 refuses
// the upgraded state and does not start; with the state set aside it
// starts afresh and rejoins.
func TestMixedVersionLAN(t *testing.T) {
	t.Parallel()
	admit(t, 16) // its 8 agents, and building 0.9.0 takes both cores for a while
	old := buildRelease(t, release090)
	spec := ciSpec(t, "mx", "vcube", 8, false)
	spec.Keyring = true
	c := buildCluster(t, spec)
	olds := []int{0, 2, 4, 6} // agent 1, the owner, runs 0.9.0
	for k := range 8 {
		bin := c.Bin
		if k%2 == 0 {
			bin = old
		}
		must(t, c.startAgent(k, bin, c.conf))
	}
	all := ids(8)
	settledIn(t, c, "0.9.0 and this build together", 2*c.Bound())

	mark := c.Station.Mark()
	must(t, c.KillAgent(3)) // this build's, its host up: partial
	expect(t, c, "agent 4 (this build) killed", mark, without(all, 3), 4, 2)
	mark = c.Station.Mark()
	must(t, c.StartAgent(3))
	expect(t, c, "agent 4 restarted", mark, all, 4, 0)
	mark = c.Station.Mark()
	must(t, c.Agent(4).Freeze()) // 0.9.0's
	expect(t, c, "agent 5 (0.9.0) frozen", mark, without(all, 4), 5, 2)
	mark = c.Station.Mark()
	must(t, c.Agent(4).Thaw())
	expect(t, c, "agent 5 thawed", mark, all, 5, 0)
	settledIn(t, c, "after the crash and the freeze", c.Bound())
	hash := listHashes(t, c, all)

	mark = c.Station.Mark()
	for _, k := range olds {
		must(t, c.StopAgent(k))
		must(t, c.StartAgent(k))
		settledIn(t, c, fmt.Sprintf("agent %d upgraded", k+1), c.Bound())
	}
	time.Sleep(c.PartialHeld() + c.RoundTime()) // what a held verdict would have sent
	if got := c.Station.Notifications(mark); len(DiagNotifications(got)) != 0 {
		t.Fatalf("upgrading four agents one at a time: the station got %d notifications:\n%v", len(DiagNotifications(got)), got)
	}
	if after := listHashes(t, c, all); after != hash {
		t.Fatalf("the node list changed across the upgrade: %s, then %s", hash, after)
	}
	t.Logf("upgraded 4 agents of 0.9.0 one at a time: 0 notifications, every node fault-free, one list (%s)", hash)

	// Downgrade agent 8: 0.9.0 refuses the state this build wrote.
	mark = c.Station.Mark()
	must(t, c.StopAgent(7))
	must(t, c.startAgent(7, old, c.conf))
	select {
	case <-c.Agent(7).Done():
	case <-time.After(30 * time.Second):
		t.Fatal("0.9.0 started on the state this build wrote; docs/upgrading.md says it refuses it")
	}
	c.agents[7] = nil
	logText, _ := os.ReadFile(filepath.Join(c.Dir, "agent8.log"))
	if !strings.Contains(string(logText), "unsupported version") {
		t.Fatalf("0.9.0 on this build's state: want it refused as of an unsupported version; its log:\n%s", tail(string(logText), 2000))
	}
	must(t, os.Rename(c.StateDir(7), c.StateDir(7)+".aside"))
	must(t, c.startAgent(7, old, c.conf))
	settledIn(t, c, "agent 8 downgraded on a fresh state", 2*c.Bound())
	t.Logf("downgraded agent 8: refused the state as docs/upgrading.md says, then rejoined on a fresh one")
}

// settledIn waits up to timeout until every agent holds every node fault-free.
func settledIn(t *testing.T, c *Cluster, what string, timeout time.Duration) {
	t.Helper()
	took, err := c.Poll(timeout, func() bool { return c.AllSee(ids(c.Agents), nodeIDs(c.Nodes()), 0) })
	if err != nil {
		t.Fatalf("%s: every agent holds every node fault-free: %v", what, err)
	}
	t.Logf("%s: every node fault-free everywhere after %v", what, took.Round(time.Millisecond))
}

// listHashes returns the node list fingerprint every agent of ks serves,
// failing unless they all serve one.
func listHashes(t *testing.T, c *Cluster, ks []int) string {
	t.Helper()
	var first string
	for _, k := range ks {
		out, err := c.snmp("snmpget", "public", c.AgentAddr(k), "-Oqvx", mib.DiagNodeListHash0)
		if err != nil {
			t.Fatalf("agent %d: diagNodeListHash: %v", k+1, err)
		}
		out = strings.TrimSpace(out)
		if first == "" {
			first = out
		} else if out != first {
			t.Fatalf("agent %d serves the list %s, agent 1 %s", k+1, out, first)
		}
	}
	return first
}

// tail is the last n bytes of s.
func tail(s string, n int) string { return s[max(0, len(s)-n):] }
