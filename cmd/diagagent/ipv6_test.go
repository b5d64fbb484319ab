//go:build integration && linux

package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/diagagent/diagagent/internal/netsnmptest"
)

// TestIPv6Agents runs four agents at IPv6 addresses ([::1], one port each)
// with an IPv6 station: they test each other over UDP6, a stopped agent is
// found partial by ICMPv6 echo everywhere, and the station hears of it.
func TestIPv6Agents(t *testing.T) {
	slot(t, false)
	dir := t.TempDir()
	station := fmt.Sprintf("[::1]:%d", netsnmptest.FreeUDPPort(t, "::1"))
	trapd := netsnmptest.StartTrapd(t, station, nil, "-On")
	const n = 4
	ports := make([]int, n)
	var b strings.Builder
	fmt.Fprintf(&b, "algorithm: vcube\ninterval: %s\nsnmp: {listen: auto, communities: {read: public, write: private}}\n", testInterval)
	fmt.Fprintf(&b, "test: {timeout: %s, retries: %d, ping_timeout: %s, ping_count: 1}\nnodes:\n", testTimeout, testRetries, pingTimeout)
	for k := range ports {
		ports[k] = netsnmptest.FreeUDPPort(t, "::1")
		fmt.Fprintf(&b, "  - {address: '::1', port: %d}\n", ports[k])
	}
	fmt.Fprintf(&b, "traps: {fallbacks: ['%s'], timeout: 500ms, retries: 2, partial_hold: 1s}\nweb: {listen: ''}\nstate_dir: %s\n", station, filepath.Join(dir, "state{id}"))
	conf := filepath.Join(dir, "v6.yaml")
	if err := os.WriteFile(conf, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	web := fmt.Sprintf("[::1]:%d", netsnmptest.FreeTCPPort(t, "::1"))
	procs := make([]*exec.Cmd, n)
	t.Cleanup(func() {
		if t.Failed() {
			for k := range procs {
				b, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("agent%d.log", k)))
				t.Logf("agent %d log:\n%s", k, b)
			}
		}
	})
	for k := range procs {
		logf, err := os.Create(filepath.Join(dir, fmt.Sprintf("agent%d.log", k)))
		if err != nil {
			t.Fatal(err)
		}
		args := []string{"-config", conf, "-id", fmt.Sprint(k)}
		if k == 0 {
			args = append(args, "-web.listen", web) // the page, over IPv6
		}
		procs[k] = exec.Command(binPath(t), args...)
		procs[k].Stdout, procs[k].Stderr = logf, logf
		if err := procs[k].Start(); err != nil {
			t.Fatal(err)
		}
		logf.Close()
		p := procs[k]
		t.Cleanup(func() { p.Process.Signal(syscall.SIGTERM); p.Wait() })
	}
	status := func(k, node int) string {
		out, err := exec.Command(netsnmptest.Binary(t, "snmpget"), "-v2c", "-c", "public", "-t", "0.5", "-r", "1", "-Oqv",
			fmt.Sprintf("udp6:[::1]:%d", ports[k]), fmt.Sprintf(".1.3.6.1.4.1.200.1.1.1.3.%d", node)).CombinedOutput()
		if err != nil {
			return "no answer"
		}
		return strings.TrimSpace(string(out))
	}
	everyone := func(node int, want string, skip int) bool {
		for k := range procs {
			if k != skip && status(k, node) != want {
				return false
			}
		}
		return true
	}
	bound := latencyBound("vcube", n)
	waitUntil(t, "every node fault-free everywhere over IPv6", 2*bound, func() bool {
		for node := 1; node <= n; node++ {
			if !everyone(node, "0", -1) {
				return false
			}
		}
		return true
	})
	res, err := http.Get("http://" + web + "/api/v1/nodes")
	if err != nil {
		t.Fatalf("the page over IPv6: %v", err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), `"address":"::1"`) {
		t.Errorf("GET http://%s/api/v1/nodes: %d %s", web, res.StatusCode, body)
	}
	procs[2].Process.Signal(syscall.SIGTERM)
	procs[2].Wait()
	start := time.Now()
	waitUntil(t, "node 3 partial everywhere (ICMPv6 echo)", bound, func() bool { return everyone(3, "2", 2) })
	t.Logf("agent 3 stopped: partial at every IPv6 agent after %v", time.Since(start).Round(time.Millisecond))
	if _, err := trapd.Wait(bound+partialHold+testGroupWindow(), 0, notificationAbout(3, 2)); err != nil {
		t.Fatalf("the IPv6 station got no notification that node 3 is partial: %v", err)
	}
}

// TestHostNames: nodes given by host name (localhost, which the system
// resolves from /etc/hosts) are resolved at start, IPv4 first, and tested
// there; -config.check resolves too.
func TestHostNames(t *testing.T) {
	slot(t, false)
	dir := t.TempDir()
	p1, p2 := netsnmptest.FreeUDPPort(t, "127.0.0.1"), netsnmptest.FreeUDPPort(t, "127.0.0.1")
	tp := netsnmptest.FreeUDPPort(t, "127.0.0.1")
	trapd := netsnmptest.StartTrapd(t, fmt.Sprintf("127.0.0.1:%d", tp), nil, "-On")
	conf := filepath.Join(dir, "names.yaml")
	yaml := fmt.Sprintf("algorithm: vcube\ninterval: %s\nsnmp: {listen: auto}\ntest: {timeout: %s, retries: %d, ping_timeout: %s, ping_count: 1}\n"+
		"nodes: [{host: localhost, port: %d}, {host: localhost, port: %d}]\ntraps: {nms: 'localhost:%d'}\nweb: {listen: ''}\nstate_dir: %s\n",
		testInterval, testTimeout, testRetries, pingTimeout, p1, p2, tp, filepath.Join(dir, "state{id}"))
	if err := os.WriteFile(conf, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(binPath(t), "-config", conf, "-id", "0", "-config.check").CombinedOutput(); err != nil {
		t.Fatalf("-config.check: %v\n%s", err, out)
	}
	for k := range 2 {
		cmd := exec.Command(binPath(t), "-config", conf, "-id", fmt.Sprint(k))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() })
	}
	get := func(oid string) string {
		out, _ := exec.Command(netsnmptest.Binary(t, "snmpget"), "-v2c", "-c", "public", "-t", "0.5", "-r", "1", "-Oqv",
			fmt.Sprintf("127.0.0.1:%d", p1), oid).CombinedOutput()
		return strings.TrimSpace(string(out))
	}
	waitUntil(t, "node 2, given as localhost, fault-free at node 1", 2*latencyBound("vcube", 2), func() bool {
		return get(".1.3.6.1.4.1.200.1.1.1.3.2") == "0"
	})
	if a := get(".1.3.6.1.4.1.200.1.1.1.2.2"); a != "127.0.0.1" {
		t.Errorf("nodeAD.2 = %q, want localhost's IPv4 address", a)
	}
	// The station, given as localhost:port, is nmsID 127.0.0.1 and hears the coldStarts.
	if a := get(".1.3.6.1.4.1.200.1.3.0"); a != "127.0.0.1" {
		t.Errorf("nmsID.0 = %q, want the station's name resolved", a)
	}
	isCold := func(l string) bool { return strings.Contains(l, "OID: .1.3.6.1.6.3.1.1.5.1") }
	if _, err := trapd.Wait(notifyWait, 0, isCold); err != nil {
		t.Errorf("the station given by name got no coldStart: %v", err)
	}
}
