package netsnmptest

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// ErrExited is returned by Lines.Wait when the program printing the lines ended.
var ErrExited = errors.New("netsnmptest: the program exited")

// Lines is what a program printed, one entry a line, safe for concurrent
// use: a reader goroutine adds lines as they come, tests wait for the one
// they expect. snmptrapd's output (a test's Trapd, the LAN's station) is
// read this way.
type Lines struct {
	mu    sync.Mutex
	lines []string
	wake  chan struct{} // closed and replaced when a line arrives
}

// Add appends one line and wakes every waiter.
func (l *Lines) Add(line string) {
	l.mu.Lock()
	l.lines = append(l.lines, line)
	if l.wake != nil {
		close(l.wake)
		l.wake = nil
	}
	l.mu.Unlock()
}

// All returns every line so far.
func (l *Lines) All() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

// Mark returns the number of lines so far, to Wait for later ones.
func (l *Lines) Mark() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.lines)
}

// Notifications returns the notification lines (snmptrapd's "NOTIFY ...",
// see TrapFormat) from line index from on.
func (l *Lines) Notifications(from int) []string {
	var out []string
	for k, line := range l.All() {
		if k >= from && strings.HasPrefix(line, "NOTIFY ") {
			out = append(out, line)
		}
	}
	return out
}

// Wait waits up to timeout for a line at index from or later that match
// accepts and returns its index; it gives up early (ErrExited) when exited
// is closed.
func (l *Lines) Wait(timeout time.Duration, from int, exited <-chan struct{}, match func(string) bool) (int, error) {
	deadline := time.After(timeout)
	for {
		l.mu.Lock()
		for k := from; k < len(l.lines); k++ {
			if match(l.lines[k]) {
				l.mu.Unlock()
				return k, nil
			}
		}
		from = max(from, len(l.lines))
		if l.wake == nil {
			l.wake = make(chan struct{})
		}
		wake := l.wake
		l.mu.Unlock()
		select {
		case <-wake:
		case <-exited:
			return -1, fmt.Errorf("%w; output:\n%s", ErrExited, strings.Join(l.All(), "\n"))
		case <-deadline:
			return -1, fmt.Errorf("nothing matched within %v; output:\n%s", timeout, strings.Join(l.All(), "\n"))
		}
	}
}
