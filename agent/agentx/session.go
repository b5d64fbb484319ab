package agentx

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/sirupsen/logrus"
)

// Handler answers the master's requests for the registered subtree. The
// session calls it from one goroutine, one request at a time.
type Handler interface {
	// Get returns the value of name, or a NoSuchObject or NoSuchInstance
	// binding named name.
	Get(name OID) VarBind
	// Next returns the first object after r.Start (or r.Start itself when
	// r.Include) and below r.End when r.End is set, or an EndOfMibView
	// binding named r.Start.
	Next(r SearchRange) VarBind
	// TestSet checks the bindings of transaction tid and keeps them; it
	// returns the error and the 1-based index of the binding at fault.
	TestSet(tid uint32, vbs []VarBind) (Error, int)
	// CommitSet writes what TestSet kept; UndoSet takes it back after a
	// commit elsewhere failed; CleanupSet forgets the transaction.
	CommitSet(tid uint32) (Error, int)
	UndoSet(tid uint32) (Error, int)
	CleanupSet(tid uint32)
}

// Silencer is a Handler that can be silenced (fault injection): while
// Silenced, reads get no answer at all, as from a stalled agent, and the
// master times them out; sets are still answered.
type Silencer interface {
	Silenced() bool
}

// Config says which master to reach and what to register there.
type Config struct {
	// Network and Address name the master: "unix" and a socket path
	// (net-snmp's default /var/agentx/master), or "tcp" and host:port (705).
	Network, Address string
	// Subtree is registered at Priority (lower wins; net-snmp's default 127).
	Subtree  OID
	Priority uint8
	// ID and Descr identify the subagent in the Open PDU.
	ID    OID
	Descr string
	// Timeout is how long the master waits for an answer (sent in Open).
	Timeout time.Duration
	// Ping is how often the master is pinged; a ping unanswered for
	// Timeout ends the session, which is then opened again.
	Ping time.Duration
	// Retry is the first wait before reconnecting; it doubles to MaxRetry.
	Retry, MaxRetry time.Duration
	// Log receives connects, disconnects and protocol errors; nil discards.
	Log *logrus.Entry
}

// Default returns a Config for net-snmp's default master socket.
func Default() Config {
	return Config{Network: "unix", Address: "/var/agentx/master", Priority: 127,
		Timeout: 5 * time.Second, Ping: 15 * time.Second, Retry: time.Second, MaxRetry: 30 * time.Second}
}

// ErrResponse is wrapped by the errors of a master's negative Response.
var ErrResponse = errors.New("agentx: master refused")

// Subagent keeps a session with the master open: it connects, opens,
// registers, answers, pings, and connects again when the master goes away.
type Subagent struct {
	cfg Config
	h   Handler
	log *logrus.Entry

	mu      sync.Mutex
	state   State
	changed chan struct{} // closed and replaced on every state change
}

// State is where the subagent stands with its master.
type State struct {
	Connected  bool      // a session is open and the subtree registered
	Session    uint32    // its h.sessionID
	Since      time.Time // when Connected last changed
	Sessions   int       // sessions opened since start
	LastError  string    // why the last session ended or failed to open
	Requests   uint64    // requests answered
	ParseFails uint64    // PDUs that could not be read (the session is closed)
}

// New checks cfg and returns a subagent; Run starts it.
func New(cfg Config, h Handler) (*Subagent, error) {
	switch {
	case cfg.Network != "unix" && cfg.Network != "tcp":
		return nil, fmt.Errorf("agentx: network %q, want unix or tcp", cfg.Network)
	case cfg.Address == "":
		return nil, errors.New("agentx: no master address")
	case len(cfg.Subtree) == 0:
		return nil, errors.New("agentx: no subtree to register")
	case cfg.Timeout < time.Second || cfg.Timeout > 255*time.Second:
		return nil, fmt.Errorf("agentx: timeout %v, want 1s..255s", cfg.Timeout)
	case cfg.Ping <= 0 || cfg.Retry <= 0 || cfg.MaxRetry < cfg.Retry:
		return nil, errors.New("agentx: ping, retry and max retry must be positive, max retry at least retry")
	}
	log := cfg.Log
	if log == nil {
		l := logrus.New()
		l.SetLevel(logrus.PanicLevel)
		log = logrus.NewEntry(l)
	}
	return &Subagent{cfg: cfg, h: h, log: log.WithField("agentx", cfg.Network+":"+cfg.Address), changed: make(chan struct{})}, nil
}

