package traps

import (
	"errors"
	"fmt"
	"net"
	"strconv"
)

// ErrNoStation means no station the caller listed is usable.
var ErrNoStation = errors.New("no usable management station")

// defaultPort is the SNMP notification port (RFC 3417).
const defaultPort = 162

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
		return target{host: addr, port: defaultPort}, nil
	}
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil || port == 0 {
		return target{}, fmt.Errorf("station %q: bad port %q", addr, portText)
	}
	return target{host: host, port: uint16(port)}, nil
}

// candidates returns the usable stations with a valid address, in order,
// and the errors of the usable stations skipped for a malformed address.
func candidates(stations []Station) ([]target, []error) {
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
