package config

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/diagagent/diagagent/agent/nodelist"
)

// Lookup resolves a host name to its addresses (nodelist.Lookup).
type Lookup = nodelist.Lookup

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
		a, err := nodelist.LookupHost(ctx, lookup, n.Host)
		if err != nil {
			m.add(fmt.Sprintf("nodes[%d].host", i), "cannot resolve %q: %v; check the name, or give address", n.Host, err)
			continue
		}
		n.Address = a
	}
	if h := c.Traps.NMS.Host; h != "" {
		a, err := nodelist.LookupHost(ctx, lookup, h)
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
