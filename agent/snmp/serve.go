package snmp

import (
	"fmt"
	"net"
	"net/netip"
	"sync"
)

// Serve answers requests arriving on conn until conn fails or Close is
// called, and closes conn; after Close it returns nil, or ErrClosed if the
// responder was closed before Serve began.
//
// One goroutine reads the socket and answers SNMPv1/v2c reads itself, as
// they take far less time than a hand-over; SNMPv3 requests, which pay for
// USM cryptography, and every SetRequest, which may wait for the state file
// to reach the disk, go to Config.Workers workers, so at most that many are
// in flight besides the one the reader handles, and a slow disk never holds
// up the peers' tests.
func (r *Responder) Serve(conn net.PacketConn) error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		_ = conn.Close()
		return ErrClosed
	}
	r.conns[conn] = struct{}{}
	r.wg.Add(1)
	r.mu.Unlock()
	defer r.wg.Done()

	pc := newPacketIO(conn)
	jobs, free := make(chan *job, r.cfg.Workers), make(chan *job, r.cfg.Workers+1)
	for range cap(free) {
		free <- &job{buf: make([]byte, r.cfg.MaxMessageSize)}
	}
	var wg sync.WaitGroup
	for range r.cfg.Workers {
		wg.Go(func() { r.v3Worker(pc, jobs, free) })
	}
	err := r.reader(pc, jobs, free)
	close(jobs)
	wg.Wait()
	r.mu.Lock()
	closed := r.closed
	delete(r.conns, conn)
	r.mu.Unlock()
	if closed {
		return nil
	}
	return err
}

// job is an SNMPv3 datagram handed from the reader to a worker.
type job struct {
	buf  []byte
	n    int
	src  netip.AddrPort
	addr net.Addr
}

// reader reads datagrams until the connection fails, answering community
// reads itself and queueing SNMPv3 messages and community SETs (blocking
// while all workers are busy).
func (r *Responder) reader(pc packetIO, jobs, free chan *job) error {
	buf := make([]byte, r.cfg.MaxMessageSize+1)
	ws := &workspace{}
	for {
		n, src, addr, err := pc.read(buf)
		if err != nil {
			_ = pc.conn.Close()
			return fmt.Errorf("snmp: reading requests: %w", err)
		}
		b := buf[:n]
		if v, after, err := messageVersion(b); err == nil && (v == 3 || communitySet(b, after)) && n <= r.cfg.MaxMessageSize {
			j := <-free
			j.n, j.src, j.addr = copy(j.buf, b), src, addr
			jobs <- j
			continue
		}
		r.send(pc, r.serveDatagram(ws, b, src.Addr()), src, addr)
	}
}

// v3Worker answers queued SNMPv3 datagrams until the queue closes.
func (r *Responder) v3Worker(pc packetIO, jobs <-chan *job, free chan<- *job) {
	ws := &workspace{}
	for j := range jobs {
		r.send(pc, r.serveDatagram(ws, j.buf[:j.n], j.src.Addr()), j.src, j.addr)
		free <- j
	}
}

// send counts a reply, if any, and writes it. snmpOutPkts counts messages
// passed to the transport service (RFC 3418), so it moves before the write:
// a manager that has the reply also sees it counted.
func (r *Responder) send(pc packetIO, reply []byte, src netip.AddrPort, addr net.Addr) {
	if reply == nil {
		return
	}
	r.stats.inc(cOutPkts)
	if err := pc.write(reply, src, addr); err != nil {
		r.log.WithError(err).WithField("dst", src).Debug("snmp: cannot send response")
	}
}

// packetIO uses the allocation-free UDP calls when conn is a *net.UDPConn.
type packetIO struct {
	conn net.PacketConn
	udp  *net.UDPConn
}

// newPacketIO wraps conn.
func newPacketIO(conn net.PacketConn) packetIO {
	u, _ := conn.(*net.UDPConn)
	return packetIO{conn: conn, udp: u}
}

// read reads one datagram; addr is set only for connections other than UDP.
func (pc packetIO) read(buf []byte) (int, netip.AddrPort, net.Addr, error) {
	if pc.udp != nil {
		n, src, err := pc.udp.ReadFromUDPAddrPort(buf)
		return n, src, nil, err
	}
	n, addr, err := pc.conn.ReadFrom(buf)
	return n, addrPort(addr), addr, err
}

// write sends b back to the request's source.
func (pc packetIO) write(b []byte, src netip.AddrPort, addr net.Addr) error {
	if pc.udp != nil {
		_, err := pc.udp.WriteToUDPAddrPort(b, src)
		return err
	}
	_, err := pc.conn.WriteTo(b, addr)
	return err
}

// addrPort converts a generic net.Addr to an AddrPort (zero if unknown).
func addrPort(a net.Addr) netip.AddrPort {
	if u, ok := a.(*net.UDPAddr); ok {
		return u.AddrPort()
	}
	if a == nil {
		return netip.AddrPort{}
	}
	ap, _ := netip.ParseAddrPort(a.String())
	return ap
}
