package daemon

import (
	"context"
	"sync"
)

// Saving the state off the loop. Every event is on disk before it is
// served in the event table or notified (persist), and a save writes a
// file, syncs it and syncs its directory. Made on the loop, each save held
// up the tests, fetches and pushes behind it for as long as the disk took.
// At N = 256 on one disk every agent learns an event within a second and
// all of them sync at once, and a repair's push waited about 0.5 s at each
// hop of the tree behind an agent's earlier save (157 learned a freeze's
// repair 1.9 s after it, through five hops). While Run runs, a goroutine
// of its own saves (saveLoop): record hands it the newest state, which
// holds every event of the states before it, so a burst of events costs
// one save. The view is published at once, as before; only the event rows
// and the notifications wait for the disk. Without Run (a test driving
// intervals), the state is saved at once.
type saving struct {
	mu   sync.Mutex
	on   bool          // a saveLoop takes the states
	next *State        // the newest state not yet saved
	wake chan struct{} // one wake-up waiting at most
}

// start makes later hand states to a saveLoop.
func (s *saving) start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.on, s.wake = true, make(chan struct{}, 1)
}

// later hands st to the saveLoop, in place of any state still waiting; it
// reports false when no saveLoop runs.
func (s *saving) later(st State) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.on {
		return false
	}
	s.next = &st
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return true
}

// take returns the state waiting, nil if none; with stop, later hands no
// more states over.
func (s *saving) take(stop bool) *State {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.next
	s.next = nil
	if stop {
		s.on = false
	}
	return st
}

// saveState saves st on the saveLoop if one runs, at once if not.
func (d *Daemon) saveState(st State) {
	if d.saves.later(st) {
		return
	}
	d.saveNow(&st)
}

// saveNow saves st, if any, and announces the events it put on disk.
func (d *Daemon) saveNow(st *State) {
	if st == nil {
		return
	}
	if err := d.persist(*st); err != nil {
		d.log.WithError(err).Error("cannot save state; new events wait until a save succeeds")
	}
}

// saveLoop saves the states record hands over until ctx ends, then the one
// still waiting, and closes done; from then on states are saved at once.
func (d *Daemon) saveLoop(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	for {
		select {
		case <-d.saves.wake:
			d.saveNow(d.saves.take(false))
		case <-ctx.Done():
			d.saveNow(d.saves.take(true))
			return
		}
	}
}
