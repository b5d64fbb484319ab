package config

import (
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
)

// ResolveID returns the node id of this agent: Config.ID when given, else the one node
// without tested_only whose address is a specific snmp.listen address, else the one whose
// address is among local (the host's addresses, see LocalAddrs).
func ResolveID(c Config, local []netip.Addr) (int, error) {
	if c.ID != AutoID {
		return c.ID, nil
	}
	listen, _ := netip.ParseAddrPort(c.SNMP.Listen)
	if a := listen.Addr(); a.IsValid() && !a.IsUnspecified() {
		if ids := c.testersAt(func(x netip.Addr) bool { return x == a }, listen.Port()); len(ids) == 1 {
			return ids[0], nil
		}
	}
	ids := c.testersAt(func(x netip.Addr) bool { return slices.Contains(local, x) }, listen.Port())
	switch len(ids) {
	case 1:
		return ids[0], nil
	case 0:
		return 0, &Error{Key: "id", Msg: fmt.Sprintf("no node in nodes has an address of this host (%s); set id (DIAG_ID, -id) or add this host to nodes", addrList(local)), Err: ErrNoLocalNode}
	}
	return 0, &Error{Key: "id", Msg: fmt.Sprintf("nodes%v all have an address of this host; set id (DIAG_ID, -id) or a specific snmp.listen", ids), Err: ErrNoLocalNode}
}

// testersAt returns the ids of nodes without tested_only whose address matches; when
// several match, those whose port is port (if non-zero) are preferred.
func (c Config) testersAt(match func(netip.Addr) bool, port uint16) []int {
	var ids, onPort []int
	for i, n := range c.Nodes {
		if n.TestedOnly || !match(n.Address) {
			continue
		}
		ids = append(ids, i)
		if port != 0 && n.Port == int(port) {
			onPort = append(onPort, i)
		}
	}
	if len(ids) > 1 && len(onPort) > 0 {
		return onPort
	}
	return ids
}

// addrList writes addresses for a message.
func addrList(as []netip.Addr) string {
	if len(as) == 0 {
		return "none found"
	}
	parts := make([]string, len(as))
	for i, a := range as {
		parts[i] = a.String()
	}
	return strings.Join(parts, ", ")
}

// LocalAddrs returns the IPv4 and IPv6 addresses of this host's interfaces.
func LocalAddrs() ([]netip.Addr, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil, fmt.Errorf("config: list interface addresses: %w", err)
	}
	var out []netip.Addr
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok {
			if ip, ok := netip.AddrFromSlice(ipn.IP); ok {
				out = append(out, ip.Unmap())
			}
		}
	}
	return out, nil
}

// SNMPListen returns the UDP address node id's responder binds: snmp.listen, or for
// "auto" the node's own address and port.
func (c Config) SNMPListen(id int) netip.AddrPort {
	if c.SNMP.Listen == ListenAuto {
		n := c.Nodes[id]
		return netip.AddrPortFrom(n.Address, uint16(n.Port))
	}
	ap, _ := netip.ParseAddrPort(c.SNMP.Listen)
	return ap
}

// WebListen returns the HTTP address node id serves its page on, with "auto" replaced
// by the node's address; ok is false when web.listen is empty.
func (c Config) WebListen(id int) (addr netip.AddrPort, ok bool) {
	if c.Web.Listen == "" {
		return netip.AddrPort{}, false
	}
	if port, isAuto := strings.CutPrefix(c.Web.Listen, ListenAuto+":"); isAuto {
		ap, _ := netip.ParseAddrPort("0.0.0.0:" + port)
		return netip.AddrPortFrom(c.Nodes[id].Address, ap.Port()), true
	}
	ap, _ := netip.ParseAddrPort(c.Web.Listen)
	return ap, true
}
