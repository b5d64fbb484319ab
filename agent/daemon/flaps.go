package daemon

import (
	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/agent/flap"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/traps"
)

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

// announceFlaps logs each node that started or stopped flapping and, at
// the one agent that owns it (owner), notifies it.
func (d *Daemon) announceFlaps(changes []flap.Change) {
	for _, c := range changes {
		f := d.log.WithFields(logrus.Fields{"node": c.ID + 1, "address": d.list.Members[c.ID].Addr.String(),
			"percent": int(c.Percent + 0.5), "status": d.view[c.ID].Status.String()})
		if c.Flapping {
			f.Warn("node flapping: its changes are not notified one by one until it stops")
		} else {
			f.Info("node no longer flapping")
		}
		d.met.flaps.WithLabelValues(map[bool]string{true: "started", false: "stopped"}[c.Flapping]).Inc()
		if d.notify == nil || d.owner(c.ID) != d.id || d.inMaintenance(c.ID) {
			continue
		}
		n := traps.Flapping{Node: uint32(c.ID + 1), Addr: d.list.Members[c.ID].Addr, Flapping: c.Flapping, Status: d.view[c.ID].Status}
		d.recoveries.tell(c.ID, n.Status)
		if err := d.notify.NodeFlapping(n); err != nil {
			f.WithError(err).Warn("notification not queued")
		}
	}
}
