//go:build integration && linux

package probe

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/diagagent/diagagent/hiadsd"
)

// runIP runs one iproute2 command and fails the test with its output on error.
func runIP(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// vethPeer builds a namespace diagtest-<pid> joined to this one by a veth
// pair on a /30 of 198.18.0.0/15 (RFC 2544), and returns the names and the
// peer's address. Everything is removed when the test ends, even on failure.
func vethPeer(t *testing.T) (ns, peerIf string, peer netip.Addr) {
	t.Helper()
	pid := os.Getpid()
	ns = fmt.Sprintf("diagtest-%d", pid)
	hostIf, peerIf := fmt.Sprintf("dt%dh", pid), fmt.Sprintf("dt%dp", pid)
	n := uint32(pid%32768) * 4 // a /30 inside 198.18.0.0/15 (131072 addresses)
	base := uint32(198)<<24 | uint32(18)<<16 + n
	addr := func(k uint32) netip.Addr {
		v := base + k
		return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
	}
	runIP(t, "netns", "add", ns)
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", ns).Run() })
	runIP(t, "link", "add", hostIf, "type", "veth", "peer", "name", peerIf, "netns", ns)
	t.Cleanup(func() { _ = exec.Command("ip", "link", "del", hostIf).Run() })
	runIP(t, "addr", "add", addr(1).String()+"/30", "dev", hostIf)
	runIP(t, "link", "set", hostIf, "up")
	runIP(t, "-n", ns, "link", "set", "lo", "up")
	runIP(t, "-n", ns, "addr", "add", addr(2).String()+"/30", "dev", peerIf)
	runIP(t, "-n", ns, "link", "set", peerIf, "up")
	return ns, peerIf, addr(2)
}

// awaitEcho pings addr until it answers, for at most 10 s: the veth link
// needs a moment to come up.
func awaitEcho(t *testing.T, addr netip.Addr) {
	t.Helper()
	pg := &ICMPPinger{Privileged: true, Count: 1, Timeout: 200 * time.Millisecond}
	ctx := probeContext(t)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if _, err := pg.Ping(ctx, addr); err == nil {
			return
		}
	}
	t.Fatalf("%s never answered ping", addr)
}

func TestProbeInNamespacePartialThenFaulty(t *testing.T) {
	ns, peerIf, peer := vethPeer(t)
	awaitEcho(t, peer)
	p := newTestProber(t, nil)
	target := Target{Addr: peer, Port: 161}
	res := p.Probe(probeContext(t), target)
	if res.Status != hiadsd.Partial || res.SNMPErr == nil || res.PingErr != nil {
		t.Fatalf("host up, no SNMP: got %+v, want partial", res)
	}
	runIP(t, "-n", ns, "link", "set", peerIf, "down")
	res = p.Probe(probeContext(t), target)
	if res.Status != hiadsd.Faulty || res.SNMPErr == nil || res.PingErr == nil || res.RTT != 0 {
		t.Fatalf("link down: got %+v, want faulty with both errors", res)
	}
	if !errors.Is(res.PingErr, ErrNoEchoReply) {
		t.Fatalf("ping error %v, want ErrNoEchoReply", res.PingErr)
	}
}

// unprivEnv marks the child process of TestUnprivilegedPingInNamespace.
const unprivEnv = "DIAGAGENT_PROBE_UNPRIV_CHILD"

// TestUnprivilegedPingInNamespace checks the ICMP datagram socket mode where
// net.ipv4.ping_group_range allows it: in a namespace of its own (the sysctl
// is per namespace, so the host is untouched) the test binary runs itself as
// a child that checks the socket and pings the namespace's loopback.
func TestUnprivilegedPingInNamespace(t *testing.T) {
	if os.Getenv(unprivEnv) == "1" {
		unprivilegedChild(t)
		return
	}
	ns := fmt.Sprintf("diagtest-u%d", os.Getpid())
	runIP(t, "netns", "add", ns)
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", ns).Run() })
	runIP(t, "-n", ns, "link", "set", "lo", "up")
	if out, err := exec.Command("ip", "netns", "exec", ns, "sysctl", "-w",
		"net.ipv4.ping_group_range=0 2147483647").CombinedOutput(); err != nil {
		t.Fatalf("sysctl in %s: %v\n%s", ns, err, out)
	}
	child := exec.Command("ip", "netns", "exec", ns, os.Args[0],
		"-test.run=^TestUnprivilegedPingInNamespace$", "-test.count=1", "-test.v")
	child.Env = append(os.Environ(), unprivEnv+"=1")
	out, err := child.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "unprivileged ping ok") {
		t.Fatalf("child in %s: %v\n%s", ns, err, out)
	}
}

// unprivilegedChild runs inside the namespace: the datagram ICMP socket must
// open and a ping to loopback must answer in unprivileged mode.
func unprivilegedChild(t *testing.T) {
	if err := CheckUnprivilegedICMP(); err != nil {
		t.Fatalf("CheckUnprivilegedICMP: %v", err)
	}
	pg := &ICMPPinger{Privileged: false, Count: 2, Timeout: 2 * time.Second}
	rtt, err := pg.Ping(probeContext(t), netip.MustParseAddr("127.0.0.1"))
	if err != nil || rtt <= 0 {
		t.Fatalf("unprivileged ping: %s, %v", rtt, err)
	}
	t.Logf("unprivileged ping ok, rtt %s", rtt)
}
