//go:build integration && linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// icingaConf is an Icinga 2 configuration of one host and one service,
// checked every second: %[1]s is the CheckCommand "diagagent", %[2]s the
// service's vars. Its PerfdataWriter writes every check result of the
// service into %[3]s/service-perfdata.*, one line each: when, the state
// Icinga took from the plugin's exit code, the output, and the
// performance data as Icinga parsed it.
const icingaConf = `include <itl>
object CheckerComponent "checker" { }
%[1]s
object Host "lan" {
  check_command = "dummy"
  check_interval = 1m
}
object Service "diagagent" {
  host_name = "lan"
  check_command = "diagagent"
  check_interval = 1s
  retry_interval = 1s
  max_check_attempts = 1
%[2]s}
object PerfdataWriter "results" {
  service_perfdata_path = "%[3]s/service-perfdata"
  service_temp_path = "%[3]s/service-perfdata.tmp"
  host_perfdata_path = "%[3]s/host-perfdata"
  host_temp_path = "%[3]s/host-perfdata.tmp"
  service_format_template = "TIMET::$icinga.timet$\tSTATE::$service.state$\tOUTPUT::$service.output$\tPERFDATA::$service.perfdata$"
  rotation_interval = 1s
}
`

// documentedCheckCommand is docs/operations.md's CheckCommand for
// diagagent check, with bin for /usr/bin/diagagent.
func documentedCheckCommand(t *testing.T, bin string) string {
	t.Helper()
	doc, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "\n```\nobject CheckCommand \"diagagent\" {")
	block, _, closed := strings.Cut(rest, "\n```\n")
	if !ok || !closed || !strings.Contains(block, `"/usr/bin/diagagent"`) {
		t.Fatalf("docs/operations.md has no CheckCommand \"diagagent\" block naming /usr/bin/diagagent")
	}
	return `object CheckCommand "diagagent" {` + strings.Replace(block, `"/usr/bin/diagagent"`, strconv.Quote(bin), 1)
}

// icinga is an Icinga 2 daemon (Debian's icinga2-bin) running one check,
// as a monitoring system runs a plugin: its own process, its own
// environment, its exit code and output parsed by Icinga.
type icinga struct {
	t   *testing.T
	dir string
}

// icingaResult is one check result as Icinga recorded it.
type icingaResult struct {
	when                    int64
	state, output, perfdata string
}

// startIcinga runs Icinga 2 with checkCommand (an Icinga object
// CheckCommand "diagagent") as the service's check, with vars as the
// service's custom variables, its files in a directory of the test's
// own; it ends with the test.
func startIcinga(t *testing.T, checkCommand string, vars map[string]string) *icinga {
	t.Helper()
	if _, err := exec.LookPath("icinga2"); err != nil {
		t.Fatalf("icinga2: %v (scripts/test-deps.sh installs icinga2-bin)", err)
	}
	ic := &icinga{t: t, dir: t.TempDir()}
	var v strings.Builder
	for name, value := range vars {
		fmt.Fprintf(&v, "  vars.%s = %s\n", name, strconv.Quote(value))
	}
	conf := filepath.Join(ic.dir, "icinga2.conf")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf(icingaConf, checkCommand, v.String(), ic.dir)), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"daemon", "-c", conf, "-DRunAsUser=root", "-DRunAsGroup=root", "-DPidPath=" + filepath.Join(ic.dir, "icinga2.pid")}
	for _, d := range []string{"DataDir", "LogDir", "CacheDir", "SpoolDir", "InitRunDir"} {
		p := filepath.Join(ic.dir, d)
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		args = append(args, "-D"+d+"="+p)
	}
	cmd := exec.Command("icinga2", args...)
	out, err := os.Create(filepath.Join(ic.dir, "daemon.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, out
	// Its own process group: Icinga runs as an umbrella, a main process
	// and a spawn helper, and the group ends them all.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		if t.Failed() {
			t.Logf("icinga2 daemon:\n%s", ic.log())
		}
	})
	return ic
}

// results are the check results Icinga has written so far, oldest first.
func (ic *icinga) results() []icingaResult {
	files, _ := filepath.Glob(filepath.Join(ic.dir, "service-perfdata*"))
	var all []icingaResult
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, l := range strings.Split(string(b), "\n") {
			r := icingaResult{}
			for _, field := range strings.Split(l, "\t") {
				k, v, _ := strings.Cut(field, "::")
				switch k {
				case "TIMET":
					r.when, _ = strconv.ParseInt(v, 10, 64)
				case "STATE":
					r.state = v
				case "OUTPUT":
					r.output = v
				case "PERFDATA":
					r.perfdata = v
				}
			}
			if r.when > 0 {
				all = append(all, r)
			}
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].when < all[j].when })
	return all
}

// log is what the daemon has logged so far.
func (ic *icinga) log() string {
	b, _ := os.ReadFile(filepath.Join(ic.dir, "daemon.log"))
	return string(b)
}

// waitFor waits until Icinga records a check result in state, and
// returns it.
func (ic *icinga) waitFor(state string, timeout time.Duration) icingaResult {
	ic.t.Helper()
	var last icingaResult
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if rs := ic.results(); len(rs) > 0 {
			last = rs[len(rs)-1]
		}
		if last.state == state {
			return last
		}
	}
	ic.t.Fatalf("Icinga 2 did not record the check as %s within %v; its last result: %+v", state, timeout, last)
	return last
}
