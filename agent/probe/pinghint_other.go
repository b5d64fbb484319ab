//go:build !linux && !windows

package probe

// rawHint says how an agent gets a raw ICMP socket on a BSD or macOS.
func rawHint() string {
	return "raw ICMP sockets need root; without it the agent pings with an ICMP datagram socket, which macOS and the BSDs give any user"
}

// datagramHint: macOS and the BSDs give ICMP datagram sockets to any user.
func datagramHint() string {
	return "the system refused an ICMP datagram socket, which macOS gives any user; run the agent as root"
}