// State returns where the subagent stands now.
func (s *Subagent) State() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

// Changed returns a channel closed at the next change of State.
func (s *Subagent) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

func (s *Subagent) update(f func(*State)) {
	s.mu.Lock()
	f(&s.state)
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
}

// Run keeps a session open until ctx ends, then closes it (reason shutdown).
func (s *Subagent) Run(ctx context.Context) error {
	wait := s.cfg.Retry
	for {
		opened, err := s.session(ctx)
		if ctx.Err() != nil {
			return nil
		}
		s.update(func(st *State) {
			if st.Connected {
				st.Since = time.Now()
			}
			st.Connected, st.LastError = false, err.Error()
		})
		if opened {
			wait = s.cfg.Retry
		}
		s.log.WithError(err).WithField("retry", wait.String()).Warn("agentx: no session with the master")
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		wait = min(2*wait, s.cfg.MaxRetry)
	}
}

// conn is one connection to the master: the socket and the requests of
// ours (Open, Register, Ping, Close) waiting for their Response.
type conn struct {
	c       net.Conn
	wmu     sync.Mutex
	mu      sync.Mutex
	waiting map[uint32]chan *PDU
	packet  uint32
	session uint32
}

func (c *conn) write(p *PDU) error {
	b, err := p.Encode()
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err = c.c.Write(b)
	return err
}

// call sends p and waits up to timeout for the master's Response.
func (c *conn) call(p *PDU, timeout time.Duration) (*PDU, error) {
	ch := make(chan *PDU, 1)
	c.mu.Lock()
	c.packet++
	p.PacketID, p.SessionID = c.packet, c.session
	c.waiting[p.PacketID] = ch
	c.mu.Unlock()
	defer func() { c.mu.Lock(); delete(c.waiting, p.PacketID); c.mu.Unlock() }()
	if err := c.write(p); err != nil {
		return nil, err
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return nil, errors.New("agentx: connection closed")
		}
		if r.Error != NoError {
			return r, fmt.Errorf("%w: %s: error %d", ErrResponse, p.Type, r.Error)
		}
		return r, nil
	case <-time.After(timeout):
		return nil, fmt.Errorf("agentx: %s unanswered for %v", p.Type, timeout)
	}
}

// session runs one connection: open, register, serve until it fails or ctx
// ends. opened says whether the session got as far as registering.
func (s *Subagent) session(ctx context.Context) (opened bool, err error) {
	d := net.Dialer{Timeout: s.cfg.Timeout}
	nc, err := d.DialContext(ctx, s.cfg.Network, s.cfg.Address)
	if err != nil {
		return false, err
	}
	c := &conn{c: nc, waiting: map[uint32]chan *PDU{}}
	defer nc.Close()
	readErr := make(chan error, 1)
	go func() { readErr <- s.read(c) }()
	fail := func(err error) (bool, error) {
		nc.Close()
		<-readErr
		return opened, err
	}
	open, err := c.call(&PDU{Type: TypeOpen, Timeout: uint8(s.cfg.Timeout / time.Second), ID: s.cfg.ID,
		Descr: []byte(s.cfg.Descr)}, s.cfg.Timeout)
	if err != nil {
		return fail(fmt.Errorf("open: %w", err))
	}
	c.mu.Lock()
	c.session = open.SessionID
	c.mu.Unlock()
	if _, err := c.call(&PDU{Type: TypeRegister, Priority: s.cfg.Priority, Subtree: s.cfg.Subtree}, s.cfg.Timeout); err != nil {
		return fail(fmt.Errorf("register %v: %w", s.cfg.Subtree, err))
	}
	opened = true
	s.update(func(st *State) {
		st.Connected, st.Session, st.Since, st.LastError = true, open.SessionID, time.Now(), ""
		st.Sessions++
	})
	s.log.WithFields(logrus.Fields{"session": open.SessionID, "subtree": s.cfg.Subtree.String()}).Info("agentx: registered with the master")
	tick := time.NewTicker(s.cfg.Ping)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			_, _ = c.call(&PDU{Type: TypeClose, Reason: ReasonShutdown}, s.cfg.Timeout)
			return fail(ctx.Err())
		case err := <-readErr:
			return opened, fmt.Errorf("session %d ended: %w", open.SessionID, err)
		case <-tick.C:
			if _, err := c.call(&PDU{Type: TypePing}, s.cfg.Timeout); err != nil {
				return fail(fmt.Errorf("ping: %w", err))
			}
		}
	}
}

