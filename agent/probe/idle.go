package probe

import (
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/gosnmp/gosnmp"
)

// idle holds the sockets of clean exchanges, one per peer, for the next
// exchange with that peer. A new gosnmp client costs a socket, a connect, a
// random request ID from crypto/rand and a 64 KiB receive buffer; an agent
// with the full plan tests the same peers every interval (the first
// fault-free node of each cluster), and at N = 64 on two cores a client
// for every test was a fifth of the host's CPU while it was starved. A
// socket is kept Config.KeepFor at most (take and put are given it), and
// idleCap of them.
// None serves longer than socketLife: a firewall that lets established
// flows through (conntrack) applies a rule added since to the next socket.
type idle struct {
	mu      sync.Mutex
	clients map[netip.AddrPort]idleClient
}

// idleClient is a kept client and when it was kept.
type idleClient struct {
	g  *gosnmp.GoSNMP
	at time.Time
}

const (
	// idleCap is how many sockets are kept at most (each holds a 64 KiB
	// buffer, and a file descriptor).
	idleCap = 16
	// socketLife is how long a socket serves at most, kept or not.
	socketLife = time.Minute
)

// socket is a client's connected UDP socket and when it was opened.
type socket struct {
	net.Conn
	opened time.Time
}

// take returns the client kept for k, nil if none is, or if its socket is
// closed or was kept longer than keepFor.
func (c *idle) take(k netip.AddrPort, now time.Time, keepFor time.Duration) *gosnmp.GoSNMP {
	c.mu.Lock()
	e, ok := c.clients[k]
	delete(c.clients, k)
	c.mu.Unlock()
	if !ok {
		return nil
	}
	// SetDeadline fails on a closed socket (net.ErrClosed), at no system call.
	if now.Sub(e.at) > keepFor || e.g.Conn.SetDeadline(time.Time{}) != nil {
		e.g.Conn.Close()
		return nil
	}
	return e.g
}

// put keeps g for k, closing the client it displaces, those kept longer
// than keepFor, and the oldest beyond idleCap; a socket that served
// socketLife, or is not a socket client opened, is closed at once, as is
// every socket when keepFor is 0.
func (c *idle) put(k netip.AddrPort, g *gosnmp.GoSNMP, now time.Time, keepFor time.Duration) {
	if s, ok := g.Conn.(*socket); !ok || now.Sub(s.opened) > socketLife || keepFor <= 0 {
		g.Conn.Close()
		return
	}
	var gone []*gosnmp.GoSNMP
	c.mu.Lock()
	if c.clients == nil {
		c.clients = make(map[netip.AddrPort]idleClient)
	}
	if e, ok := c.clients[k]; ok {
		gone = append(gone, e.g)
	}
	c.clients[k] = idleClient{g: g, at: now}
	var oldest netip.AddrPort
	for a, e := range c.clients {
		if now.Sub(e.at) > keepFor {
			gone = append(gone, e.g)
			delete(c.clients, a)
		} else if !oldest.IsValid() || e.at.Before(c.clients[oldest].at) {
			oldest = a
		}
	}
	if len(c.clients) > idleCap {
		gone = append(gone, c.clients[oldest].g)
		delete(c.clients, oldest)
	}
	c.mu.Unlock()
	for _, g := range gone {
		g.Conn.Close()
	}
}

// close closes every kept socket (a test's prober, at its end).
func (c *idle) close() {
	c.mu.Lock()
	kept := c.clients
	c.clients = nil
	c.mu.Unlock()
	for _, e := range kept {
		e.g.Conn.Close()
	}
}
