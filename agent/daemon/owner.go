package daemon

import (
	"strconv"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/hiadsd"
)

// Scope says which agents notify the station of a node's status change.
type Scope int

const (
	// NotifyOwner has one agent notify each change: the node's owner (owner),
	// when its view takes the change, tested or learned. Several agents may
	// find one change at once (the testers a hello asks, the agents that
	// settle a disagreement, the testers of the full plan): the owner's view
	// takes it once.
	NotifyOwner Scope = iota
	// NotifyDetected has each agent notify the changes its own tests found.
	NotifyDetected
	// NotifyAll has each agent notify every change its view takes: the
	// papers' behaviour, one notification per agent.
	NotifyAll
)

// owner returns the agent that notifies about node id (its status changes,
// its flapping, the end of its maintenance window): the agent of the lowest
// id, but id itself, that this agent's view holds fault-free; -1 if none.
// It is chosen from the shared diagnosis, with no election: agents whose
// views agree name the same one. It runs on the loop, which owns the view.
func (d *Daemon) owner(id int) int {
	for k, e := range d.view {
		m := d.list.Members[k]
		if k != id && e.Status == hiadsd.FaultFree && !m.Removed && !m.TestedOnly {
			return k
		}
	}
	return -1
}

// notifies reports whether this agent notifies update u under its scope.
// Under NotifyOwner that is the owner's job, but not while this agent
// withholds its view (it reaches none of its peers, and holds them faulty
// as its own link's fault: it would be the owner of every node, and every
// verdict false); and any agent that told the station a node was down
// tells it the node is up again, owner or not: after a cut-off, the owner's
// view never changed, and only the agent that spoke can retract.
func (d *Daemon) notifies(u hiadsd.Update) bool {
	switch d.cfg.Notify {
	case NotifyAll:
		return true
	case NotifyDetected:
		return u.IsDirect()
	}
	if u.New.Status.Up() && d.recoveries.outstanding(u.ID) {
		return true
	}
	if d.node.Withholds() {
		return false
	}
	if d.grouping() && !degradedOnly(u.Old.Status, u.New.Status) {
		return true // the cause's owner is decided when it is due (causes.go)
	}
	return d.owner(u.ID) == d.id
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
	unsavedEvent
	owner int
	at    time.Time
	gone  time.Time // when the owner was first seen not fault-free; zero while it is
}

// leave notes that the change of e is left to the node's owner, or
// forgets the last one left when this agent notifies the change itself.
func (d *Daemon) leave(e unsavedEvent, now time.Time) {
	if d.cfg.Notify != NotifyOwner || e.notify || initial(e.u) {
		delete(d.left, e.u.ID)
		return
	}
	d.left[e.u.ID] = unowned{unsavedEvent: e, owner: d.owner(e.u.ID), at: now}
}

// handoverWindow is how long a change left to an owner waits to be handed
// over: the time a fault takes to be known everywhere by pull alone
// (hiadsd.PullBound: 2·log2 N rounds on the rotating plan), and one round
// more. An owner whose fault is known later than that is slower than the
// diagnosis's own bound.
func (d *Daemon) handoverWindow() time.Duration {
	c := d.node.Config
	rounds := hiadsd.PullBound(c.Algorithm, len(d.view), c.Rotate) + 1
	return time.Duration(rounds) * (d.cfg.Interval*11/10 + d.cfg.TestBudget)
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
func (d *Daemon) handover(now time.Time) {
	if d.node.Withholds() || d.isolated > 0 {
		return // no peer answers: the owner's fault is likely this agent's own link's
	}
	d.mu.Lock()
	saved := d.savedSeq
	d.mu.Unlock()
	for id, l := range d.left {
		if now.Sub(l.at) > d.handoverWindow() || d.view[id].Status != l.ev.Status {
			delete(d.left, id)
			continue
		}
		gone := l.owner < 0 || d.view[l.owner].Status != hiadsd.FaultFree || d.list.Members[l.owner].Removed
		switch {
		case !gone:
			l.gone = time.Time{}
		case l.gone.IsZero():
			l.gone = now
		}
		d.left[id] = l
		if !gone || now.Sub(l.gone) < d.cfg.PartialHold || d.owner(id) != d.id || l.ev.Seq > saved {
			continue
		}
		delete(d.left, id)
		f := d.log.WithFields(logrus.Fields{"node": id + 1, "new": l.ev.Status.String(), "seq": l.ev.Seq,
			"owner": l.owner + 1, "late": now.Sub(l.at).Round(time.Millisecond).String()})
		if mute := d.mute(id); mute != "" || d.notify == nil || !d.recoveries.pass(l.unsavedEvent, d.holds(), now) {
			f.WithField("muted", mute).Debug("a change left to an owner that failed is this agent's now, not notified now")
			continue
		}
		f.Info("a change left to an owner that failed before it was known: notified by the new owner")
		d.sendStatus(l.ev, "handed over by node "+strconv.Itoa(l.owner+1))
	}
}
