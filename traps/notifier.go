package traps

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// ErrClosed is returned when a notification is offered after Close or Shutdown.
var ErrClosed = errors.New("notifier closed")

// ErrDrainTimeout is returned by Shutdown when queued notifications were still
// unsent at the deadline; they are dropped and counted.
var ErrDrainTimeout = errors.New("notifier drain deadline passed")

// Notifier sends DIAGNOSIS-MIB notifications to the current management station
// from its own goroutine, so offering a notification never blocks the caller.
type Notifier struct {
	cfg   Config
	log   *logrus.Entry
	stats counters

	lastAuthFailure atomic.Int64 // when the last authenticationFailure was queued, UnixNano

	mu       sync.Mutex
	queue    []*entry
	current  *entry // the entry being delivered, still in queue unless dropped
	closed   bool
	aborted  bool
	inflight net.Conn // the socket of the attempt in progress

	engines map[target]engine // SNMPv3 stations' engines, used by the delivering goroutine only
	health  health            // which stations answer, used by the delivering goroutine only

	wake    chan struct{} // a notification was queued
	closing chan struct{} // Shutdown began: drain, then stop
	abort   chan struct{} // the drain deadline passed: stop now
	done    chan struct{} // the sending goroutine has returned
}

// entry is one queued notification; gone is closed when it leaves the queue.
type entry struct {
	note notification
	gone chan struct{}
}

// New validates cfg and starts the sending goroutine.
func New(cfg Config) (*Notifier, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Uptime == nil {
		start := time.Now()
		cfg.Uptime = func() uint32 { return uint32(time.Since(start) / (10 * time.Millisecond)) }
	}
	log := cfg.Log
	if log == nil {
		quiet := logrus.New()
		quiet.SetOutput(io.Discard)
		quiet.SetLevel(logrus.PanicLevel)
		log = logrus.NewEntry(quiet)
	}
	n := &Notifier{
		cfg:     cfg,
		log:     log.WithField("kind", cfg.Kind.String()),
		wake:    make(chan struct{}, 1),
		closing: make(chan struct{}),
		abort:   make(chan struct{}),
		done:    make(chan struct{}),
		engines: map[target]engine{},
		health:  health{streak: map[target]int{}, down: map[target]time.Time{}},
	}
	go n.run()
	return n, nil
}

// NodeStatusChange queues a diagNodeStatusChange notification for the event.
func (n *Notifier) NodeStatusChange(e mib.Event) error {
	if err := e.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidEvent, err)
	}
	return n.enqueue(statusChange(e))
}

// NodeListMismatch queues a diagNodeListMismatch notification.
func (n *Notifier) NodeListMismatch(m ListMismatch) error {
	if m.Peer < 1 || m.Peer > mib.MaxNodeID || !m.PeerAddr.IsValid() || len(m.Ours) != 8 {
		return fmt.Errorf("%w: list mismatch of peer %d at %v with a fingerprint of %d octets", ErrInvalidEvent, m.Peer, m.PeerAddr, len(m.Ours))
	}
	return n.enqueue(listMismatch(m))
}

// NodeListChange queues a diagNodeListChange notification.
func (n *Notifier) NodeListChange(c ListChange) error {
	if c.Node < 1 || c.Node > mib.MaxNodeID || !c.Addr.IsValid() || len(c.Hash) != 8 {
		return fmt.Errorf("%w: list change of node %d at %v with a fingerprint of %d octets", ErrInvalidEvent, c.Node, c.Addr, len(c.Hash))
	}
	return n.enqueue(listChange(c))
}

// NodeListConflict queues a diagNodeListConflict notification.
func (n *Notifier) NodeListConflict(c ListConflict) error {
	if c.Node > mib.MaxNodeID || c.Winner > mib.MaxNodeID || len(c.Hash) != 8 || c.Reason == "" {
		return fmt.Errorf("%w: list conflict of node %d, winner %d, a fingerprint of %d octets", ErrInvalidEvent, c.Node, c.Winner, len(c.Hash))
	}
	return n.enqueue(listConflict(c))
}

