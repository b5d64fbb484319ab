//go:build integration && linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/diagagent/diagagent/internal/netsnmptest"
)

// TestV3UserTestsOnTheWire is issue 13's defect 10 on the wire: with
// test.v3_user set, every test and fetch still went out as v2c with the
// read community. The peer here is net-snmp's snmpd, which would answer
// either way and logs every datagram it receives: all of them must be
// SNMPv3, and none may carry the community.
func TestV3UserTestsOnTheWire(t *testing.T) {
	dir := t.TempDir()
	port := freePortOnAll(t, 2)
	peer := netsnmptest.StartSNMPD(t, fmt.Sprintf("127.0.0.2:%d", port), "public", []string{
		"createUser tester SHA-256 auth-pass-1 AES priv-pass-1", "rouser tester", "rocommunity public 127.0.0.0/8"})
	before := len(peer.Received()) // StartSNMPD's own v2c readiness checks
	conf := filepath.Join(dir, "v3.yaml")
	yaml := fmt.Sprintf(`interval: 200ms
web: {listen: ""}
snmp:
  listen: auto
  communities: {read: public}
  users: [{name: tester, auth_protocol: sha256, auth_passphrase: auth-pass-1, priv_protocol: aes, priv_passphrase: priv-pass-1, access: read}]
test: {v3_user: tester, timeout: 300ms, retries: 0}
nodes: [{address: 127.0.0.1, port: %d}, {address: 127.0.0.2, port: %d}]
state_dir: %s
`, port, port, filepath.Join(dir, "state"))
	if err := os.WriteFile(conf, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	a := startAgent(t, conf, nil)
	deadline := time.Now().Add(10 * time.Second)
	for len(peer.Received())-before < 6 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	a.stop(t)
	got := peer.Received()[before:]
	if len(got) < 6 {
		t.Fatalf("the peer received %d datagrams from the agent, want several tests", len(got))
	}
	for _, p := range got {
		if v := snmpVersion(p); v != 3 || bytes.Contains(p, []byte("public")) {
			t.Fatalf("a test left as version field %d (want 3, SNMPv3), or with the community: % X", v, p)
		}
	}
	t.Logf("%d datagrams to the peer, all SNMPv3", len(got))
}

// snmpVersion reads the version INTEGER that opens an SNMP message, or -1.
func snmpVersion(b []byte) int {
	if len(b) < 2 || b[0] != 0x30 {
		return -1
	}
	i := 2
	if b[1]&0x80 != 0 {
		i += int(b[1] & 0x7f)
	}
	if len(b) < i+3 || b[i] != 0x02 || b[i+1] != 1 {
		return -1
	}
	return int(b[i+2])
}
