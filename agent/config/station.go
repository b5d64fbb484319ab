package config

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
)

// Station is a notification receiver as the configuration gives it: an
// IPv4 or IPv6 address or a host name, and a UDP port (snmptrapd's 162
// unless given).
type Station struct {
	// Host is the station's host name; empty when an address is given.
	Host string
	// Addr is the address given, or for traps.nms the one Host resolved
	// to at start (nmsID carries it); a fall-back given by name is
	// resolved again at each notification.
	Addr netip.Addr
	// Port is the UDP port.
	Port uint16
}

// StationAt is the station at address a and port.
func StationAt(a netip.Addr, port uint16) Station { return Station{Addr: a, Port: port} }

// IsValid reports whether a station is given.
func (s Station) IsValid() bool { return s.Addr.IsValid() || s.Host != "" }

// String is host:port, as the notifier and net-snmp take it.
func (s Station) String() string {
	if !s.IsValid() {
		return ""
	}
	if s.Host != "" {
		return net.JoinHostPort(s.Host, strconv.Itoa(int(s.Port)))
	}
	return netip.AddrPortFrom(s.Addr, s.Port).String()
}

// UnmarshalText reads a.b.c.d, a.b.c.d:port, an IPv6 address (bare, in
// brackets, or as [addr]:port), host or host:port.
func (s *Station) UnmarshalText(b []byte) error {
	text := string(b)
	if len(text) > 2 && text[0] == '[' && text[len(text)-1] == ']' { // [2001:db8::1], no port
		text = text[1 : len(text)-1]
	}
	if ap, err := netip.ParseAddrPort(text); err == nil {
		*s = Station{Addr: ap.Addr(), Port: ap.Port()}
		return nil
	}
	if a, err := netip.ParseAddr(text); err == nil {
		*s = Station{Addr: a, Port: TrapPort}
		return nil
	}
	host, port := text, TrapPort
	if h, p, err := net.SplitHostPort(text); err == nil {
		n, err := strconv.ParseUint(p, 10, 16)
		if err != nil {
			return fmt.Errorf("bad port %q", p)
		}
		host, port = h, int(n)
	}
	if !validHostName(host) {
		return fmt.Errorf("%q is neither an address nor a host name", host)
	}
	*s = Station{Host: host, Port: uint16(port)}
	return nil
}

// MarshalText writes the station as String does, so a configuration
// printed back reads the same.
func (s Station) MarshalText() ([]byte, error) { return []byte(s.String()), nil }
