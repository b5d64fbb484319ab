package daemon

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/mib"
	"github.com/diagagent/diagagent/traps"
)

// defaultTrapPort is where notifications go when no port is configured.
const defaultTrapPort = 162

// SetNMS is the responder's callback for a SET of nmsID: the station changes
// here at once, with a counter above any this agent knows, so the diagnosis
// carries it to every other agent (seed 002 section 5.1).
func (d *Daemon) SetNMS(a netip.Addr) error {
	if !a.Is4() {
		return fmt.Errorf("nmsID must be an IPv4 address, got %v", a)
	}
	d.mu.Lock()
	c := d.st.NMSCounter + 1
	d.takeNMSLocked(a, c, logrus.Fields{"how": "set"})
	if d.notify != nil {
		if err := d.notify.NMSChange(traps.NMSChange{Station: a, Counter: c}); err != nil {
			d.log.WithError(err).Warn("notification not queued")
		}
	}
	return nil
}

// learnNMS reads nmsID and its counter from every node a fetch succeeded from
// this interval and adopts the newest: a larger counter wins, and on equal
// counters the larger address, so every agent settles on one station.
func (d *Daemon) learnNMS(ctx context.Context, sources []int) {
	for _, j := range sources {
		a, c, err := d.prober.FetchNMS(ctx, d.targets[j])
		if err != nil {
			d.log.WithField("from", j+1).WithError(err).Debug("cannot read nmsID")
			continue
		}
		d.adoptNMS(a, c, j)
	}
}

// adoptNMS takes station a with counter c heard from node j if it is newer.
func (d *Daemon) adoptNMS(a netip.Addr, c uint32, j int) {
	d.mu.Lock()
	mine := d.nmsAddrLocked()
	newer := c > d.st.NMSCounter || (c == d.st.NMSCounter && a.Compare(mine) > 0)
	if !newer || !a.Is4() {
		d.mu.Unlock()
		return
	}
	d.takeNMSLocked(a, c, logrus.Fields{"how": "learned", "from": j + 1})
}

// takeNMSLocked makes a with counter c the station, publishes it, unlocks
// d.mu, logs the change and saves the state.
func (d *Daemon) takeNMSLocked(a netip.Addr, c uint32, f logrus.Fields) {
	d.st.NMS, d.st.NMSCounter = a.String(), c
	d.publishLocked()
	st := d.stateLocked()
	d.mu.Unlock()
	d.log.WithFields(f).WithFields(logrus.Fields{"nms": a.String(), "counter": c}).Info("management station changed")
	if err := SaveState(d.cfg.StateDirFor(d.id), st); err != nil {
		d.log.WithError(err).Error("cannot save state")
	}
}

// Stations lists where notifications may go, in order: the station of nmsID,
// then the configured fall-backs. A station that is a node the diagnosis holds
// faulty is marked unusable, so the notifier moves on to the next one.
func (d *Daemon) Stations() []traps.Station {
	d.mu.Lock()
	nms := d.nmsAddrLocked()
	rows := d.rows
	d.mu.Unlock()
	port := uint16(defaultTrapPort)
	if d.cfg.Traps.NMS.IsValid() && d.cfg.Traps.NMS.Port() != 0 {
		port = d.cfg.Traps.NMS.Port()
	}
	var out []traps.Station
	usable := func(a netip.Addr) bool {
		for _, r := range rows {
			if r.Addr == a && r.Status == mib.StatusFaulty {
				return false
			}
		}
		return true
	}
	if nms.IsValid() && !nms.IsUnspecified() {
		out = append(out, traps.Station{Addr: netip.AddrPortFrom(nms, port).String(), Usable: usable(nms)})
	}
	for _, f := range d.cfg.Traps.Fallbacks {
		out = append(out, traps.Station{Addr: f.String(), Usable: usable(f.Addr())})
	}
	return out
}
