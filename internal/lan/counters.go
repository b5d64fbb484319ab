//go:build linux

package lan

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// countTable is the nftables table Count installs inside each host.
const countTable = "diaglan_count"

// Traffic is what a host sent, as nftables counted it.
type Traffic struct{ Packets, Bytes uint64 }

// Count installs, in every host, one counter per group of ports: counter
// k counts the TCP and UDP packets the host sends from or to any port of
// groups[k] (each packet once), and counter icmp the ICMP it sends.
// Counted reads them.
func (nw *Net) Count(groups [][]int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "add table inet %[1]s\nadd counter inet %[1]s ping\n", countTable)
	fmt.Fprintf(&b, "add chain inet %s out { type filter hook output priority 0; policy accept; }\n", countTable)
	// ICMP and ICMPv6 by number: a host without /etc/protocols (netbase) has no names for them.
	fmt.Fprintf(&b, "add rule inet %s out meta l4proto { 1, 58 } counter name ping\n", countTable)
	for k, ports := range groups {
		set := make([]string, len(ports))
		for i, p := range ports {
			set[i] = strconv.Itoa(p)
		}
		ps := "{ " + strings.Join(set, ", ") + " }"
		fmt.Fprintf(&b, "add counter inet %s c%d\n", countTable, k)
		fmt.Fprintf(&b, "add rule inet %s out meta l4proto { tcp, udp } th sport %s counter name c%d\n", countTable, ps, k)
		fmt.Fprintf(&b, "add rule inet %s out meta l4proto { tcp, udp } th dport %s th sport != %s counter name c%d\n",
			countTable, ps, ps, k)
	}
	for _, ns := range nw.Hosts {
		if err := nft(ns, b.String()); err != nil {
			return err
		}
	}
	return nil
}

// Counted reads host k's counters: one per group given to Count, in order,
// then icmp.
func (nw *Net) Counted(k, groups int) ([]Traffic, error) {
	out, err := exec.Command("ip", "netns", "exec", nw.Hosts[k], "nft", "list", "counters", "table", "inet", countTable).Output()
	if err != nil {
		return nil, fmt.Errorf("lan: nft list counters in %s: %w", nw.Hosts[k], err)
	}
	byName, err := parseCounters(string(out))
	if err != nil {
		return nil, err
	}
	ts := make([]Traffic, groups+1)
	for g := range groups {
		ts[g] = byName[fmt.Sprintf("c%d", g)]
	}
	ts[groups] = byName["ping"]
	return ts, nil
}

// parseCounters reads "counter NAME {" followed by "packets P bytes B".
func parseCounters(s string) (map[string]Traffic, error) {
	out := map[string]Traffic{}
	name := ""
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 3 && f[0] == "counter" && f[2] == "{":
			name = f[1]
		case len(f) == 4 && f[0] == "packets" && f[2] == "bytes" && name != "":
			p, err1 := strconv.ParseUint(f[1], 10, 64)
			b, err2 := strconv.ParseUint(f[3], 10, 64)
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("lan: counter %s: unreadable line %q", name, sc.Text())
			}
			out[name] = Traffic{Packets: p, Bytes: b}
			name = ""
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("lan: no counters in nft output %q", s)
	}
	return out, nil
}

// Usage is what a process has used: CPU seconds (user and system) and its
// resident set.
type Usage struct {
	CPU   float64 // seconds
	RSSKB int
}

// ticksPerSecond is the kernel's USER_HZ, the unit of /proc/PID/stat's times.
const ticksPerSecond = 100

// ProcUsage reads pid's CPU time from /proc/PID/stat and VmRSS from /proc/PID/status.
func ProcUsage(pid int) (Usage, error) {
	var u Usage
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return u, fmt.Errorf("lan: %w", err)
	}
	// The command name, in parentheses, may hold spaces: count fields after it.
	s := string(stat)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return u, fmt.Errorf("lan: /proc/%d/stat: short line", pid)
	}
	ut, err1 := strconv.ParseUint(f[11], 10, 64) // utime, field 14
	st, err2 := strconv.ParseUint(f[12], 10, 64) // stime, field 15
	if err1 != nil || err2 != nil {
		return u, fmt.Errorf("lan: /proc/%d/stat: unreadable times", pid)
	}
	u.CPU = float64(ut+st) / ticksPerSecond
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return u, fmt.Errorf("lan: %w", err)
	}
	for _, l := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			u.RSSKB, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
		}
	}
	return u, nil
}

// LoadAverage is the one-minute load average of the machine.
func LoadAverage() (float64, error) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, fmt.Errorf("lan: %w", err)
	}
	return strconv.ParseFloat(strings.Fields(string(b))[0], 64)
}
