//go:build linux

package lan

import (
	"bytes"
	"fmt"
	"net/netip"
	"os/exec"
	"strings"
)

// lossTable names the nftables table (bridge family) SetLinkLoss installs
// in the switch's namespace for host k: the loss is on the host's switch
// port, so a packet lost on its way out is lost silently, as on a lossy
// cable, not refused to the sender (a rule on the host's own output hook
// makes its send fail with EPERM, which no lossy NIC does).
func lossTable(k int) string { return fmt.Sprintf("diaglan_loss_%d", k) }

// LinkDown takes host k's interface down inside its namespace: the host
// neither answers SNMP nor ping, so testers diagnose it faulty.
func (nw *Net) LinkDown(k int) error {
	return ip("-n", nw.Hosts[k], "link", "set", "eth0", "down")
}

// LinkUp brings host k's interface back up (the repair of LinkDown) and
// gives it back the neighbour entries the kernel removed with the link, and
// on an IPv6 LAN its address, which Linux drops when a link goes down
// (net.ipv6.conf.*.keep_addr_on_down is 0).
func (nw *Net) LinkUp(k int) error {
	if err := ip("-n", nw.Hosts[k], "link", "set", "eth0", "up"); err != nil {
		return err
	}
	if nw.v6 {
		if err := ip("-n", nw.Hosts[k], "addr", "replace", nw.Addrs[k].String()+"/64", "dev", "eth0", "nodad"); err != nil {
			return err
		}
	}
	return nw.knowNeighbors(k)
}

// SetLoss drops pct percent of the packets host k receives, at random and
// independently (nftables numgen on its switch port, since these kernels
// have no netem); with loss on every host each datagram is lost with
// probability pct/100 once.
// pct 0 removes the rule.
func (nw *Net) SetLoss(k, pct int) error { return nw.SetLinkLoss(k, pct, 0) }

// SetLinkLoss drops in percent of the packets host k receives and out
// percent of those it sends, each at random and independently: a lossy
// NIC, cable or switch port (both), or one that fails one way only. 0 and 0
// removes the rules.
func (nw *Net) SetLinkLoss(k, in, out int) error {
	for _, pct := range []int{in, out} {
		if pct < 0 || pct > 100 {
			return fmt.Errorf("lan: loss %d%%: want 0 to 100", pct)
		}
	}
	table := lossTable(k)
	if _, had := nw.loss[k]; had {
		if err := nft(nw.Switch, "delete table bridge "+table); err != nil {
			return err
		}
		delete(nw.loss, k)
	}
	if in == 0 && out == 0 {
		return nil
	}
	// IP alone: the hosts' neighbour entries are static, and a lossy cable
	// loses frames, but ARP's retries would only blur the figure.
	script := fmt.Sprintf("add table bridge %[1]s\n"+
		"add chain bridge %[1]s forward { type filter hook forward priority 0; policy accept; }\n", table)
	port := fmt.Sprintf("p%d", k)
	for _, h := range []struct {
		dir string // toward the host: out of its port; from it: into its port
		pct int
	}{{"oifname", in}, {"iifname", out}} {
		if h.pct == 0 {
			continue
		}
		match := fmt.Sprintf("numgen random mod 100 < %d ", h.pct)
		if h.pct == 100 {
			match = "" // nftables refuses "< 100" on a mod-100 value
		}
		script += fmt.Sprintf("add rule bridge %s forward %s %q meta protocol { ip, ip6 } %scounter drop\n", table, h.dir, port, match)
	}
	if err := nft(nw.Switch, script); err != nil {
		return err
	}
	nw.loss[k] = max(in, out)
	return nil
}

// SetLossAll applies SetLoss to every host.
func (nw *Net) SetLossAll(pct int) error {
	for k := range nw.Hosts {
		if err := nw.SetLoss(k, pct); err != nil {
			return err
		}
	}
	return nil
}

// LossDrops returns how many packets host k's loss rules have dropped so far,
// read from its counter; 0 when the host has no rule.
func (nw *Net) LossDrops(k int) (int, error) {
	if _, had := nw.loss[k]; !had {
		return 0, nil
	}
	out, err := exec.Command("ip", "netns", "exec", nw.Switch, "nft", "list", "table", "bridge", lossTable(k)).Output()
	if err != nil {
		return 0, fmt.Errorf("lan: nft list in %s: %w", nw.Switch, err)
	}
	return parseDropCounter(string(out))
}

// parseDropCounter sums "counter packets N" over the drop rules' lines (one
// a direction).
func parseDropCounter(s string) (int, error) {
	sum, found := 0, false
	for _, l := range strings.Split(s, "\n") {
		if !strings.Contains(l, "drop") {
			continue
		}
		var n int
		if i := strings.Index(l, "counter packets "); i >= 0 {
			if _, err := fmt.Sscanf(l[i:], "counter packets %d", &n); err == nil {
				sum, found = sum+n, true
			}
		}
	}
	if found {
		return sum, nil
	}
	return 0, fmt.Errorf("lan: no drop counter in nft output: %q", s)
}

// nft feeds script to nft -f - inside namespace ns.
func nft(ns, script string) error {
	var out bytes.Buffer
	cmd := exec.Command("ip", "netns", "exec", ns, "nft", "-f", "-")
	cmd.Stdin = strings.NewReader(script)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("lan: nft in %s: %w: %s", ns, err, strings.TrimSpace(out.String()))
	}
	return nil
}

// blockTable is the nftables table Unreachable installs inside a host's namespace.
const blockTable = "diaglan_block"

// Unreachable makes host k unable to reach the addresses to, and to hear
// from them (on), or lifts that (off, to unused): a host firewall, or a
// switch ACL on k's port, that the rest of the LAN does not have. The
// addresses are of one family.
func (nw *Net) Unreachable(k int, on bool, to ...netip.Addr) error {
	ns := nw.Hosts[k]
	_ = nft(ns, "delete table inet "+blockTable) // none yet is no error
	if !on {
		return nil
	}
	if len(to) == 0 {
		return fmt.Errorf("lan: Unreachable(%d): no address to block", k)
	}
	family := "ip"
	if to[0].Is6() {
		family = "ip6"
	}
	set := make([]string, len(to))
	for i, a := range to {
		set[i] = a.String()
	}
	return nft(ns, fmt.Sprintf("add table inet %[1]s\n"+
		"add chain inet %[1]s output { type filter hook output priority 0; policy accept; }\n"+
		"add chain inet %[1]s input { type filter hook input priority 0; policy accept; }\n"+
		"add rule inet %[1]s output %[2]s daddr { %[3]s } drop\n"+
		"add rule inet %[1]s input %[2]s saddr { %[3]s } drop\n", blockTable, family, strings.Join(set, ", ")))
}