// NodeKeyRefused queues a diagNodeKeyRefused notification.
func (n *Notifier) NodeKeyRefused(r KeyRefused) error {
	if r.Node < 1 || r.Node > mib.MaxNodeID || !r.Addr.IsValid() {
		return fmt.Errorf("%w: key refusal of node %d at %v", ErrInvalidEvent, r.Node, r.Addr)
	}
	return n.enqueue(keyRefused(r))
}

// NodeFlapping queues a diagNodeFlapping notification.
func (n *Notifier) NodeFlapping(f Flapping) error {
	if f.Node < 1 || f.Node > mib.MaxNodeID || !f.Addr.IsValid() || !f.Status.Valid() {
		return fmt.Errorf("%w: flapping of node %d at %v, status %v", ErrInvalidEvent, f.Node, f.Addr, f.Status)
	}
	return n.enqueue(flapping(f))
}

// CauseChange queues a diagCauseChange notification.
func (n *Notifier) CauseChange(c Cause) error { return n.enqueue(causeChange(c)) }

// NodeMaintenanceEnded queues a diagNodeMaintenanceEnded notification.
func (n *Notifier) NodeMaintenanceEnded(m MaintenanceEnded) error {
	if m.Node < 1 || m.Node > mib.MaxNodeID || !m.Addr.IsValid() || !m.Status.Valid() || !m.Began.Valid() {
		return fmt.Errorf("%w: maintenance of node %d at %v ended %v, began %v", ErrInvalidEvent, m.Node, m.Addr, m.Status, m.Began)
	}
	return n.enqueue(maintenanceEnded(m))
}

// ColdStart queues a coldStart notification: the agent has (re)started.
func (n *Notifier) ColdStart() error { return n.enqueue(coldStart()) }

// authFailureGap is the least time between two authenticationFailure
// notifications: a flood of bad packets must not become a flood of
// notifications (the SNMP counters still count every one).
const authFailureGap = time.Second

// AuthenticationFailure queues an authenticationFailure notification about a
// message from src, unless one was queued less than authFailureGap ago; it
// never blocks, so the responder may call it as it serves.
func (n *Notifier) AuthenticationFailure(src netip.Addr) error {
	now := time.Now().UnixNano()
	last := n.lastAuthFailure.Load()
	if now-last < int64(authFailureGap) || !n.lastAuthFailure.CompareAndSwap(last, now) {
		return nil
	}
	return n.enqueue(authenticationFailure(src))
}

// NMSChange queues a diagNMSChange notification: s is the station the agent
// adopted, with its counter.
func (n *Notifier) NMSChange(s hiadsd.Station) error {
	if err := validStation(s); err != nil {
		return err
	}
	return n.enqueue(nmsChange(s))
}

// Stats returns the current counters.
func (n *Notifier) Stats() Stats {
	n.mu.Lock()
	pending := len(n.queue)
	n.mu.Unlock()
	return n.stats.snapshot(pending)
}

// enqueue appends a notification, dropping the oldest one when the queue is full.
func (n *Notifier) enqueue(note notification) error {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return ErrClosed
	}
	if len(n.queue) >= n.cfg.QueueSize {
		victim := n.victimLocked(note)
		if victim == nil { // a station change into a queue of node-status notifications
			n.stats.dropped.Add(1)
			n.mu.Unlock()
			n.log.WithField("notification", note.label).Warn("notification queue full of node-status notifications, dropped this one")
			return nil
		}
		n.removeLocked(victim)
		if victim == n.current && n.inflight != nil {
			n.inflight.Close() // stop waiting for an answer nobody needs
		}
		n.stats.dropped.Add(1)
		n.log.WithField("notification", victim.note.label).Warn("notification queue full, dropped the oldest")
	}
	n.queue = append(n.queue, &entry{note: note, gone: make(chan struct{})})
	n.mu.Unlock()
	select {
	case n.wake <- struct{}{}:
	default:
	}
	return nil
}

