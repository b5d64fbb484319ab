package notify

import (
	"strconv"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/hiadsd"
)

// Scope says which agents notify the station of a node's status change.
type Scope int

const (
	// Owner has one agent notify each change: the node's owner (owner),
	// when its view takes the change, tested or learned. Several agents may
	// find one change at once (the testers a hello asks, the agents that
	// settle a disagreement, the testers of the full plan): the owner's view
	// takes it once.
	Owner Scope = iota
	// Detected has each agent notify the changes its own tests found.
	Detected
	// All has each agent notify every change its view takes: the
	// papers' behaviour, one notification per agent.
	All
)

// owner returns the agent that notifies about node id (its status changes,
// its flapping, the end of its maintenance window): the agent of the lowest
// id, but id itself, that this agent's view holds fault-free; -1 if none.
// It is chosen from the shared diagnosis, with no election: agents whose
// views agree name the same one. It runs on the loop, which owns the view.
func (p *Policy) owner(id int) int {
	for k := range p.view.Size() {
		m := p.view.Member(k)
		if k != id && p.view.Status(k) == hiadsd.FaultFree && !m.Removed && !m.TestedOnly {
			return k
		}
	}
	return -1
}

// Notifies reports whether this agent notifies update u under its scope.
// Under Owner that is the owner's job, but not while this agent
// withholds its view (it reaches none of its peers, and holds them faulty
// as its own link's fault: it would be the owner of every node, and every
// verdict false); and any agent that told the station a node was down
// tells it the node is up again, owner or not: after a cut-off, the owner's
// view never changed, and only the agent that spoke can retract.
func (p *Policy) Notifies(u hiadsd.Update) bool {
	switch p.cfg.Scope {
	case All:
		return true
	case Detected:
		return u.IsDirect()
	}
	if u.New.Status.Up() && p.recoveries.outstanding(u.ID) {
		return true
	}
	if p.view.Withholds() {
		return false
	}
	if p.grouping() && !degradedOnly(u.Old.Status, u.New.Status) {
		return true // the cause's owner is decided when it is due (causes.go)
	}
	return p.owner(u.ID) == p.view.Self()
}

// degradedOnly reports whether a change from prev to st is a node turning
// degraded from fault-free, or back: up all along, no cause of faults, so
// it is notified at once by the node's owner, outside the grouping. A
// faulty or partial node that turns degraded is back up: the return of a
// cause, which the grouping tells (and every agent's record of what the
// station was told follows).
func degradedOnly(prev, st hiadsd.Status) bool {
	return st == hiadsd.Degraded && prev.Up() || prev == hiadsd.Degraded && st == hiadsd.FaultFree
}

// unowned is the latest change of a node that this agent recorded and left
// to the node's owner, kept for a handover: an owner that fails may have
// failed before it notified.
type unowned struct {
	Event
	owner int
	at    time.Time
	gone  time.Time // when the owner was first seen not fault-free; zero while it is
}

// Recorded notes event e, recorded now: its change is left to the node's
// owner (kept for a handover), or the last one left is forgotten when this
// agent notifies the change itself. It runs on the loop.
func (p *Policy) Recorded(e Event, now time.Time) {
	if p.cfg.Scope != Owner || e.Notify || initial(e.Update) {
		delete(p.left, e.Update.ID)
		return
	}
	p.left[e.Update.ID] = unowned{Event: e, owner: p.owner(e.Update.ID), at: now}
}

// handoverWindow is how long a change left to an owner waits to be handed
// over: the time a fault takes to be known everywhere by pull alone
// (hiadsd.PullBound: 2·log2 N rounds on the rotating plan), and one round
// more. An owner whose fault is known later than that is slower than the
// diagnosis's own bound.
func (p *Policy) handoverWindow() time.Duration {
	rounds := hiadsd.PullBound(p.cfg.Algorithm, p.view.Size(), p.cfg.Rotate) + 1
	return time.Duration(rounds) * (p.cfg.Interval*11/10 + p.cfg.TestBudget)
}

// handover notifies, once this agent has become a node's owner because the
// owner it left the node's last change to is no longer fault-free, that
// change, if the view still holds it and it is on disk. It forgets the
// changes left longer than handoverWindow ago. Two notifications of one
// change are possible (the failed owner sent it just before it failed),
// none lost. The owner must have been gone for traps.partial_hold first,
// as a partial verdict must hold before it is told: an owner restarted
// for an upgrade is back within it, and had sent its changes. It runs on
// the loop, after record.
func (p *Policy) handover(now time.Time) {
	if p.view.Withholds() || p.view.Isolated() {
		return // no peer answers: the owner's fault is likely this agent's own link's
	}
	saved := p.host.SavedSeq()
	for id, l := range p.left {
		if now.Sub(l.at) > p.handoverWindow() || p.view.Status(id) != l.Row.Status {
			delete(p.left, id)
			continue
		}
		gone := l.owner < 0 || p.view.Status(l.owner) != hiadsd.FaultFree || p.view.Member(l.owner).Removed
		switch {
		case !gone:
			l.gone = time.Time{}
		case l.gone.IsZero():
			l.gone = now
		}
		p.left[id] = l
		if !gone || now.Sub(l.gone) < p.cfg.PartialHold || p.owner(id) != p.view.Self() || l.Row.Seq > saved {
			continue
		}
		delete(p.left, id)
		f := p.log.WithFields(logrus.Fields{"node": id + 1, "new": l.Row.Status.String(), "seq": l.Row.Seq,
			"owner": l.owner + 1, "late": now.Sub(l.at).Round(time.Millisecond).String()})
		if mute := p.view.Mute(id); mute != "" || p.notifier == nil || !p.recoveries.pass(l.Event, p.holds(), now) {
			f.WithField("muted", mute).Debug("a change left to an owner that failed is this agent's now, not notified now")
			continue
		}
		f.Info("a change left to an owner that failed before it was known: notified by the new owner")
		p.sendStatus(l.Row, "handed over by node "+strconv.Itoa(l.owner+1))
	}
}
