package config

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
)

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

// Resolve returns c with every node given by host name at the address its
// name resolves to now; a name that does not resolve, or two nodes at one
// address and port, is one line naming the key.
func (c Config) Resolve(ctx context.Context, lookup Lookup) (Config, error) {
	c.Nodes = slices.Clone(c.Nodes)
	m := &mistakes{}
	for i := range c.Nodes {
		n := &c.Nodes[i]
		if n.Host == "" {
			continue
		}
		a, err := LookupHost(ctx, lookup, n.Host)
		if err != nil {
			m.add(fmt.Sprintf("nodes[%d].host", i), "cannot resolve %q: %v; check the name, or give address", n.Host, err)
			continue
		}
		n.Address = a
	}
	if err := errors.Join(*m...); err != nil {
		return c, err
	}
	return c, c.Validate()
}
