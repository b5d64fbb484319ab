package nodelist

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	"github.com/sirupsen/logrus"
)

// Config is how the node list follows the nodes given by host name.
type Config struct {
	// ResolveInterval is how often their names are resolved again; 0 only at start.
	ResolveInterval time.Duration
	// ResolveTimeout bounds one round of resolving every name.
	ResolveTimeout time.Duration
}

// Default returns the node list's defaults.
func Default() Config {
	return Config{ResolveInterval: 5 * time.Minute, ResolveTimeout: 10 * time.Second}
}

// Lookup resolves a host name to its addresses, as
// net.DefaultResolver.LookupNetIP(ctx, "ip", host) does.
type Lookup func(ctx context.Context, host string) ([]netip.Addr, error)

// LookupHost resolves host and picks the address to test it at: its first
// IPv4 address, else its first IPv6 one (IPv4-mapped ones count as IPv4).
func LookupHost(ctx context.Context, lookup Lookup, host string) (netip.Addr, error) {
	addrs, err := lookup(ctx, host)
	if err != nil {
		return netip.Addr{}, err
	}
	for _, a := range addrs {
		if a.Unmap().Is4() {
			return a.Unmap(), nil
		}
	}
	for _, a := range addrs {
		if a.Is6() && a.IsValid() {
			return a.WithZone(""), nil
		}
	}
	return netip.Addr{}, fmt.Errorf("%s has no address", host)
}

// Follow resolves the members given by host name every ResolveInterval,
// until ctx ends, and hands each change of address to move; a name that
// stops resolving keeps its last address and is logged.
func (c Config) Follow(ctx context.Context, members []Member, lookup Lookup, move func(id int, a netip.Addr), log *logrus.Entry) {
	if c.ResolveInterval <= 0 {
		return
	}
	cur := map[int]netip.Addr{}
	for i, m := range members {
		if m.Host != "" {
			cur[i] = m.Addr
		}
	}
	if len(cur) == 0 {
		return
	}
	tick := time.NewTicker(c.ResolveInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		rctx, cancel := context.WithTimeout(ctx, c.ResolveTimeout)
		for i, old := range cur {
			host := members[i].Host
			a, err := LookupHost(rctx, lookup, host)
			switch {
			case err != nil:
				log.WithError(err).WithFields(logrus.Fields{"node": i + 1, "host": host, "address": old.String()}).
					Warn("cannot resolve a node's host name; testing it at its last address")
			case a != old:
				cur[i] = a
				move(i, a)
			}
		}
		cancel()
	}
}