// read takes PDUs from the master until the connection fails: Responses go
// to the caller waiting for them, requests are answered here, in order.
func (s *Subagent) read(c *conn) error {
	defer func() {
		c.mu.Lock()
		for id, ch := range c.waiting {
			close(ch)
			delete(c.waiting, id)
		}
		c.mu.Unlock()
	}()
	for {
		p, err := ReadPDU(c.c)
		if err != nil {
			if errors.Is(err, ErrParse) {
				s.update(func(st *State) { st.ParseFails++ })
				_ = c.write(&PDU{Type: TypeClose, SessionID: c.session, Reason: ReasonParseError})
			}
			return err
		}
		if p.Type == TypeResponse {
			c.mu.Lock()
			ch := c.waiting[p.PacketID]
			c.mu.Unlock()
			if ch != nil {
				ch <- p
			}
			continue
		}
		if p.Type == TypeClose {
			return fmt.Errorf("the master closed the session (reason %d)", p.Reason)
		}
		if sl, ok := s.h.(Silencer); ok && sl.Silenced() && (p.Type == TypeGet || p.Type == TypeGetNext || p.Type == TypeGetBulk) {
			continue
		}
		if r := s.answer(p); r != nil {
			if err := c.write(r); err != nil {
				return err
			}
		}
		s.update(func(st *State) { st.Requests++ })
	}
}

// answer builds the Response to one request of the master (section 7.2).
func (s *Subagent) answer(p *PDU) *PDU {
	r := &PDU{Type: TypeResponse, SessionID: p.SessionID, TransactionID: p.TransactionID, PacketID: p.PacketID}
	if len(p.Context) > 0 {
		r.Error = UnsupportedContext
		return r
	}
	switch p.Type {
	case TypeGet:
		for _, sr := range p.Ranges {
			r.VarBinds = append(r.VarBinds, s.h.Get(sr.Start))
		}
	case TypeGetNext:
		for _, sr := range p.Ranges {
			r.VarBinds = append(r.VarBinds, s.h.Next(sr))
		}
	case TypeGetBulk:
		r.VarBinds = s.bulk(p)
	case TypeTestSet:
		e, i := s.h.TestSet(p.TransactionID, p.VarBinds)
		r.Error, r.Index = e, clampIndex(i, e)
	case TypeCommitSet:
		e, i := s.h.CommitSet(p.TransactionID)
		r.Error, r.Index = e, clampIndex(i, e)
	case TypeUndoSet:
		e, i := s.h.UndoSet(p.TransactionID)
		r.Error, r.Index = e, clampIndex(i, e)
	case TypeCleanupSet:
		s.h.CleanupSet(p.TransactionID)
		return nil // no Response to a CleanupSet (section 7.2.4.4)
	default:
		r.Error = ProcessingError
	}
	return r
}

// clampIndex keeps res.index 0 when there is no error.
func clampIndex(i int, e Error) uint16 {
	if e == NoError {
		return 0
	}
	return uint16(i)
}

// bulk answers a GetBulk (section 7.2.3.2): the non-repeaters once, then
// the repeaters round by round until max-repetitions or all are at the end.
func (s *Subagent) bulk(p *PDU) []VarBind {
	n := min(int(p.NonRepeaters), len(p.Ranges))
	var out []VarBind
	for _, sr := range p.Ranges[:n] {
		out = append(out, s.h.Next(sr))
	}
	rep := append([]SearchRange(nil), p.Ranges[n:]...)
	for round := 0; round < int(p.MaxRepetitions) && len(rep) > 0; round++ {
		ended := 0
		for k := range rep {
			vb := s.h.Next(rep[k])
			out = append(out, vb)
			if vb.Type == EndOfMibView {
				ended++
				continue
			}
			rep[k].Start, rep[k].Include = vb.Name, false
		}
		if ended == len(rep) {
			break
		}
	}
	return out
}
