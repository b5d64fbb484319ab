//go:build integration && linux

package main

import (
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/diagagent/diagagent/internal/netsnmptest"
	"github.com/diagagent/diagagent/mib"
)

// TestFlappingLAN stops agent 4 (SIGSTOP) for 2 s of every 4 s for 28 s,
// on four agents at a 1 s interval with snmptrapd as the station, then
// lets it run: the station gets one diagNodeFlapping that it started and
// one that it stopped, from one agent, and at most two diagNodeStatusChange
// about node 4 between the two (from an agent that judged it flapping
// later); while it flaps, members says so.
func TestFlappingLAN(t *testing.T) {
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
	p := c.procs[3].Process
	for end := time.Now().Add(28 * time.Second); time.Now().Before(end); {
		for _, sig := range []syscall.Signal{syscall.SIGSTOP, syscall.SIGCONT} {
			if err := p.Signal(sig); err != nil {
				t.Fatal(err)
			}
			time.Sleep(2 * time.Second)
		}
	}
	start, err := trapd.Wait(time.Second, mark, flap)
	if err != nil {
		t.Fatalf("no diagNodeFlapping while agent 4 was stopped half the time: %v\n%s", err, strings.Join(trapd.Notifications(mark), "\n"))
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
	t.Logf("node 4: %d status notifications before it flapped, %d while it flapped, 2 diagNodeFlapping", before, during)
	// Each agent mutes a node it judges flapping; one whose samples, a
	// second apart, missed some of the changes may judge it later, and
	// notify a change meanwhile. Without flapping every change (about 14
	// while it flapped) would be notified.
	if during > 2 {
		t.Errorf("%d status notifications about node 4 while it flapped, want 2 at most", during)
	}
}
