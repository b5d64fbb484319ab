package web

import "sync"

// hub wakes every waiter when a new snapshot is published: waiters hold the
// current channel, and broadcast closes it and makes the next one.
type hub struct {
	mu sync.Mutex
	ch chan struct{}
}

// wait returns a channel closed at the next broadcast.
func (h *hub) wait() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ch
}

// broadcast wakes every waiter; it never blocks.
func (h *hub) broadcast() {
	h.mu.Lock()
	close(h.ch)
	h.ch = make(chan struct{})
	h.mu.Unlock()
}
