package notify

import (
	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/traps"
)

// MaintenanceEnded logs the end of node id's window w and, if its status
// changed since w began, notifies it at the owner.
func (p *Policy) MaintenanceEnded(id int, w nodelist.Window) {
	m := p.view.Member(id)
	st := p.view.Status(id)
	f := p.log.WithFields(logrus.Fields{"node": id + 1, "address": m.Addr.String(), "status": st.String(), "began": w.Status.String()})
	if m.Removed || st == w.Status {
		f.Info("maintenance window ended: the node's status is the one it had when the window began, nothing to notify")
		return
	}
	f.Info("maintenance window ended with the node's status changed")
	if p.notifier == nil || p.owner(id) != p.view.Self() {
		return
	}
	e := traps.MaintenanceEnded{Node: uint32(id + 1), Addr: m.Addr, Status: st, Began: w.Status}
	p.recoveries.tell(id, st)
	if err := p.notifier.NodeMaintenanceEnded(e); err != nil {
		f.WithError(err).Warn("notification not queued")
	}
}
