package probe

// rawHint says how a Windows agent gets a raw ICMP socket, the only kind
// it pings with: the service runs as LocalSystem by default (diagagent
// service install); another account must be an Administrator.
func rawHint() string {
	return "Windows opens raw ICMP sockets for Administrators only: run the service as LocalSystem (the default of diagagent service install) or an account in Administrators"
}

// datagramHint: Windows has no unprivileged ICMP datagram socket.
func datagramHint() string {
	return "Windows has no unprivileged ICMP socket; run the agent as an Administrator or LocalSystem"
}
