package main

import (
	"context"
	"net"
	"net/netip"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/agent/config"
)

// lookupIP resolves a host name with the system's resolver (/etc/hosts, DNS).
func lookupIP(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// resolveTimeout bounds one round of resolving every host name.
const resolveTimeout = 10 * time.Second

// mover is what follows a node to a new address (the daemon).
type mover interface{ SetAddress(id int, a netip.Addr) }

// followHosts resolves the nodes given by host name every
// cfg.ResolveInterval and hands each change of address to m; a name that
// stops resolving keeps its last address and is logged.
func followHosts(ctx context.Context, cfg config.Config, lookup config.Lookup, m mover, log *logrus.Entry) {
	if cfg.ResolveInterval <= 0 {
		return
	}
	cur := map[int]netip.Addr{}
	for i, n := range cfg.Nodes {
		if n.Host != "" {
			cur[i] = n.Address
		}
	}
	if len(cur) == 0 {
		return
	}
	tick := time.NewTicker(cfg.ResolveInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		rctx, cancel := context.WithTimeout(ctx, resolveTimeout)
		for i, old := range cur {
			host := cfg.Nodes[i].Host
			a, err := config.LookupHost(rctx, lookup, host)
			switch {
			case err != nil:
				log.WithError(err).WithFields(logrus.Fields{"node": i + 1, "host": host, "address": old.String()}).
					Warn("cannot resolve a node's host name; testing it at its last address")
			case a != old:
				cur[i] = a
				m.SetAddress(i, a)
			}
		}
		cancel()
	}
}
