package main

import (
	"context"
	"net"
	"net/netip"
	"time"
)

// lookupIP resolves a host name with the system's resolver (/etc/hosts, DNS).
func lookupIP(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// resolveTimeout bounds one round of resolving every host name.
const resolveTimeout = 10 * time.Second
