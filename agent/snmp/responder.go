package snmp

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/usm"
	"github.com/diagagent/diagagent/mib"
)

// ErrClosed is returned by Serve when the responder was already closed.
var ErrClosed = errors.New("snmp: responder closed")

// Responder is the SNMP agent; it is safe for concurrent use.
type Responder struct {
	cfg      Config
	log      *logrus.Entry
	now      func() time.Time
	start    time.Time
	engineID []byte
	users    atomic.Pointer[map[string]*usmUser] // replaced whole by SetClusterUsers
	// clusterUsers is set when some user is a cluster user (User.Cluster):
	// objects only agents write then take SETs from them alone.
	clusterUsers bool
	tree         *tree
	// treeEntry is diagTreeEntry, under which a SET is a row change.
	treeEntry OID
	board     *board.Board
	stats     counters
	fault     faultGate
	skew      atomic.Int64 // diagFaultClockSkew, in seconds
	salt      atomic.Uint64

	mu     sync.Mutex
	closed bool
	conns  map[net.PacketConn]struct{}
	wg     sync.WaitGroup
}

// NewResponder validates cfg, localizes the users' keys and builds the MIB
// registry; the responder serves an empty view until the first Publish
// on its Board.
func NewResponder(cfg Config) (*Responder, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &Responder{cfg: cfg, log: cfg.Log, now: cfg.Now, conns: map[net.PacketConn]struct{}{}}
	for _, u := range cfg.Users {
		r.clusterUsers = r.clusterUsers || u.Cluster
	}
	if r.now == nil {
		r.now = time.Now
	}
	if r.log == nil {
		l := logrus.New()
		l.SetOutput(io.Discard)
		r.log = logrus.NewEntry(l)
	}
	r.start = r.now()
	r.engineID = append([]byte(nil), cfg.EngineID...)
	if len(r.engineID) == 0 {
		id, err := NewEngineID()
		if err != nil {
			return nil, err
		}
		r.engineID = id
	}
	users, err := localizeUsers(cfg.Users, r.engineID)
	if err != nil {
		return nil, err
	}
	r.users.Store(&users)
	var seed [8]byte
	if _, err := rand.Read(seed[:]); err != nil {
		return nil, fmt.Errorf("snmp: salt: %w", err)
	}
	r.salt.Store(binary.BigEndian.Uint64(seed[:]))
	r.tree = newTree(append(stdNodes(r), diagNodes(r)...))
	r.treeEntry = mustOID(mib.DiagTreeEntry)
	r.board = cfg.Board
	if r.board == nil {
		r.board = board.New()
	}
	return r, nil
}

// SetClusterUsers replaces the cluster's users (User.Cluster) with the
// users of the keys the agent now runs, after a rotation: from the next
// request on, only they are accepted as agents. Other users stay.
func (r *Responder) SetClusterUsers(users []usm.User) error {
	all := []User{}
	for _, u := range r.cfg.Users {
		if !u.Cluster {
			all = append(all, u)
		}
	}
	for _, u := range users {
		all = append(all, User{User: u, Write: true, Cluster: true})
	}
	m, err := localizeUsers(all, r.engineID)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cfg.Users = all
	r.users.Store(&m)
	return nil
}

// EngineID returns snmpEngineID, for the daemon to persist and managers to use.
func (r *Responder) EngineID() []byte { return append([]byte(nil), r.engineID...) }

// Stats returns a copy of the counters.
func (r *Responder) Stats() Stats {
	s := r.stats.snapshot()
	s.EngineBoots = r.cfg.EngineBoots
	return s
}

// Publish makes s the view that later requests read (on the responder's
// Board); s must not change afterwards. A snapshot with rows out of order is
// refused (board.ErrSnapshot) and the old one kept.
func (r *Responder) Publish(s *board.Snapshot) error { return r.board.Publish(s) }

// upTime is sysUpTime in hundredths of a second.
func (r *Responder) upTime(now time.Time) uint32 {
	return uint32(now.Sub(r.start) / (10 * time.Millisecond))
}

// engineTime is snmpEngineTime in seconds since this engine started.
func (r *Responder) engineTime(now time.Time) uint32 {
	return uint32(now.Sub(r.start) / time.Second)
}

// Close stops every Serve call, closing their connections, and waits for them.
func (r *Responder) Close() error {
	r.mu.Lock()
	r.closed = true
	var errs []error
	for c := range r.conns {
		errs = append(errs, c.Close())
	}
	r.mu.Unlock()
	r.wg.Wait()
	return errors.Join(errs...)
}

// serveDatagram drops oversized datagrams and answers the others, recovering
// from a panic so that one bad request never stops the agent.
func (r *Responder) serveDatagram(ws *workspace, b []byte, src netip.Addr) (reply []byte) {
	if len(b) > r.cfg.MaxMessageSize {
		r.stats.inc(cInPkts)
		r.stats.inc(cOversized)
		r.stats.inc(cInASNParseErrs)
		return nil
	}
	defer func() {
		if e := recover(); e != nil {
			r.stats.inc(cPanics)
			r.log.WithField("panic", e).WithField("src", src).Error("snmp: request handler panicked")
			reply = nil
		}
	}()
	return r.handleWith(ws, b, src)
}
