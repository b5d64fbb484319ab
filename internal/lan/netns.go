//go:build linux

package lan

import (
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// NamePrefix starts the name of every namespace this package creates; the
// creating process's PID follows, so parallel runs never collide.
const NamePrefix = "diaglan-"

// ErrNotRoot is returned by Build when the process cannot create namespaces.
var ErrNotRoot = errors.New("lan: creating network namespaces needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN)")

// Net is a LAN of hosts, each a network namespace with one interface eth0 on
// a bridge that lives in a namespace of its own (the switch).
type Net struct {
	Prefix string   // "diaglan-<pid>-<tag>"
	Switch string   // namespace holding bridge br0
	Hosts  []string // host namespaces, in address order
	Addrs  []netip.Addr
	loss   map[int]int // host index -> loss in percent
	v6     bool        // IPv6 addresses only (BuildV6)
}

// prefixLen is the length of the network every Net uses, 198.18.0.0/16; it
// exists only inside the LAN's namespaces, never in the caller's.
const prefixLen = 16

// HostAddr returns the address of host k: 198.18.<(k+1)/256>.<(k+1)%256>.
func HostAddr(k int) netip.Addr {
	v := k + 1
	return netip.AddrFrom4([4]byte{198, 18, byte(v >> 8), byte(v)})
}

// HostAddr6 returns the address of host k on an IPv6 LAN (BuildV6): the
// unique local fd00:c612::<k+1>/64 (c612 is 198.18 in hex).
func HostAddr6(k int) netip.Addr {
	v := uint32(k + 1)
	return netip.AddrFrom16([16]byte{0: 0xfd, 2: 0xc6, 3: 0x12, 12: byte(v >> 24), 13: byte(v >> 16), 14: byte(v >> 8), 15: byte(v)})
}

// Build creates a switch and n hosts named <NamePrefix><pid>-<tag>-... and
// brings every link up. On error it removes what it created.
func Build(tag string, n int) (*Net, error) { return build(tag, n, false) }

// BuildV6 is Build for a LAN of IPv6 addresses only (HostAddr6): the hosts
// have no IPv4 address at all.
func BuildV6(tag string, n int) (*Net, error) { return build(tag, n, true) }

func build(tag string, n int, v6 bool) (*Net, error) {
	if os.Geteuid() != 0 {
		return nil, ErrNotRoot
	}
	if n < 1 || n > 60000 {
		return nil, fmt.Errorf("lan: %d hosts: want 1 to 60000", n)
	}
	if err := SweepStale(); err != nil {
		return nil, err
	}
	nw := &Net{Prefix: fmt.Sprintf("%s%d-%s", NamePrefix, os.Getpid(), tag), loss: map[int]int{}, v6: v6}
	nw.Switch = nw.Prefix + "-sw"
	if err := nw.build(n); err != nil {
		nw.Close()
		return nil, err
	}
	return nw, nil
}

// build makes the switch namespace and every host.
func (nw *Net) build(n int) error {
	if err := ip("netns", "add", nw.Switch); err != nil {
		return err
	}
	if err := ip("-n", nw.Switch, "link", "add", "br0", "type", "bridge"); err != nil {
		return err
	}
	if err := ip("-n", nw.Switch, "link", "set", "br0", "up"); err != nil {
		return err
	}
	for k := 0; k < n; k++ {
		if err := nw.addHost(k); err != nil {
			return err
		}
	}
	for k := range nw.Hosts {
		if err := nw.knowNeighbors(k); err != nil {
			return err
		}
	}
	return nil
}

// HostMAC is the Ethernet address of host k's eth0: 02:00 (locally
// administered) and the 4 bytes of k+1.
func HostMAC(k int) string {
	v := uint32(k + 1)
	return fmt.Sprintf("02:00:%02x:%02x:%02x:%02x", byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}

// knowNeighbors gives host k a permanent neighbour entry for every other
// host. The kernel's neighbour table is one for all namespaces and holds
// 1,024 learned entries by default (gc_thresh3): 64 hosts that all talk to
// each other overflow it ("neighbor table overflow"), and datagrams to an
// unresolved neighbour are lost. Permanent entries are not counted against
// that limit, need no ARP, and change no setting of the machine.
func (nw *Net) knowNeighbors(k int) error {
	var b strings.Builder
	for j := range nw.Hosts {
		if j != k {
			fmt.Fprintf(&b, "neigh replace %s lladdr %s dev eth0 nud permanent\n", nw.Addrs[j], HostMAC(j))
		}
	}
	var out bytes.Buffer
	cmd := exec.Command("ip", "-n", nw.Hosts[k], "-batch", "-")
	cmd.Stdin = strings.NewReader(b.String())
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("ip -n %s -batch (neighbours): %w: %s", nw.Hosts[k], err, strings.TrimSpace(out.String()))
	}
	return nil
}

// addHost creates host k's namespace and its veth pair to the bridge.
func (nw *Net) addHost(k int) error {
	ns := fmt.Sprintf("%s-h%d", nw.Prefix, k)
	if err := ip("netns", "add", ns); err != nil {
		return err
	}
	addr := []string{"-n", ns, "addr", "add", fmt.Sprintf("%s/%d", HostAddr(k), prefixLen), "dev", "eth0"}
	a := HostAddr(k)
	if nw.v6 {
		a = HostAddr6(k) // nodad: usable at once, no duplicate detection to wait for
		addr = []string{"-n", ns, "addr", "add", a.String() + "/64", "dev", "eth0", "nodad"}
	}
	nw.Hosts, nw.Addrs = append(nw.Hosts, ns), append(nw.Addrs, a)
	port := fmt.Sprintf("p%d", k)
	steps := [][]string{
		{"-n", nw.Switch, "link", "add", port, "type", "veth", "peer", "name", "eth0", "address", HostMAC(k), "netns", ns},
		{"-n", nw.Switch, "link", "set", port, "master", "br0", "up"},
		{"-n", ns, "link", "set", "lo", "up"},
		addr,
		{"-n", ns, "link", "set", "eth0", "up"},
	}
	for _, s := range steps {
		if err := ip(s...); err != nil {
			return err
		}
	}
	return nil
}

// Close deletes every namespace of the LAN (their veths go with them). The
// caller stops the processes it started inside first.
func (nw *Net) Close() error {
	var errs []error
	for _, ns := range append(append([]string(nil), nw.Hosts...), nw.Switch) {
		if err := ip("netns", "del", ns); err != nil && !strings.Contains(err.Error(), "No such file") {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// SweepStale deletes namespaces named by NamePrefix whose creating process
// no longer exists, after killing whatever still runs inside them.
func SweepStale() error {
	return sweep(func(pid int) bool { return pid != os.Getpid() && syscall.Kill(pid, 0) != nil })
}

// SweepOwn deletes this process's namespaces and kills what runs in them:
// the way out of a run interrupted in the middle, whose Net is not at hand.
func SweepOwn() error {
	return sweep(func(pid int) bool { return pid == os.Getpid() })
}

// sweep deletes the namespaces named by NamePrefix whose creating process's
// PID is one of, after killing whatever still runs inside them.
func sweep(of func(pid int) bool) error {
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		return fmt.Errorf("lan: ip netns list: %w", err)
	}
	var errs []error
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) == 0 || !strings.HasPrefix(f[0], NamePrefix) {
			continue
		}
		pid, err := strconv.Atoi(strings.SplitN(strings.TrimPrefix(f[0], NamePrefix), "-", 2)[0])
		if err != nil || !of(pid) {
			continue // not named by a run, or not one to sweep
		}
		killInside(f[0])
		if err := ip("netns", "del", f[0]); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// killInside kills, by PID, the processes a dead run left in namespace ns.
func killInside(ns string) {
	out, _ := exec.Command("ip", "netns", "pids", ns).Output()
	for _, f := range strings.Fields(string(out)) {
		if pid, err := strconv.Atoi(f); err == nil && pid > 1 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// ip runs one iproute2 command; its error carries the command and its output.
func ip(args ...string) error {
	var out bytes.Buffer
	cmd := exec.Command("ip", args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("ip %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(out.String()))
	}
	return nil
}

// Switches splits the LAN into access switches joined by a core: each
// group of hosts moves to a bridge of its own, br1, br2, ..., whose uplink
// (a veth pair, upG on the switch, dnG on the core) joins br0, where every
// host of no group stays. Uplink cuts and heals one of them.
func (nw *Net) Switches(groups [][]int) error {
	for g, hosts := range groups {
		br, up, dn := fmt.Sprintf("br%d", g+1), fmt.Sprintf("up%d", g+1), fmt.Sprintf("dn%d", g+1)
		steps := [][]string{
			{"-n", nw.Switch, "link", "add", br, "type", "bridge"},
			{"-n", nw.Switch, "link", "set", br, "up"},
			{"-n", nw.Switch, "link", "add", up, "type", "veth", "peer", "name", dn},
			{"-n", nw.Switch, "link", "set", up, "master", br, "up"},
			{"-n", nw.Switch, "link", "set", dn, "master", "br0", "up"},
		}
		for _, k := range hosts {
			if k < 0 || k >= len(nw.Hosts) {
				return fmt.Errorf("lan: switch %d: no host %d", g+1, k)
			}
			steps = append(steps, []string{"-n", nw.Switch, "link", "set", fmt.Sprintf("p%d", k), "master", br})
		}
		for _, s := range steps {
			if err := ip(s...); err != nil {
				return err
			}
		}
	}
	return nil
}

// Uplink takes switch g's uplink (Switches, from 0) down or up: its hosts
// reach each other and nothing else while it is down.
func (nw *Net) Uplink(g int, up bool) error {
	state := "down"
	if up {
		state = "up"
	}
	return ip("-n", nw.Switch, "link", "set", fmt.Sprintf("up%d", g+1), state)
}
