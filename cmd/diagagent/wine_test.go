//go:build integration && linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/diagagent/diagagent/agent/keyring"
	"github.com/diagagent/diagagent/internal/winetest"
)

// TestWindowsBuildUnderWine runs the windows/amd64 build under Debian's
// Wine (8.0) as far as Wine lets it: -version, and -config.check of a
// configuration that makes it node 4 of a LAN, pass; started as that
// agent, it stops at its SNMP socket, because Go's runtime turns off
// ICMP port-unreachable reports on every UDP socket (WSAIoctl
// SIO_UDP_CONNRESET) and Wine 8.0 answers WSAEOPNOTSUPP (10045). The test
// holds Wine to exactly that: the day a Wine runs it further, it fails
// and says so, and the mixed cluster of docs/platforms.md can be tested
// here. The state directory's tests then run under Wine as well
// (stateTestsUnderWine).
func TestWindowsBuildUnderWine(t *testing.T) {
	slot(t, true)
	prefix := winetest.Prefix(t)
	exe := winetest.Build(t, ".", t.TempDir())
	out, err := winetest.Run(prefix, exe, "-version")
	if err != nil || !strings.HasPrefix(out, "diagagent ") {
		t.Fatalf("%v: %s", err, out)
	}
	dir := t.TempDir()
	port := freePortOnAll(t, 4)
	var nodes strings.Builder
	for k := 1; k <= 4; k++ {
		fmt.Fprintf(&nodes, "  - {address: 127.0.0.%d, port: %d}\n", k, port)
	}
	k, err := keyring.Generate()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "keyring"), []byte(k.String()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "lan.yaml")
	yaml := fmt.Sprintf("snmp:\n  listen: auto\n  communities: {read: public}\nnodes:\n%sstate_dir: %s\nweb: {listen: \"\"}\nkeyring: keyring\n",
		nodes.String(), filepath.Join(dir, "state"))
	if err := os.WriteFile(conf, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := winetest.Run(prefix, exe, "-config", conf, "-id", "3", "-config.check"); err != nil || !strings.Contains(out, "configuration is valid (this host is node 4 of 4)") || strings.Contains(out, "warning") {
		t.Fatalf("-config.check under Wine: %v\n%s", err, out)
	}
	out, err = winetest.Run(prefix, exe, "-config", conf, "-id", "3")
	want := fmt.Sprintf("snmp.listen: cannot bind udp/127.0.0.4:%d: listen udp 127.0.0.4:%d: wsaioctl: winapi error #10045", port, port)
	if err == nil || !strings.Contains(out, want) {
		t.Fatalf("the agent under Wine: %v\n%s\nwant it to stop at %q (Wine 8.0 has no SIO_UDP_CONNRESET); if it got further, test the mixed cluster here", err, out, want)
	}
	t.Logf("under Wine the agent stops at: %s", strings.TrimSpace(out))
	stateTestsUnderWine(t, prefix)
}

// stateTestsUnderWine runs the tests of the state directory, built for
// Windows, under Wine: agent/state's (the state saved with MoveFileEx
// write-through and read back) and agent/daemon's across restarts, with
// the keys and a maintenance window. Each must pass but for one thing Wine
// 8.0 cannot do, which is the testing package's, not the agent's: removing
// a test's temporary directory (Go's os.RemoveAll asks for POSIX delete
// semantics, and Wine answers "Invalid function").
func stateTestsUnderWine(t *testing.T, prefix string) {
	for _, pkg := range []struct {
		dir   string
		tests []string
	}{
		{"agent/state", []string{"TestStateRoundTrip", "TestStateBadFiles", "TestCheckStateDir"}},
		{"agent/daemon", []string{"TestKeysAcrossRestarts", "TestMaintenanceWindow"}},
	} {
		bin := filepath.Join(t.TempDir(), filepath.Base(pkg.dir)+".test.exe")
		cmd := exec.Command("go", "test", "-c", "-o", bin, "../../"+pkg.dir)
		cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go test -c %s for windows: %v\n%s", pkg.dir, err, out)
		}
		out, _ := winetest.Run(prefix, bin, "-test.v", "-test.count=1", "-test.run", "^("+strings.Join(pkg.tests, "|")+")$")
		cleanup := regexp.MustCompile(`^\s+testing\.go:\d+: TempDir RemoveAll cleanup: unlinkat .*: Invalid function\.$`)
		for _, l := range strings.Split(out, "\n") {
			l = strings.TrimRight(l, "\r")
			if strings.HasPrefix(l, "    ") && !cleanup.MatchString(l) {
				t.Errorf("%s under Wine: %s", pkg.dir, l)
			}
		}
		for _, name := range pkg.tests {
			if !strings.Contains(out, "=== RUN   "+name+"\n") && !strings.Contains(out, "=== RUN   "+name+"\r\n") {
				t.Errorf("%s did not run under Wine:\n%s", name, out)
			}
		}
	}
}
