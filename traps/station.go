package traps

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"

	"github.com/diagagent/diagagent/mib"
)

// ErrNoStation means no station the caller listed is usable.
var ErrNoStation = errors.New("no usable management station")

// DefaultPort is the SNMP notification port (RFC 3417), where a station
// given without one is sent to.
const DefaultPort = mib.NotificationPort

// target is a station resolved to a host and a port.
type target struct {
	host string
	port uint16
}

// String returns the target as host:port.
func (t target) String() string {
	return net.JoinHostPort(t.host, strconv.Itoa(int(t.port)))
}

// parseStation splits a station address into host and port, 162 by default.
func parseStation(addr string) (target, error) {
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		if addr == "" {
			return target{}, errors.New("empty station address")
		}
		return target{host: addr, port: DefaultPort}, nil
	}
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil || port == 0 {
		return target{}, fmt.Errorf("station %q: bad port %q", addr, portText)
	}
	return target{host: host, port: uint16(port)}, nil
}

// candidates returns the usable stations with a valid address, in order,
// and the errors of the usable stations skipped for a malformed address.
func candidates(stations []Destination) ([]target, []error) {
	var out []target
	var skipped []error
	for _, s := range stations {
		if !s.Usable {
			continue
		}
		t, err := parseStation(s.Addr)
		if err != nil {
			skipped = append(skipped, err)
			continue
		}
		out = append(out, t)
	}
	return out, skipped
}

// Stations lists where notifications may go, in order: nms, the station
// of nmsID (on port), then fallbacks (host:port, a host name or an
// address). A station at an address the diagnosis holds faulty is
// unusable, so the notifier moves on to the next one; a fall-back given by
// name is resolved at each send, so only one given by address is asked
// about.
func Stations(nms netip.Addr, port uint16, fallbacks []string, faulty func(netip.Addr) bool) []Destination {
	var out []Destination
	usable := func(a netip.Addr) bool { return !faulty(a) }
	if nms.IsValid() && !nms.IsUnspecified() {
		out = append(out, Destination{Addr: netip.AddrPortFrom(nms, port).String(), Usable: usable(nms)})
	}
	for _, f := range fallbacks {
		t, err := parseStation(f)
		a, _ := netip.ParseAddr(t.host)
		out = append(out, Destination{Addr: f, Usable: err == nil && (!a.IsValid() || usable(a))})
	}
	return out
}
