package board

import (
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"sync/atomic"
)

// ErrSnapshot is wrapped by Publish's error for a snapshot whose rows are out of order.
var ErrSnapshot = errors.New("board: invalid snapshot")

// Board holds the Snapshot last published: the daemon publishes, and the
// SNMP responder, the notifier and the page read it. Load is one atomic load,
// cheap enough for every request; Changed wakes waiters at the next Publish.
// The zero Board holds an empty Snapshot and is ready to use.
type Board struct {
	cur atomic.Pointer[Snapshot]
	mu  sync.Mutex
	ch  chan struct{} // closed at the next Publish
}

// NewBoard returns an empty board.
func New() *Board { return &Board{} }

// Load returns the snapshot last published, an empty one before the first.
func (b *Board) Load() *Snapshot {
	if s := b.cur.Load(); s != nil {
		return s
	}
	return &Snapshot{}
}

// Publish makes s the snapshot later loads return; s must not change
// afterwards. A snapshot with rows out of order is refused and the old one kept.
func (b *Board) Publish(s *Snapshot) error {
	if err := s.Validate(); err != nil {
		return err
	}
	b.cur.Store(s)
	b.mu.Lock()
	if b.ch != nil {
		close(b.ch)
		b.ch = nil
	}
	b.mu.Unlock()
	return nil
}

// Changed returns a channel closed at the next Publish.
func (b *Board) Changed() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ch == nil {
		b.ch = make(chan struct{})
	}
	return b.ch
}

// Validate checks that rows and events are in strictly ascending order with
// non-zero indexes, as the tables serve them.
func (s *Snapshot) Validate() error {
	if s == nil {
		return fmt.Errorf("%w: nil", ErrSnapshot)
	}
	for i := range s.Nodes {
		if s.Nodes[i].ID == 0 || (i > 0 && s.Nodes[i].ID <= s.Nodes[i-1].ID) {
			return fmt.Errorf("%w: Nodes[%d].ID %d is zero or not ascending", ErrSnapshot, i, s.Nodes[i].ID)
		}
	}
	for i := range s.Events {
		if s.Events[i].Seq == 0 || (i > 0 && s.Events[i].Seq <= s.Events[i-1].Seq) {
			return fmt.Errorf("%w: Events[%d].Seq %d is zero or not ascending", ErrSnapshot, i, s.Events[i].Seq)
		}
	}
	return nil
}

// StationAddr reports whether a may be the management station (nmsID): an
// IPv4 unicast host address, or 0.0.0.0, which means none. Broadcast,
// multicast, link-local, "this network" (0/8 but 0.0.0.0) and the reserved
// 240/4 are refused, since notifications sent there reach no one station.
func StationAddr(a netip.Addr) bool {
	if !a.Is4() {
		return false
	}
	if a.IsUnspecified() {
		return true
	}
	b := a.As4()
	switch {
	case a.IsMulticast(), a.IsLinkLocalUnicast(), b[0] == 0, b[0] >= 240:
		return false
	}
	return true
}
