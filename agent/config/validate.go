package config

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// mistakes collects one-line mistakes in the order they are found.
type mistakes []error

// add records a bad value at key.
func (m *mistakes) add(key, format string, args ...any) {
	*m = append(*m, bad(key, format, args...))
}

// Validate checks every key and returns one line per mistake (joined with errors.Join),
// each naming the key and what to change; it fills in nothing.
func (c Config) Validate() error {
	var m mistakes
	c.validateCore(&m)
	c.validateNodes(&m)
	c.SNMP.validate(&m, c.AgentsV3())
	c.validateKeyring(&m)
	c.Test.validate(&m, c.SNMP)
	c.Traps.validate(&m)
	validateListen(&m, "web.listen", c.Web.Listen, true)
	c.Log.validate(&m)
	return errors.Join(m...)
}

// validateKeyring checks what the keyring leaves no room for; the file
// itself is read at start (keyring.Load), by -config.check too.
func (c Config) validateKeyring(m *mistakes) {
	switch {
	case c.Keyring == "":
	case c.Test.V3User != "":
		m.add("test.v3_user", "is set while keyring is: the keyring's users test, read and push between agents; remove test.v3_user")
	case c.SNMP.Mode == ModeAgentX:
		m.add("keyring", "is set while snmp.mode is agentx, where the host's snmpd authenticates the agents; give the users to snmpd and leave keyring empty")
	}
}

// validateCore checks id, algorithm, interval, resolve_interval and state_dir.
func (c Config) validateCore(m *mistakes) {
	if !oneOf(c.Algorithm, AlgorithmHiADSD, AlgorithmVCube, AlgorithmVRing, AlgorithmBruteForce) {
		m.add("algorithm", "%q is not an algorithm; use hiadsd, vcube, vring or bruteforce", c.Algorithm)
	}
	if c.Interval <= 0 {
		m.add("interval", "%s is not a positive duration; write one such as 30s", c.Interval)
	}
	if c.ResolveInterval < 0 {
		m.add("resolve_interval", "%s is negative; write a duration such as 5m, or 0s to resolve only at start", c.ResolveInterval)
	}
	if strings.TrimSpace(c.StateDir) == "" {
		m.add("state_dir", "is empty; give a directory the agent may write, such as /var/lib/diagagent")
	}
	n := len(c.Nodes)
	switch {
	case n == 0:
	case c.ID < AutoID || c.ID >= n:
		m.add("id", "%d is out of range; use 0..%d (an index in nodes) or -1 to find it by address", c.ID, n-1)
	case c.ID != AutoID && c.Nodes[c.ID].TestedOnly:
		m.add("id", "nodes[%d] is tested-only and runs no agent; give the index of a node without tested_only", c.ID)
	}
}

// validateNodes checks the node list: not empty, every entry sound, no address:port twice.
func (c Config) validateNodes(m *mistakes) {
	if len(c.Nodes) == 0 {
		m.add("nodes", "the list is empty; list every node of the LAN, the same list on every node")
		return
	}
	seen := map[netip.AddrPort]int{}
	testers := 0
	for i, n := range c.Nodes {
		key := fmt.Sprintf("nodes[%d]", i)
		// Without v3 and a read community, snmp.communities.read reports the cause.
		n.validate(m, key, c.AgentsV3() || c.SNMP.Communities.Read == "")
		if c.AgentsV3() && !n.TestedOnly && n.Community != "" {
			m.add(key+".community", "is set while every agent is tested with SNMPv3 (keyring or test.v3_user); remove it (only tested-only nodes are tested with a community)")
		}
		if !n.TestedOnly {
			testers++
		}
		if n.Host != "" && !n.Address.IsValid() {
			continue // checked for repeats once resolved (Resolve)
		}
		ap := netip.AddrPortFrom(n.Address, uint16(n.Port))
		if first, dup := seen[ap]; dup && n.Address.IsValid() {
			m.add(key, "%s repeats nodes[%d]; list each address and port once", ap, first)
		} else {
			seen[ap] = i
		}
	}
	if testers == 0 {
		m.add("nodes", "every node is tested-only; at least one must run the agent")
	}
}

