package probe

import (
	"fmt"
	"os"
	"strings"
)

// rawHint says how a Linux agent gets a raw ICMP socket.
func rawHint() string {
	g := os.Getegid()
	return fmt.Sprintf("run the daemon as root or grant CAP_NET_RAW "+
		"(setcap cap_net_raw+ep on the binary, or AmbientCapabilities=CAP_NET_RAW in the systemd unit), "+
		"or switch to unprivileged ping and allow group %d in net.ipv4.ping_group_range "+
		"(sysctl -w net.ipv4.ping_group_range=\"%d %d\")", g, g, g)
}

// datagramHint shows the current ping_group_range and what it must include.
func datagramHint() string {
	cur := "unreadable"
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ping_group_range"); err == nil {
		cur = strings.Join(strings.Fields(string(b)), " ")
	}
	g := os.Getegid()
	return fmt.Sprintf("net.ipv4.ping_group_range is %q and does not include "+
		"group %d: sysctl -w net.ipv4.ping_group_range=\"%d %d\", or use privileged ping with CAP_NET_RAW", cur, g, g, g)
}
