package daemon

import (
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/hiadsd"
)

// recoveries holds back the notification that a node is fault-free again
// until it has held for Config.RecoveryHold, as Prometheus's
// keep_firing_for holds an alert: a member that is starved most of the
// time answers now and then, and each answer, and the fault found at the
// next test, was a notification. A repair that does not hold is never
// notified, and neither is the fault that follows it when it is the one
// the station was told. It also remembers, per node, the status the last
// notification about it carried (told), so that a notification never
// repeats what the station holds. announce (from any goroutine that
// saves) and the loop's releaseRecoveries share it.
type recoveries struct {
	mu      sync.Mutex
	told    map[int]hiadsd.Status // per node, the status its last notification sent
	waiting map[int]waitingRepair // per node, its repair not notified yet
}

// waitingRepair is a repair's event and when it was recorded.
type waitingRepair struct {
	e  unsavedEvent
	at time.Time
}

// pass reports whether event e goes out now. A repair (fault-free after a
// fault) waits while hold is positive; a fault goes out unless the
// station was last told that very status (a repair held back in between
// did not hold).
func (r *recoveries) pass(e unsavedEvent, hold time.Duration, now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	id, st := e.u.ID, e.u.New.Status
	if st == hiadsd.FaultFree && hold > 0 {
		r.waiting[id] = waitingRepair{e: e, at: now}
		return false
	}
	delete(r.waiting, id)
	if told, ok := r.told[id]; ok && told == st {
		return false
	}
	r.told[id] = st
	return true
}

// tell notes that a notification told the station node id is at st (a
// flapping or maintenance notification carries the status), dropping a
// repair that waits: the station was told already.
func (r *recoveries) tell(id int, st hiadsd.Status) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.told[id] = st
	delete(r.waiting, id)
}

// outstanding reports whether the last notification about node id said
// it was faulty or partial.
func (r *recoveries) outstanding(id int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	st, ok := r.told[id]
	return ok && (st == hiadsd.Faulty || st == hiadsd.Partial)
}

// releaseRecoveries notifies each waiting repair that has held for
// Config.RecoveryHold, if the view still holds the node fault-free and the
// station was not told so; a repair the view no longer holds is dropped.
// It runs on the loop after each interval.
func (d *Daemon) releaseRecoveries(now time.Time) {
	var out []unsavedEvent
	r := &d.recoveries
	r.mu.Lock()
	for id, w := range r.waiting {
		switch {
		case d.view[id].Status != hiadsd.FaultFree:
			delete(r.waiting, id)
			d.log.WithFields(logrus.Fields{"node": id + 1, "seq": w.e.ev.Seq, "now": d.view[id].Status.String()}).
				Info("a repair that did not hold is not notified")
		case now.Sub(w.at) >= d.cfg.RecoveryHold:
			delete(r.waiting, id)
			if r.told[id] != hiadsd.FaultFree {
				r.told[id] = hiadsd.FaultFree
				out = append(out, w.e)
			}
		}
	}
	r.mu.Unlock()
	for _, e := range out {
		if d.mute(e.u.ID) != "" || d.notify == nil {
			continue
		}
		d.sendStatus(e.ev, "a repair that held "+d.cfg.RecoveryHold.String())
	}
}
