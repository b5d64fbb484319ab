package daemon

import (
	"fmt"
	"net/netip"

	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/hiadsd"
)

// SetNMS is the responder's callback for a SET of nmsID: a SET of the station
// already served changes nothing (issue 13: 1,500 such SETs had pushed every
// node-status notification out of the queue); another station changes
// here at once, with a counter above any this agent knows, and is served at
// once; the core takes it when the next interval begins, and the diagnosis
// carries it to every other agent in its fetches (seed 002 section 5.1).
func (d *Daemon) SetNMS(a netip.Addr) error {
	if !board.StationAddr(a) {
		return fmt.Errorf("nmsID must be an IPv4 unicast host address or 0.0.0.0, got %v", a)
	}
	d.mu.Lock()
	if a == d.st.Station.Addr {
		d.mu.Unlock() // the station it already is: no change, no event, no notification
		return nil
	}
	s := hiadsd.Station{Addr: a, Counter: d.st.Station.Counter + 1}
	d.setNMS = &s
	d.takeNMSLocked(s, logrus.Fields{"how": "set"})
	if d.notify != nil {
		if err := d.notify.NMSChange(s); err != nil {
			d.log.WithError(err).Warn("notification not queued")
		}
	}
	return nil
}

// applyStation hands the core a station SET since the last interval began,
// unless the core has since learned a newer one, which is then served.
func (d *Daemon) applyStation() {
	d.mu.Lock()
	s := d.setNMS
	d.setNMS = nil
	if s == nil {
		d.mu.Unlock()
		return
	}
	if !d.node.Station.Newer(*s) {
		d.node.Station = *s
		d.mu.Unlock()
		return
	}
	d.takeNMSLocked(d.node.Station, logrus.Fields{"how": "learned"})
}

// learnStation serves the stations the core learned in an interval, newest
// last, each one if it is newer than the station served (a SET during the
// interval may be newer still; the core takes it at the next).
func (d *Daemon) learnStation(changes []hiadsd.StationChange) {
	for _, c := range changes {
		d.mu.Lock()
		if !c.New.Newer(d.st.Station) {
			d.mu.Unlock()
			continue
		}
		d.takeNMSLocked(c.New, logrus.Fields{"how": "learned", "from": c.From + 1})
	}
}

// takeNMSLocked makes s the station, publishes it, unlocks d.mu, logs the
// change and saves the state.
func (d *Daemon) takeNMSLocked(s hiadsd.Station, f logrus.Fields) {
	d.st.Station = s
	d.publishLocked()
	d.mu.Unlock()
	d.log.WithFields(f).WithFields(logrus.Fields{"nms": s.Addr.String(), "counter": s.Counter}).Info("management station changed")
	if err := d.saveState(); err != nil {
		d.log.WithError(err).Error("cannot save state")
	}
}
