package netsnmptest

import (
	"net"
	"sync"
	"testing"
)

// Relay forwards one client's UDP datagrams to a target and the target's
// replies back, keeping what each side sent: a test reads the wire with it
// (how many datagrams an exchange took, a request to replay later).
type Relay struct {
	conn     net.PacketConn
	mu       sync.Mutex
	sent     [][]byte // client to target
	replies  [][]byte // target to client
	client   net.Addr
	clients  map[string]bool // every client address heard
	upstream net.Conn
	twice    int // replies still to deliver twice (DuplicateNext)
}

// StartRelay listens on a free port of host and forwards to target
// ("host:port"); it stops with the test.
func StartRelay(t testing.TB, host, target string) *Relay {
	t.Helper()
	c, err := net.ListenPacket("udp4", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Fatal(err)
	}
	up, err := net.Dial("udp4", target)
	if err != nil {
		c.Close()
		t.Fatal(err)
	}
	r := &Relay{conn: c, upstream: up}
	t.Cleanup(func() { c.Close(); up.Close() })
	go r.down()
	go r.up()
	return r
}

// up carries the client's datagrams to the target.
func (r *Relay) up() {
	buf := make([]byte, 65535)
	for {
		n, from, err := r.conn.ReadFrom(buf)
		if err != nil {
			return
		}
		r.mu.Lock()
		r.client = from
		if r.clients == nil {
			r.clients = map[string]bool{}
		}
		r.clients[from.String()] = true
		r.sent = append(r.sent, append([]byte(nil), buf[:n]...))
		r.mu.Unlock()
		_, _ = r.upstream.Write(buf[:n])
	}
}

// down carries the target's replies to the last client heard.
func (r *Relay) down() {
	buf := make([]byte, 65535)
	for {
		n, err := r.upstream.Read(buf)
		if err != nil {
			return
		}
		r.mu.Lock()
		to, copies := r.client, 1
		r.replies = append(r.replies, append([]byte(nil), buf[:n]...))
		if r.twice > 0 {
			r.twice--
			copies = 2
		}
		r.mu.Unlock()
		for range copies {
			if to != nil {
				_, _ = r.conn.WriteTo(buf[:n], to)
			}
		}
	}
}

// DuplicateNext delivers each of the target's next n replies twice, as a
// network that duplicates datagrams does.
func (r *Relay) DuplicateNext(n int) {
	r.mu.Lock()
	r.twice = n
	r.mu.Unlock()
}

// Addr is the address clients send to.
func (r *Relay) Addr() string { return r.conn.LocalAddr().String() }

// Sources returns how many client addresses (sockets) sent through the
// relay so far.
func (r *Relay) Sources() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.clients)
}

// Sent returns the datagrams the client sent so far.
func (r *Relay) Sent() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]byte(nil), r.sent...)
}

// Replies returns the datagrams the target sent back so far.
func (r *Relay) Replies() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]byte(nil), r.replies...)
}