// validate checks one node entry named key; skipTesterCommunity leaves an empty
// community of a testing node to be reported elsewhere (SNMPv3 tests need none).
func (n Node) validate(m *mistakes, key string, skipTesterCommunity bool) {
	switch {
	case n.Host != "":
		if !validHostName(n.Host) {
			m.add(key+".host", "%q is not a host name; write one such as ws-01 or ws-01.lan", n.Host)
		}
	case !n.Address.IsValid():
		m.add(key+".address", "is missing; give the node's IPv4 address a.b.c.d, its IPv6 address, or its host name as host")
	case n.Address.Is4In6():
		m.add(key+".address", "%s is an IPv4-mapped IPv6 address; write the IPv4 address %s", n.Address, n.Address.Unmap())
	case n.Address.Is6() && (n.Address.IsLinkLocalUnicast() || n.Address.Zone() != ""):
		m.add(key+".address", "%s is a link-local IPv6 address, which needs an interface; give the node's global or unique local address", n.Address)
	case !isHost(n.Address):
		m.add(key+".address", "%s is not a host address; give the node's own address", n.Address)
	}
	if n.Port < 1 || n.Port > 65535 {
		m.add(key+".port", "%d is not a UDP port; use 1..65535 (161 is the SNMP port)", n.Port)
	}
	if n.Community == "" && (n.TestedOnly || !skipTesterCommunity) {
		m.add(key+".community", "is empty; give the community the node answers to, or set snmp.communities.read")
	}
	switch {
	case !n.TestedOnly && n.OID != "":
		m.add(key+".oid", "only tested-only nodes are tested with another object; remove it or set tested_only: true")
	case n.TestedOnly && !validOID(n.OID):
		m.add(key+".oid", "%q is not a numeric OID; write one such as %s", n.OID, SysUpTimeOID)
	}
}

// validOID reports whether s is a dotted numeric object identifier (leading dot optional)
// of 2 to 128 arcs, each a 32-bit number written without leading zeros.
func validOID(s string) bool {
	arcs := strings.Split(strings.TrimPrefix(s, "."), ".")
	if len(arcs) < 2 || len(arcs) > 128 {
		return false
	}
	for _, a := range arcs {
		n, err := strconv.ParseUint(a, 10, 32)
		if err != nil || strconv.FormatUint(n, 10) != a {
			return false
		}
	}
	return arcs[0] <= "2"
}

// isHost reports whether a is an address a single host can have.
func isHost(a netip.Addr) bool {
	return !a.IsUnspecified() && !a.IsMulticast() && a != netip.AddrFrom4([4]byte{255, 255, 255, 255})
}

// oneOf reports whether s is one of the allowed words.
func oneOf(s string, allowed ...string) bool {
	for _, a := range allowed {
		if s == a {
			return true
		}
	}
	return false
}

// validHostName reports whether s is a DNS host name (RFC 1123 labels): at
// most 253 characters of letters, digits, hyphens and dots.
func validHostName(s string) bool {
	if len(s) == 0 || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(strings.TrimSuffix(s, "."), ".") {
		if len(label) == 0 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
				return false
			}
		}
	}
	return true
}

// Warnings lists, one line each, what a valid configuration leaves open:
// agents that speak SNMPv2c to each other (their communities cross the LAN
// in clear text, and whoever reads the write community may push), and a
// write community accepted from anywhere. -config.check prints them, and
// the agent logs them at start.
func (c Config) Warnings() []string {
	var out []string
	if !c.AgentsV3() {
		out = append(out, "keyring: empty, so agents test and push each other with SNMPv2c communities in clear text; make a key with diagagent keygen and name its file here")
	}
	if c.SNMP.Communities.Write != "" {
		for _, p := range c.SNMP.Allow.Write {
			if p.Bits() == 0 {
				out = append(out, fmt.Sprintf("snmp.allow.write: the write community is accepted from anywhere (%s); narrow it to your stations' networks", p))
				break
			}
		}
	}
	return out
}
