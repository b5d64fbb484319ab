//go:build integration && linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/diagagent/diagagent/internal/netsnmptest"
	"github.com/diagagent/diagagent/mib"
)

// TestFlappingLAN kills agent 4 and starts it again, down 2 s and up 2 s,
// for 28 s, on four agents at a 1 s interval with snmptrapd as the
// station, then lets it run (a member stopped half the time with SIGSTOP
// answers its testers now and then, which they measure as a lossy link:
// docs/design.md): the station gets one diagNodeFlapping that it started and
// one that it stopped, from one agent; no agent notifies a change of node 4
// while it judges it flapping (its log shows every such change muted), and
// each status notification the station gets between the two is a change
// its detector logged unmuted, judging the node flapping later; while it
// flaps, members says so.
func TestFlappingLAN(t *testing.T) {
	slot(t, false)
	station := fmt.Sprintf("127.0.0.100:%d", netsnmptest.FreeUDPPort(t, "127.0.0.100"))
	trapd := netsnmptest.StartTrapd(t, station, nil, "-On")
	c := newCluster(t, clusterSpec{algo: "vcube", agents: 4, station: station})
	c.startAll()
	bound := latencyBound("vcube", 4)
	c.waitFor("every node fault-free", 2*bound, func() bool { return c.allFaultFree(4) })
	isFlap := regexp.MustCompile(`OID: ` + regexp.QuoteMeta(mib.DiagNodeFlapping) + `\b`)
	isChange := regexp.MustCompile(`OID: ` + regexp.QuoteMeta(mib.DiagNodeStatusChange) + `\b`)
	flap := func(l string) bool { return strings.HasPrefix(l, "NOTIFY ") && isFlap.MatchString(l) }
	about4 := regexp.MustCompile(regexp.QuoteMeta(mib.DiagEventNodeID) + `\.\d+ = INTEGER: 4\b`)
	node4 := func(l string) bool {
		return strings.HasPrefix(l, "NOTIFY ") && isChange.MatchString(l) && about4.MatchString(l)
	}
	mark := trapd.Mark()
	for end := time.Now().Add(28 * time.Second); time.Now().Before(end); {
		c.stop(3, syscall.SIGKILL)
		time.Sleep(2 * time.Second)
		c.start(3)
		time.Sleep(2 * time.Second)
	}
	start, err := trapd.Wait(time.Second, mark, flap)
	if err != nil {
		t.Fatalf("no diagNodeFlapping while agent 4 crashed and came back every 4 s: %v\n%s", err, strings.Join(trapd.Notifications(mark), "\n"))
	}
	out, _ := exec.Command(binPath(t), "members", "-config", c.conf, "-agent", c.addr(0), "-community", "public").Output()
	if !strings.Contains(string(out), " yes ") {
		t.Errorf("members while node 4 flaps:\n%s", out)
	}
	stop, err := trapd.Wait(40*time.Second, start+1, flap)
	if err != nil {
		t.Fatalf("no diagNodeFlapping saying node 4 stopped flapping: %v", err)
	}
	lines := trapd.All()
	flapping := regexp.MustCompile(regexp.QuoteMeta(mib.NodeFlapping) + `\.4 = INTEGER: (\d)`)
	if a, b := flapping.FindStringSubmatch(lines[start]), flapping.FindStringSubmatch(lines[stop]); a == nil || b == nil || a[1] != "1" || b[1] != "2" {
		t.Errorf("the flapping notifications read:\n%s\n%s\nwant nodeFlapping true(1), then false(2)", lines[start], lines[stop])
	}
	before, during := 0, 0
	for k := mark; k < len(lines); k++ {
		switch {
		case node4(lines[k]) && k < start:
			before++
		case node4(lines[k]) && k < stop:
			during++
		case flap(lines[k]) && k != start && k != stop:
			t.Errorf("another diagNodeFlapping: %s", lines[k])
		}
	}
	changes := mutedWhileFlapping(t, c, 3, 4)
	t.Logf("node 4: %d status notifications before it flapped, %d while it flapped (agent 1 muted %d changes), 2 diagNodeFlapping", before, during, changes)
	if changes < 4 {
		t.Errorf("agent 1 muted %d changes of node 4 while it flapped, want the changes of the 2 s cycles (4 or more)", changes)
	}
	// Each agent mutes a node it judges flapping (mutedWhileFlapping checks
	// every log); the owner (agent 1, traps.scope owner) notifies, and if its
	// samples, a second apart, missed some of the changes it judges the node
	// later and may notify a change meanwhile: each notification the station
	// got while the node flapped is such a change, logged unmuted by the
	// agent that sent it.
	sender := regexp.MustCompile(`^NOTIFY UDP: \[127\.0\.0\.(\d+)\]`)
	seq := regexp.MustCompile(regexp.QuoteMeta(mib.DiagEventNodeID) + `\.(\d+) = INTEGER: 4\b`)
	for k := start + 1; k < stop; k++ {
		if !node4(lines[k]) {
			continue
		}
		from, ev := sender.FindStringSubmatch(lines[k]), seq.FindStringSubmatch(lines[k])
		if from == nil || ev == nil {
			t.Errorf("a notification about node 4 names no sender or event: %s", lines[k])
			continue
		}
		a, _ := strconv.Atoi(from[1])
		if a < 1 || a > 3 || !loggedUnmuted(t, c.logs[a-1], ev[1], 4) {
			t.Errorf("agent %d notified change seq %s of node 4 while node 4 flapped, and its log does not show it unmuted: %s", a, ev[1], lines[k])
		}
	}
}

// loggedUnmuted reports whether the agent's log shows its event seq, a
// change of node, as not muted.
func loggedUnmuted(t *testing.T, log, seq string, node int) bool {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, `msg="node status changed"`) && strings.Contains(l+" ", fmt.Sprintf(" node=%d ", node)) &&
			strings.Contains(l+" ", " seq="+seq+" ") {
			return !strings.Contains(l, "muted=")
		}
	}
	return false
}

// mutedWhileFlapping checks the log of each of the first agents agents:
// from its "node flapping" line about node to its "node no longer
// flapping", every change it logs of node is muted. It returns how many
// agent 1 muted so.
func mutedWhileFlapping(t *testing.T, c *cluster, agents, node int) int {
	t.Helper()
	about := fmt.Sprintf(" node=%d ", node)
	first := 0
	for k := range agents {
		b, err := os.ReadFile(c.logs[k])
		if err != nil {
			t.Fatal(err)
		}
		flapping, muted := false, 0
		for _, l := range strings.Split(string(b), "\n") {
			if !strings.Contains(l+" ", about) {
				continue
			}
			switch {
			case strings.Contains(l, `msg="node flapping`):
				flapping = true
			case strings.Contains(l, `msg="node no longer flapping"`):
				flapping = false
			case flapping && strings.Contains(l, `msg="node status changed"`):
				if !strings.Contains(l, "muted=") {
					t.Errorf("agent %d logged a change of node %d it did not mute while it judged it flapping: %s", k+1, node, l)
				}
				muted++
			}
		}
		if k == 0 {
			first = muted
		}
	}
	return first
}
