package daemon

import (
	"context"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/hiadsd"
)

// selfSuspicion logs the core's self-suspicion (hiadsd/isolation.go) as it
// begins, as the held verdicts are released, and as it ends, and keeps
// whether the view is withheld from peers for the next snapshot. The loop
// calls it with each interval's report, before record publishes.
func (d *Daemon) selfSuspicion(ctx context.Context, rep hiadsd.Report, began time.Time) {
	hold := d.node.Config.Isolation
	was := d.isolated
	d.isolated = rep.Isolated
	withheld := d.node.Withholds()
	d.mu.Lock()
	d.withheld = withheld
	d.mu.Unlock()
	f := d.log.WithFields(logrus.Fields{"tested": len(rep.Tests), "intervals": rep.Isolated})
	switch {
	case rep.Isolated == 1:
		f.WithField("held", len(rep.Held)).Warnf("no peer this agent tested answered: suspecting its own link, "+
			"its verdicts are held for %d intervals and not spread", hold)
	case rep.Isolated == hold+1 && hold > 0:
		f.WithField("applied", len(rep.Updates)).Warn("still no peer answers: the verdicts are applied here, " +
			"and peers are asked not to read this agent's view until a test answers again")
	case rep.Isolated == 0 && was > 0:
		d.log.WithFields(logrus.Fields{"intervals": was, "rolled_back": len(rep.Updates)}).
			Info("a peer answers again: self-suspicion over, verdicts made while cut off rolled back")
		d.helloAt(ctx, began, "link back")
	}
}
