//go:build linux

package main

import (
	"errors"
	"fmt"
	"net"
	"runtime"
	"syscall"
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
		if toResponse(buf[:n]) {
			if _, err := conn.WriteTo(buf[:n], from); err != nil {
				return err
			}
		}
	}
}

// toResponse rewrites the PDU tag of an SNMP message in place; false if it is not one.
func toResponse(b []byte) bool {
	r := berReader{b: b}
	if r.enter(0x30) != nil || r.skip(0x02) != nil || r.skip(0x04) != nil || len(r.b) == 0 {
		return false
	}
	r.b[0] = 0xa2
	return true
}

// BlockingEcho is an echo server that reads with blocking recvfrom on one
// locked OS thread, bypassing Go's network poller.
type BlockingEcho struct {
	fd int
}

// ListenBlockingEcho binds a blocking UDP socket on 127.0.0.1:port (0 picks one).
func ListenBlockingEcho(port int) (*BlockingEcho, string, error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, "", fmt.Errorf("blocking echo socket: %w", err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		syscall.Close(fd)
		return nil, "", fmt.Errorf("blocking echo bind: %w", err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		syscall.Close(fd)
		return nil, "", fmt.Errorf("blocking echo name: %w", err)
	}
	return &BlockingEcho{fd: fd}, fmt.Sprintf("127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port), nil
}

// Serve echoes until Close shuts the socket down.
func (e *BlockingEcho) Serve() error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	buf := make([]byte, 65536)
	for {
		n, from, err := syscall.Recvfrom(e.fd, buf, 0)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil:
			return fmt.Errorf("blocking echo read: %w", err)
		case n == 0 && from == nil:
			return nil // shut down
		}
		if toResponse(buf[:n]) {
			_ = syscall.Sendto(e.fd, buf[:n], 0, from)
		}
	}
}

// Close wakes the blocked reader (shutdown) and releases the socket.
func (e *BlockingEcho) Close() error {
	_ = syscall.Shutdown(e.fd, syscall.SHUT_RDWR)
	return nil
}
