package config

import (
	"encoding/hex"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
)

// validate checks the responder's keys; agentsV3 (a keyring or test.v3_user)
// may stand in for an empty read community.
func (s SNMP) validate(m *mistakes, agentsV3 bool) {
	switch s.Mode {
	case ModeStandalone:
		validateListen(m, "snmp.listen", s.Listen, false)
	case ModeAgentX:
		if _, _, err := s.AgentXSocket(); err != nil {
			m.add("snmp.agentx", "%v", err)
		}
	default:
		m.add("snmp.mode", "%q is not a mode; use standalone or agentx", s.Mode)
	}
	if s.Communities.Read == "" && !agentsV3 {
		m.add("snmp.communities.read", "is empty while neither keyring nor test.v3_user is set, so peers could not test this node; set one of them, or a community")
	}
	validateCommunity(m, "snmp.communities.read", s.Communities.Read)
	validateCommunity(m, "snmp.communities.write", s.Communities.Write)
	validatePrefixes(m, "snmp.allow.read", s.Allow.Read, s.Communities.Read != "")
	validatePrefixes(m, "snmp.allow.write", s.Allow.Write, s.Communities.Write != "")
	if _, problem := decodeEngineID(s.EngineID); problem != "" {
		m.add("snmp.engine_id", "%q %s; write 10 to 64 hex digits such as 800000c8041234abcd, or leave it empty", s.EngineID, problem)
	}
	if s.MaxWorkers < 1 || s.MaxWorkers > 1024 {
		m.add("snmp.max_workers", "%d is out of range; use 1..1024", s.MaxWorkers)
	}
	displayString(m, "snmp.sys_contact", s.Contact)
	displayString(m, "snmp.sys_location", s.Location)
	names := map[string]int{}
	for i, u := range s.Users {
		key := fmt.Sprintf("snmp.users[%d]", i)
		validateUser(u.Credentials, m, key)
		if first, dup := names[u.Name]; dup && u.Name != "" {
			m.add(key+".name", "%q repeats snmp.users[%d]; give each user once", u.Name, first)
		} else {
			names[u.Name] = i
		}
		if !oneOf(u.Access, AccessRead, AccessWrite) {
			m.add(key+".access", "%q is not an access; use read or write", u.Access)
		}
	}
}

// validateListen checks an a.b.c.d:port address; "auto" (SNMP) or "auto:port" (web)
// stands for this node's address, and optional allows the empty string.
func validateListen(m *mistakes, key, s string, optional bool) {
	switch {
	case s == "" && optional:
		return
	case s == ListenAuto && !optional:
		return
	}
	host, port, ok := strings.Cut(s, ":")
	if optional && host == ListenAuto && ok {
		s = "0.0.0.0:" + port
	}
	ap, err := netip.ParseAddrPort(s)
	if err != nil || ap.Port() == 0 {
		want := "a.b.c.d:port, [2001:db8::1]:port or auto"
		if optional {
			want = "a.b.c.d:port, [2001:db8::1]:port or auto:port, or leave it empty for no page"
		}
		m.add(key, "%q is not an address with a port (1..65535); write %s", s, want)
	}
}

// validateCommunity checks that a community fits in an SNMP message field.
func validateCommunity(m *mistakes, key, c string) {
	if len(c) > 127 {
		m.add(key, "has %d characters; use 127 at most", len(c))
	}
}

// validatePrefixes checks an allow list; it must not be empty when its community is in use.
func validatePrefixes(m *mistakes, key string, ps []netip.Prefix, used bool) {
	if len(ps) == 0 && used {
		m.add(key, "is empty, so nobody could use the community; list networks such as 0.0.0.0/0, or empty the community")
	}
	for i, p := range ps {
		if !p.IsValid() {
			m.add(fmt.Sprintf("%s[%d]", key, i), "%s is not a network; write it as a.b.c.d/n or 2001:db8::/32", p)
		}
	}
}

// decodeEngineID decodes a hex engine ID ("0x" and ":" allowed; empty gives nil) and
// otherwise says what is wrong with it.
func decodeEngineID(s string) ([]byte, string) {
	if s == "" {
		return nil, ""
	}
	clean := strings.ReplaceAll(strings.TrimPrefix(strings.ToLower(s), "0x"), ":", "")
	b, err := hex.DecodeString(clean)
	if err != nil {
		return nil, "is not hex"
	}
	if len(b) < 5 || len(b) > 32 {
		return nil, fmt.Sprintf("has %d octets, not 5..32", len(b))
	}
	return b, ""
}

// The protocol names a user's auth_protocol and priv_protocol may take (in
// any case), the names agent/usm gives a meaning; "" is none.
var (
	authProtocols = []string{"sha", "sha224", "sha256", "sha384", "sha512"}
	privProtocols = []string{"", "none", "aes", "aes192", "aes256", "aes192c", "aes256c"}
)

// validate checks a user's name, protocols and pass phrases, named under key.
func validateUser(c Credentials, m *mistakes, key string) {
	if c.Name == "" || len(c.Name) > 32 {
		m.add(key+".name", "%q must have 1..32 characters; give the USM user name", c.Name)
	}
	if !slices.Contains(authProtocols, strings.ToLower(c.AuthProtocol)) {
		m.add(key+".auth_protocol", "%q is not supported; use sha, sha224, sha256, sha384 or sha512", c.AuthProtocol)
	}
	if len(c.AuthPassphrase) < 8 {
		m.add(key+".auth_passphrase", "has %d characters; use 8 at least", len(c.AuthPassphrase))
	}
	priv := strings.ToLower(c.PrivProtocol)
	none := priv == "" || priv == "none"
	switch {
	case !slices.Contains(privProtocols, priv):
		m.add(key+".priv_protocol", "%q is not supported; use none, aes, aes192, aes256, aes192c or aes256c", c.PrivProtocol)
	case none && c.PrivPassphrase != "":
		m.add(key+".priv_passphrase", "is set while priv_protocol is none; remove it or choose aes")
	case !none && len(c.PrivPassphrase) < 8:
		m.add(key+".priv_passphrase", "has %d characters; use 8 at least", len(c.PrivPassphrase))
	}
}

// displayString checks a value served as a DisplayString (RFC 2579): at
// most 255 printable ASCII characters.
func displayString(m *mistakes, key, s string) {
	if len(s) > 255 {
		m.add(key, "has %d characters; a DisplayString holds at most 255", len(s))
		return
	}
	for _, r := range s {
		if r < ' ' || r > '~' {
			m.add(key, "%q has a character that is not printable ASCII (%U); a DisplayString holds ASCII only", s, r)
			return
		}
	}
}

// AgentXSocket splits snmp.agentx into the network and address to dial:
// "unix:/var/agentx/master" or "tcp:127.0.0.1:705", as net-snmp writes them.
func (s SNMP) AgentXSocket() (network, address string, err error) {
	network, address, ok := strings.Cut(s.AgentX, ":")
	switch {
	case !ok || address == "":
	case network == "unix" && strings.HasPrefix(address, "/"):
		return network, address, nil
	case network == "tcp":
		if _, port, err := net.SplitHostPort(address); err == nil && port != "" {
			return network, address, nil
		}
	}
	return "", "", fmt.Errorf("%q is not a master socket; write unix:/path (snmpd's default unix:/var/agentx/master) or tcp:host:port", s.AgentX)
}
