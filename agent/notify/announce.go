package notify

import (
	"sync"
	"time"

	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
	"github.com/sirupsen/logrus"
)

// Event is an event the agent recorded: its row, the update of the view
// it records, whether this agent's scope notifies it (Policy.Notifies) and,
// if it is held back anyway, why (Mute: the node is in maintenance, it
// flaps, or its peers refuse this agent's keys).
type Event struct {
	Row    mib.Event
	Update hiadsd.Update
	Mute   string
	Notify bool
}

// Announce logs one event and sends its notification when the scope asks for it.
// The first verdict "fault-free" about a node that was unknown is news to no one
// (every agent learns it at start), so it is logged at debug level and not sent.
// The line leaves once the event is on disk; changed is when the view took
// it (and served it), the event's time in diagEventTable.
func (p *Policy) Announce(e Event) {
	ev, u, mute := e.Row, e.Update, e.Mute
	f := p.log.WithFields(logrus.Fields{"node": u.ID + 1, "address": ev.Addr.String(), "old": u.Old.Status.String(),
		"new": u.New.Status.String(), "counter": u.New.Counter, "how": ev.How.String(), "seq": ev.Seq,
		"changed": ev.Time.Format(time.RFC3339Nano)})
	if !u.IsDirect() {
		f = f.WithField("from", u.From+1)
	}
	held := p.grace.hold(ev, u, p.host.Now().Sub(p.start) < p.cfg.StartupGrace)
	if initial(u) {
		f.Debug("node status learned")
		return
	}
	if mute != "" {
		f = f.WithField("muted", mute) // not notified: the harness and an operator can tell
	}
	f.Info("node status changed")
	if p.notifier == nil || !e.Notify {
		return
	}
	if held {
		f.Debug("not notified yet: a first verdict about a node never seen up, within the start-up grace")
		return
	}
	if mute != "" {
		return
	}
	if !p.recoveries.pass(e, p.holds(), p.host.Now()) {
		f.Debug("not notified now: a repair waits until it has held, and a fault the station was last told is not told again")
		return
	}
	p.sendStatus(ev, "")
}

// sendStatus queues the notification of event ev and logs it, with why it
// goes out now if not at once (a repair that held, a change handed over,
// a verdict held through the start-up grace): every status notification an
// agent sends is one "status change notified" line, which the chaos run
// matches against what the station received.
func (p *Policy) sendStatus(ev mib.Event, late string) {
	if p.grouping() && !degradedOnly(ev.Prev, ev.Status) {
		p.group(ev, late)
		return
	}
	p.sendNow(ev, late)
}

// sendNow queues the notification of event ev at once (sendStatus).
func (p *Policy) sendNow(ev mib.Event, late string) {
	f := p.log.WithFields(logrus.Fields{"node": ev.NodeID, "seq": ev.Seq, "new": ev.Status.String()})
	if late != "" {
		f = f.WithField("late", late)
	}
	if err := p.notifier.NodeStatusChange(ev); err != nil {
		f.WithError(err).Warn("notification not queued")
		return
	}
	f.Info("status change notified")
}

// initial reports whether u is a first verdict "fault-free" about a node
// that was unknown: what every agent learns at start, news to no one.
func initial(u hiadsd.Update) bool {
	return u.Old.Status == hiadsd.Unknown && u.New.Status == hiadsd.FaultFree
}

// grace holds back, during the start-up grace, the first faulty or partial
// verdict about a node this agent has never seen up: agents started moments
// apart test each other before the others listen, and every such verdict,
// and its retraction, would be a notification. A held verdict that still
// holds when the grace ends is notified then; one retracted within it is
// never notified, and neither is its retraction. announce (from any
// goroutine that saves) and the loop's endGrace share it.
type grace struct {
	mu     sync.Mutex
	over   bool
	seenUp []bool        // nodes this agent has held fault-free
	held   map[int]Event // node -> its held verdict
}

// hold notes u and reports whether its notification is held back: within
// the grace, a first verdict about a node never seen up, or any later change
// of a node whose verdict is held (a retraction, or a held fault that
// changed kind, which stays held).
func (g *grace) hold(ev mib.Event, u hiadsd.Update, within bool) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	up := u.New.Status == hiadsd.FaultFree
	seen := g.seenUp[u.ID]
	if up {
		g.seenUp[u.ID] = true
	}
	if g.over || !within {
		return false
	}
	if _, ok := g.held[u.ID]; ok {
		delete(g.held, u.ID)
		if !up {
			g.held[u.ID] = Event{Row: ev, Update: u}
		}
		return true
	}
	if !seen && !up && u.Old.Status == hiadsd.Unknown {
		g.held[u.ID] = Event{Row: ev, Update: u}
		return true
	}
	return false
}

// EndGrace ends the grace once it has passed: each held verdict that the
// view still holds is notified now, late but true. It reports whether the
// grace ended with this call; it runs on the loop.
func (p *Policy) EndGrace() bool {
	if p.grace.over || p.host.Now().Sub(p.start) < p.cfg.StartupGrace {
		return false
	}
	p.grace.mu.Lock()
	p.grace.over = true
	held := p.grace.held
	p.grace.held = nil
	p.grace.mu.Unlock()
	for id, e := range held {
		if p.view.Status(id) != e.Update.New.Status || p.notifier == nil || !p.Notifies(e.Update) || p.view.InMaintenance(id) {
			continue
		}
		if !p.recoveries.pass(e, p.holds(), p.host.Now()) {
			continue
		}
		p.sendStatus(e.Row, "a first verdict held through the start-up grace still holds")
	}
	return true
}
