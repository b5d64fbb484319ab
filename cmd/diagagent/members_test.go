//go:build integration && linux

package main

import (
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMembersAndCheck runs four agents with a cluster key and asks agent 1
// with the binary, as an operator's shell and a monitoring system would:
// diagagent members prints one row per node (the table, and JSON, with each
// agent's version under -versions), and
// diagagent check exits 0 with every node fault-free, 1 (WARNING) once
// agent 3 is stopped (partial), 0 again with -warning 1, 0 for -node 2 and
// 1 for -node 3, and 3 (UNKNOWN) against an agent that does not answer;
// every run prints one line with its performance data. diagagent
// maintenance (with the cluster key) puts node 3 in maintenance, which
// members shows and check counts apart (OK), and -end takes it out.
func TestMembersAndCheck(t *testing.T) {
	slot(t, false)
	c := newCluster(t, clusterSpec{algo: "vcube", agents: 4, station: "127.0.0.100:9", keyring: true})
	c.startAll()
	bound := latencyBound("vcube", 4)
	c.waitFor("every node fault-free", 2*bound, func() bool { return c.allFaultFree(4) })
	cli := func(args ...string) (string, int) {
		cmd := exec.Command(binPath(t), append(args[:1:1], append([]string{"-config", c.conf, "-agent", c.addr(0)}, args[1:]...)...)...)
		out, err := cmd.Output()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatalf("diagagent %v: %v", args, err)
		}
		return string(out), cmd.ProcessState.ExitCode()
	}
	out, code := cli("members")
	if code != 0 || strings.Count(out, "fault-free") != 4 || !strings.HasPrefix(out, "ID") {
		t.Fatalf("members: exit %d\n%s", code, out)
	}
	if out, _ := cli("members", "-causes"); out != "every node fault-free\n" {
		t.Errorf("members -causes with every node fault-free: %q", out)
	}
	out, _ = cli("members", "-versions", "-format", "json")
	var rows []member
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 4 || rows[2].Address != c.addr(2) {
		t.Fatalf("members -versions -format json: %v\n%s", err, out)
	}
	for _, r := range rows { // every agent is this build: its version, as -version prints it
		if ver, _ := exec.Command(binPath(t), "-version").Output(); r.Build == "" || !strings.HasPrefix(string(ver), "diagagent "+r.Build+" (") {
			t.Errorf("members -versions: node %d at version %q; the binary says %q", r.ID, r.Build, ver)
		}
	}
	check := func(want int, wantLine string, args ...string) {
		t.Helper()
		out, code := cli(append([]string{"check"}, args...)...)
		if code != want || strings.Count(out, "\n") != 1 || !strings.Contains(out, wantLine) || !strings.Contains(out, "| fault_free=") {
			t.Errorf("check %v: exit %d, %q; want exit %d and one line with %q and perfdata", args, code, out, want, wantLine)
		}
	}
	check(0, "DIAGAGENT OK - 4 of 4 nodes fault-free")
	// Icinga 2 runs it every second, through docs/operations.md's CheckCommand.
	ic := startIcinga(t, documentedCheckCommand(t, binPath(t)), map[string]string{"diagagent_config": c.conf, "diagagent_agent": c.addr(0)})
	r := ic.waitFor("OK", 30*time.Second)
	// Icinga keeps the space before the perfdata's bar.
	if strings.TrimSpace(r.output) != "DIAGAGENT OK - 4 of 4 nodes fault-free" || !strings.HasPrefix(r.perfdata, "fault_free=4;;;0;4 degraded=0;;;0;4 partial=0;;;0;4 ") {
		t.Errorf("Icinga 2 recorded OK with output %q and perfdata %q", r.output, r.perfdata)
	}
	c.stop(2, syscall.SIGTERM)
	c.waitFor("node 3 partial", 2*bound, func() bool { return c.everyoneSees(3, 2, 2) })
	r = ic.waitFor("WARNING", 30*time.Second)
	if want := "DIAGAGENT WARNING - 3 of 4 nodes fault-free: node 3 (" + c.addr(2) + ") partial"; strings.TrimSpace(r.output) != want || !strings.Contains(r.perfdata, "partial=1;;;0;4") {
		t.Errorf("Icinga 2 recorded WARNING with output %q and perfdata %q; want %q and partial=1", r.output, r.perfdata, want)
	}
	for _, l := range strings.Split(ic.log(), "\n") {
		if strings.Contains(l, "warning/") || strings.Contains(l, "critical/") {
			t.Errorf("Icinga 2 warned: %s", l)
		}
	}
	out, _ = cli("members")
	if !strings.Contains(out, "partial") || !strings.Contains(out, "tested here") && !strings.Contains(out, "node ") {
		t.Errorf("members after agent 3 stopped:\n%s", out)
	}
	check(1, "DIAGAGENT WARNING - 3 of 4 nodes fault-free: node 3 ("+c.addr(2)+") partial")
	if out, _ := cli("members", "-causes"); out != "node 3 ("+c.addr(2)+") partial\n" {
		t.Errorf("members -causes with node 3 partial: %q", out)
	}
	check(0, "DIAGAGENT OK", "-warning", "1")
	check(0, "DIAGAGENT OK - 1 of 1 nodes fault-free", "-node", "2")
	check(1, "DIAGAGENT WARNING", "-node", "3")
	if out, code := cli("maintenance", "-node", "3"); code != 2 {
		t.Errorf("maintenance with neither -for, -until nor -end: exit %d, %q; want 2", code, out)
	}
	if out, code := cli("maintenance", "-node", "3", "-for", "10m"); code != 0 || !strings.Contains(out, "node 3: in maintenance until") ||
		!strings.Contains(out, "every answering agent (3 of 4) holds the change") || !strings.Contains(out, "not answering, so not asked: node 3") {
		t.Fatalf("maintenance -node 3 -for 10m: exit %d, %q; want it to wait for the 3 agents answering (agent 3 is stopped)", code, out)
	}
	c.waitFor("node 3's window at agent 1", 2*bound, func() bool {
		out, _ := cli("members", "-format", "json")
		var rows []member
		return json.Unmarshal([]byte(out), &rows) == nil && len(rows) == 4 && rows[2].Maintenance != nil
	})
	if out, _ := cli("members"); !strings.Contains(out, "MAINTENANCE") || !strings.Contains(out, "until ") {
		t.Errorf("members with node 3 in maintenance:\n%s", out)
	}
	check(0, "DIAGAGENT OK - 3 of 4 nodes fault-free: node 3 ("+c.addr(2)+") partial (maintenance)")
	if out, _ := cli("check"); !strings.Contains(out, "maintenance=1;") {
		t.Errorf("check's perfdata with node 3 in maintenance: %q", out)
	}
	if out, code := cli("maintenance", "-node", "3", "-end"); code != 0 || !strings.Contains(out, "ended") {
		t.Fatalf("maintenance -node 3 -end: exit %d, %q", code, out)
	}
	c.waitFor("node 3's window ended at agent 1", 2*bound, func() bool {
		_, code := cli("check")
		return code == 1
	})
	out, code = cli("check", "-agent", c.addr(2), "-timeout", "2s")
	if code != 3 || !strings.HasPrefix(out, "DIAGAGENT UNKNOWN - cannot read agent") {
		t.Errorf("check against a stopped agent: exit %d, %q; want 3 (UNKNOWN)", code, out)
	}
}
