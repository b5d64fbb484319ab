package config

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
)

// Lookup resolves a host name to the one address a node is tested at or a
// station is sent to (the program gives nodelist.LookupHost's choice).
type Lookup func(ctx context.Context, host string) (netip.Addr, error)

// Resolve returns c with every node given by host name at the address its
// name resolves to now, and traps.nms given by name at its IPv4 address; a
// name that does not resolve, or two nodes at one address and port, is one
// line naming the key. Fall-backs given by name are resolved at each
// notification instead.
func (c Config) Resolve(ctx context.Context, lookup Lookup) (Config, error) {
	c.Nodes = slices.Clone(c.Nodes)
	m := &mistakes{}
	for i := range c.Nodes {
		n := &c.Nodes[i]
		if n.Host == "" {
			continue
		}
		a, err := lookup(ctx, n.Host)
		if err != nil {
			m.add(fmt.Sprintf("nodes[%d].host", i), "cannot resolve %q: %v; check the name, or give address", n.Host, err)
			continue
		}
		n.Address = a
	}
	if h := c.Traps.NMS.Host; h != "" {
		a, err := lookup(ctx, h)
		switch {
		case err != nil:
			m.add("traps.nms", "cannot resolve %q: %v; check the name, or give an address", h, err)
		case !a.Is4():
			m.add("traps.nms", "%q resolves to %s, and nmsID (an IpAddress) needs an IPv4 address; list it in traps.fallbacks", h, a)
		default:
			c.Traps.NMS.Addr = a
		}
	}
	if err := errors.Join(*m...); err != nil {
		return c, err
	}
	return c, c.Validate()
}
