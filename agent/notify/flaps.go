package notify

import (
	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/agent/flap"
	"github.com/diagagent/diagagent/traps"
)

// Flaps logs each node that started or stopped flapping and, at
// the one agent that owns it (owner), notifies it.
func (p *Policy) Flaps(changes []flap.Change) {
	for _, c := range changes {
		f := p.log.WithFields(logrus.Fields{"node": c.ID + 1, "address": p.view.Member(c.ID).Addr.String(),
			"percent": int(c.Percent + 0.5), "status": p.view.Status(c.ID).String()})
		if c.Flapping {
			f.Warn("node flapping: its changes are not notified one by one until it stops")
		} else {
			f.Info("node no longer flapping")
		}
		p.met.flaps.WithLabelValues(map[bool]string{true: "started", false: "stopped"}[c.Flapping]).Inc()
		if p.notifier == nil || p.owner(c.ID) != p.view.Self() || p.view.InMaintenance(c.ID) {
			continue
		}
		n := traps.Flapping{Node: uint32(c.ID + 1), Addr: p.view.Member(c.ID).Addr, Flapping: c.Flapping, Status: p.view.Status(c.ID)}
		p.recoveries.tell(c.ID, n.Status)
		if err := p.notifier.NodeFlapping(n); err != nil {
			f.WithError(err).Warn("notification not queued")
		}
	}
}
