//go:build linux

package lan

import (
	"encoding/json"
	"fmt"
	"maps"
	"sync"
	"time"
)

// Event is one "node status changed" line of an agent's JSON log. At is
// when the member's view took the change: the line's own "changed" stamp,
// which both diagagent and swimmember write from memory at that moment
// (the line's "time" is when it was logged: for an agent, once the change
// is on disk), or Read when it carries none. Read is when the harness read
// the line: later by the time the line spent on its way out (the save; a
// pipe waiting for a busy reader).
type Event struct {
	At   time.Time
	Read time.Time
	Self int    // NodeID (1-based) of the agent that logged it
	Node int    // NodeID the line is about
	Old  string // fault-free, faulty, partial or unknown
	New  string
	How  string // direct or learned
	Seq  int    // the event's row in the agent's event table
	// Muted says why the agent did not notify it (the node flaps, or the
	// agent's keys are refused); "" for an event it notified.
	Muted string
}

// logLine is the part of a diagagent JSON log line Event needs.
type logLine struct {
	Msg   string `json:"msg"`
	Self  int    `json:"self"`
	Node  int    `json:"node"`
	Old   string `json:"old"`
	New   string `json:"new"`
	How   string `json:"how"`
	Seq   int    `json:"seq"`
	Muted string `json:"muted"`
	// Changed is the view's own time of the change (RFC 3339 with
	// nanoseconds), when the line carries one.
	Changed string `json:"changed"`
}

// ParseEvent reads a log line the harness read at time read; ok is false
// for anything but a status change, an agent's refusal of an entry (New
// "refused": Self did not take what it was told about Node), or one of
// swimmember's two suspicion lines, read as the changes New "raised" (this
// member's probe of Node failed) and "refuted" (Self heard that it is
// suspected; Node is Self).
func ParseEvent(line string, read time.Time) (ev Event, ok bool) {
	var l logLine
	if err := json.Unmarshal([]byte(line), &l); err != nil {
		return Event{}, false
	}
	switch l.Msg {
	case "node status changed":
	case "suspicion raised":
		l.New = Raised
	case "suspicion refuted":
		l.New, l.Node = Refuted, l.Self
	case "entry refused":
		l.New = Refused
	default:
		return Event{}, false
	}
	if l.Node == 0 {
		return Event{}, false
	}
	return Event{At: stamped(l.Changed, read), Read: read, Self: l.Self, Node: l.Node, Old: l.Old, New: l.New,
		How: l.How, Seq: l.Seq, Muted: l.Muted}, true
}

// stamped is the time a line's changed stamp names, or read when it names
// none (or one after read: the line cannot be read before it was written).
func stamped(changed string, read time.Time) time.Time {
	t, err := time.Parse(time.RFC3339Nano, changed)
	if err != nil || t.After(read) {
		return read
	}
	return t
}

// Sent is an agent's "status change notified" line: Self queued the
// notification of its event Seq, node Node at Status.
type Sent struct {
	Self, Node, Seq int
	Status          string
}

// ParseSent reads a log line; ok is false for anything but a status
// change notified.
func ParseSent(line string) (s Sent, ok bool) {
	var l logLine
	if err := json.Unmarshal([]byte(line), &l); err != nil || l.Msg != "status change notified" || l.Node == 0 {
		return Sent{}, false
	}
	return Sent{Self: l.Self, Node: l.Node, Seq: l.Seq, Status: l.New}, true
}

// The New of swimmember's suspicion lines and of an agent's refusal
// (ParseEvent).
const (
	Raised  = "raised"
	Refuted = "refuted"
	Refused = "refused"
)

// Change reports whether e is a change of status, not a suspicion raised
// or refuted, nor a refusal.
func (e Event) Change() bool { return e.New != Raised && e.New != Refuted && e.New != Refused }

// eventLog collects the Events of a group of processes as they log them.
type eventLog struct {
	mu     sync.Mutex
	events []Event
	sent   []Sent            // the status notifications the agents logged, in order
	now    map[[2]int]string // latest(events), kept as they arrive
	wake   chan struct{}     // closed and replaced when an event arrives
}

// newEventLog returns an empty log.
func newEventLog() *eventLog {
	return &eventLog{now: map[[2]int]string{}, wake: make(chan struct{})}
}

// record turns a log line into an Event.
func (l *eventLog) record(line string) {
	if s, ok := ParseSent(line); ok {
		l.mu.Lock()
		l.sent = append(l.sent, s)
		l.mu.Unlock()
		return
	}
	ev, ok := ParseEvent(line, time.Now())
	if !ok {
		return
	}
	l.mu.Lock()
	l.events = append(l.events, ev)
	if ev.Change() {
		l.now[[2]int{ev.Self, ev.Node}] = ev.New
	}
	close(l.wake)
	l.wake = make(chan struct{})
	l.mu.Unlock()
}

// Mark returns the number of events so far, to look at later ones only.
func (l *eventLog) Mark() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.events)
}

// Events returns a copy of the events from index from on.
func (l *eventLog) Events(from int) []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Event(nil), l.events[min(from, len(l.events)):]...)
}

// Notified returns a copy of the status notifications the agents logged.
func (l *eventLog) Notified() []Sent {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Sent(nil), l.sent...)
}

// Latest is each (Self, Node) pair's latest status, as latest(Events(0))
// but without going over every event: at N = 256 memberlist logs a million
// lines, and whoever walks them all under the lock stalls the readers of
// the members' output, and so the members.
func (l *eventLog) Latest() map[[2]int]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.now)
}

// WaitLatest waits up to timeout until cond holds for Latest, looking every
// 100 ms.
func (l *eventLog) WaitLatest(timeout time.Duration, cond func(map[[2]int]string) bool) error {
	deadline := time.Now().Add(timeout)
	for !cond(l.Latest()) {
		if time.Now().After(deadline) {
			return fmt.Errorf("%w after %v", ErrTimeout, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil
}

// WaitEvents waits up to timeout until cond holds for the events from index
// from on; it is checked again each time a process logs an event.
func (l *eventLog) WaitEvents(timeout time.Duration, from int, cond func([]Event) bool) error {
	deadline := time.After(timeout)
	for {
		l.mu.Lock()
		evs, wake := l.events, l.wake
		ok := cond(evs[min(from, len(evs)):])
		l.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-wake:
		case <-deadline:
			return fmt.Errorf("%w after %v", ErrTimeout, timeout)
		}
	}
}
