package main

import (
	"errors"
	"net"
)

// ServeEcho answers every SNMP request on conn with the same bytes turned
// into a Response-PDU; it measures the generator's ceiling, not a server.
func ServeEcho(conn net.PacketConn, workers int) error {
	errc := make(chan error, workers)
	for range workers {
		go func() { errc <- echoLoop(conn) }()
	}
	err := <-errc
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

// echoLoop reads, flips the PDU tag to Response and writes back.
func echoLoop(conn net.PacketConn) error {
	buf := make([]byte, 65536)
	for {
		n, from, err := conn.ReadFrom(buf)
		if err != nil {
			return err
		}
		r := berReader{b: buf[:n]}
		if r.enter(0x30) != nil || r.skip(0x02) != nil || r.skip(0x04) != nil || len(r.b) == 0 {
			continue
		}
		r.b[0] = 0xa2
		if _, err := conn.WriteTo(buf[:n], from); err != nil {
			return err
		}
	}
}
