//go:build integration && linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
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
// here.
func TestWindowsBuildUnderWine(t *testing.T) {
	winetest.Prefix(t)
	exe := winetest.Build(t, ".", t.TempDir())
	out, err := winetest.Run(exe, "-version")
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
	if out, err := winetest.Run(exe, "-config", conf, "-id", "3", "-config.check"); err != nil || !strings.Contains(out, "configuration is valid (this host is node 4 of 4)") || strings.Contains(out, "warning") {
		t.Fatalf("-config.check under Wine: %v\n%s", err, out)
	}
	out, err = winetest.Run(exe, "-config", conf, "-id", "3")
	want := fmt.Sprintf("snmp.listen: cannot bind udp/127.0.0.4:%d: listen udp 127.0.0.4:%d: wsaioctl: winapi error #10045", port, port)
	if err == nil || !strings.Contains(out, want) {
		t.Fatalf("the agent under Wine: %v\n%s\nwant it to stop at %q (Wine 8.0 has no SIO_UDP_CONNRESET); if it got further, test the mixed cluster here", err, out, want)
	}
	t.Logf("under Wine the agent stops at: %s", strings.TrimSpace(out))
}
