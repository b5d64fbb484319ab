package daemon

import (
	"time"

	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/hiadsd"
)

// SetMaintenance is the responder's callback for a SET of a node's
// maintenance window (nodeMaintenanceUntil or nodeMaintenanceFor): the
// window ending at until, the zero time (or one past) to end it. It is a
// change of the node list made here, saved before it returns and queued
// for the next interval, which every agent learns as it learns an added
// node. Errors wrap nodelist.ErrNoMember or nodelist.ErrTooLong.
func (d *Daemon) SetMaintenance(node uint32, until time.Time) error {
	d.mu.Lock()
	status := hiadsd.Unknown
	if d.cur != nil {
		for _, r := range d.cur.Nodes {
			if r.ID == node {
				status = r.Status
			}
		}
	}
	d.mu.Unlock()
	return d.members.SetMaintenance(node, until, status)
}

// inMaintenance reports whether node id's maintenance window is open now
// (the loop's list).
func (d *Daemon) inMaintenance(id int) bool {
	return id < len(d.list.Members) && d.list.Members[id].Maint.Active(d.now())
}

// watchMaintenance notes, after each interval, the windows that opened
// and closed since the last: each is logged, and a window that closed on a
// node whose status is not the one it had when the window began is
// notified, once, by the agent that owns the node's notifications
// (owner). It runs on the loop.
func (d *Daemon) watchMaintenance() {
	now := d.now()
	for id, m := range d.list.Members {
		w, was := d.maintOpen[id]
		open := !m.Removed && m.Maint.Active(now)
		switch {
		case open:
			if !was {
				d.log.WithFields(logrus.Fields{"node": id + 1, "address": m.Addr.String(), "until": m.Maint.Until.Format(time.RFC3339),
					"status": m.Maint.Status.String()}).Info("node in maintenance: it is still tested, and not notified until the window ends")
			}
			d.maintOpen[id] = *m.Maint
		case was:
			delete(d.maintOpen, id)
			d.pol.MaintenanceEnded(id, w)
		}
	}
}

// statuses is one sample of the view for the flapping detector: every
// node's status, by id (a removed node's is its last). A node in
// maintenance counts at the status it had when its window began: what it
// does meanwhile is the work under way, not flapping.
func (d *Daemon) statuses() []hiadsd.Status {
	out := make([]hiadsd.Status, len(d.view))
	for k, e := range d.view {
		out[k] = e.Status
		if d.inMaintenance(k) {
			out[k] = d.list.Members[k].Maint.Status
		}
	}
	return out
}