// victimLocked chooses what a full queue drops to take note: the oldest
// notification that is not a node's status change (a station change, a
// coldStart, an authenticationFailure) if there is one, so that a flood of
// them (SETs of nmsID, bad packets) never pushes a node's fault out of the
// queue; else the oldest notification when note is a node-status one, and
// nil (drop note itself) when it is not. n.mu must be held.
func (n *Notifier) victimLocked(note notification) *entry {
	for _, e := range n.queue {
		if !statusNote(e.note) {
			return e
		}
	}
	if !statusNote(note) {
		return nil
	}
	return n.queue[0]
}

// statusNote reports whether note tells nodes' statuses: a node's change
// or a cause's.
func statusNote(note notification) bool {
	return note.oid == mib.DiagNodeStatusChange || note.oid == mib.DiagCauseChange
}

// removeLocked takes e out of the queue if it is still there; n.mu must be held.
func (n *Notifier) removeLocked(e *entry) bool {
	for i, q := range n.queue {
		if q == e {
			n.queue = append(n.queue[:i:i], n.queue[i+1:]...)
			close(e.gone)
			return true
		}
	}
	return false
}

// next marks the oldest queued notification as current and returns it, or nil.
func (n *Notifier) next() *entry {
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.queue) == 0 || n.aborted {
		return nil
	}
	n.current = n.queue[0]
	return n.current
}

// finish takes a delivered (or abandoned) notification out of the queue.
func (n *Notifier) finish(e *entry) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.current = nil
	n.removeLocked(e)
}

// run sends queued notifications in order until shut down.
func (n *Notifier) run() {
	defer close(n.done)
	for {
		e := n.next()
		if e == nil {
			select {
			case <-n.wake:
				continue
			case <-n.closing:
				if n.Stats().Pending == 0 || n.isAborted() {
					return
				}
				continue
			case <-n.abort:
				return
			}
		}
		n.deliver(e)
		n.finish(e)
	}
}

// isAborted reports whether the drain deadline has passed.
func (n *Notifier) isAborted() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.aborted
}

// drop counts e as given up, unless it already left the queue.
func (n *Notifier) drop(e *entry, reason error) {
	n.mu.Lock()
	removed := n.removeLocked(e)
	n.mu.Unlock()
	if removed {
		n.stats.dropped.Add(1)
		n.log.WithField("notification", e.note.label).WithError(reason).Warn("notification dropped")
	}
}

// Close drains the queue for at most Config.DrainTimeout, then stops.
func (n *Notifier) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), n.cfg.DrainTimeout)
	defer cancel()
	return n.Shutdown(ctx)
}

// Shutdown refuses new notifications and sends the queued ones until ctx is
// done; what is left then is dropped and ErrDrainTimeout returned.
func (n *Notifier) Shutdown(ctx context.Context) error {
	n.mu.Lock()
	if !n.closed {
		n.closed = true
		close(n.closing)
	}
	n.mu.Unlock()
	select {
	case <-n.done:
		return nil
	case <-ctx.Done():
	}
	before := n.stats.dropped.Load()
	n.abortNow()
	<-n.done
	if left := n.stats.dropped.Load() - before; left > 0 {
		return fmt.Errorf("%w: dropped %d queued notifications", ErrDrainTimeout, left)
	}
	return nil
}

// abortNow stops the sender, interrupts its attempt, and drops the waiting
// notifications; the one in flight is counted by the sender when it gives up.
func (n *Notifier) abortNow() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.aborted {
		return
	}
	n.aborted = true
	close(n.abort)
	if n.inflight != nil {
		n.inflight.Close()
	}
	kept := n.queue[:0:0]
	for _, e := range n.queue {
		if e == n.current {
			kept = append(kept, e)
			continue
		}
		close(e.gone)
		n.stats.dropped.Add(1)
	}
	n.queue = kept
}
