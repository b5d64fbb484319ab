package traps

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/sirupsen/logrus"
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

	mu       sync.Mutex
	queue    []*entry
	closed   bool
	aborted  bool
	inflight net.Conn // the socket of the attempt in progress, closed on abort

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
		log = logrus.NewEntry(quiet)
	}
	n := &Notifier{
		cfg:     cfg,
		log:     log.WithField("kind", cfg.Kind.String()),
		wake:    make(chan struct{}, 1),
		closing: make(chan struct{}),
		abort:   make(chan struct{}),
		done:    make(chan struct{}),
	}
	go n.run()
	return n, nil
}

// NodeStatusChange queues a diagNodeStatusChange notification for the event.
func (n *Notifier) NodeStatusChange(e Event) error {
	if err := e.Validate(); err != nil {
		return err
	}
	return n.enqueue(statusChange(e))
}

// NMSChange queues a diagNMSChange notification.
func (n *Notifier) NMSChange(c NMSChange) error {
	if err := c.Validate(); err != nil {
		return err
	}
	return n.enqueue(nmsChange(c))
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
		oldest := n.queue[0]
		n.removeLocked(oldest)
		n.stats.dropped.Add(1)
		n.log.WithField("notification", oldest.note.label).Warn("notification queue full, dropped the oldest")
	}
	n.queue = append(n.queue, &entry{note: note, gone: make(chan struct{})})
	n.mu.Unlock()
	select {
	case n.wake <- struct{}{}:
	default:
	}
	return nil
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

// head returns the oldest queued notification, or nil.
func (n *Notifier) head() *entry {
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.queue) == 0 || n.aborted {
		return nil
	}
	return n.queue[0]
}

// run sends queued notifications in order until shut down.
func (n *Notifier) run() {
	defer close(n.done)
	for {
		e := n.head()
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
		n.mu.Lock()
		n.removeLocked(e)
		n.mu.Unlock()
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
	left := n.abortNow()
	<-n.done
	if left == 0 {
		return nil
	}
	return fmt.Errorf("%w: dropped %d queued notifications", ErrDrainTimeout, left)
}

// abortNow stops the sender, interrupts its attempt, and drops the queue.
func (n *Notifier) abortNow() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.aborted {
		return 0
	}
	n.aborted = true
	close(n.abort)
	if n.inflight != nil {
		n.inflight.Close()
	}
	left := len(n.queue)
	for len(n.queue) > 0 {
		n.removeLocked(n.queue[0])
	}
	n.stats.dropped.Add(uint64(left))
	return left
}
