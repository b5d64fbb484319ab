package main

import (
	"context"
	"net"
	"net/netip"
	"time"

	"github.com/diagagent/diagagent/agent/nodelist"
)

// lookupIP resolves a host name with the system's resolver (/etc/hosts, DNS).
func lookupIP(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// resolveTimeout bounds one round of resolving every host name.
const resolveTimeout = 10 * time.Second

// lookupHost resolves a host name of the file to the one address the node
// list would take (nodelist.LookupHost's choice: IPv4 first).
func lookupHost(ctx context.Context, host string) (netip.Addr, error) {
	return nodelist.LookupHost(ctx, lookupIP, host)
}
