package web

import (
	"time"

	"github.com/diagagent/diagagent/agent/board"
)

// Source is what the page shows, as the daemon offers it (daemon.Daemon
// implements it); every method must be safe for concurrent use.
type Source interface {
	// Snapshot is the view last published; it never changes afterwards.
	Snapshot() *board.Snapshot
	// Graph lists, by core id, the ids each node tests this interval.
	Graph() [][]int
	// Started is when the daemon started; NodeRow.LastChange counts from it.
	Started() time.Time
	// Changed returns a channel closed when the next snapshot is published.
	Changed() <-chan struct{}
}
