package notify

import (
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/hiadsd"
)

// recoveries holds back two kinds of status notification until they have
// held, as Prometheus holds an alert: the one that a node is fault-free
// again, for Config.RecoveryHold (keep_firing_for), and the one that a node
// is partial, for Config.PartialHold (a rule's for: clause). A member that
// is starved most of the time answers now and then, and a member stopped a
// few seconds at a time is partial now and then: each change was a
// notification. A repair that does not hold is never notified, and neither
// is the fault that follows it when it is the one the station was told; a
// partial verdict that does not hold is never notified, and neither is the
// repair that ends it unless the station was told of a fault. A faulty
// verdict (no answer at all: a crash, a link cut) goes out at once. It also
// remembers, per node, the status the last notification about it carried
// (told), so that a notification never repeats what the station holds.
// announce (from any goroutine that saves) and the loop's releaseRecoveries
// share it.
type recoveries struct {
	mu      sync.Mutex
	told    map[int]hiadsd.Status // per node, the status its last notification sent
	waiting map[int]waitingEvent  // per node, its repair or partial verdict not notified yet
}

// waitingEvent is a held event and when it was recorded.
type waitingEvent struct {
	e  Event
	at time.Time
}

// holds are the holds of the two kinds of event recoveries holds back.
type holds struct{ repair, partial time.Duration }

// holds returns the daemon's holds.
func (p *Policy) holds() holds { return holds{repair: p.cfg.RecoveryHold, partial: p.cfg.PartialHold} }

// of returns how long an event that makes a node st waits, 0 if it goes out at once.
func (h holds) of(st hiadsd.Status) time.Duration {
	switch st {
	case hiadsd.FaultFree:
		return h.repair
	case hiadsd.Partial:
		return h.partial
	}
	return 0
}

// pass reports whether event e goes out now. A repair (fault-free after a
// fault) and a partial verdict wait while their hold is positive, but a
// repair that ends a partial verdict still waiting is dropped with it,
// unless the station was told the node was down; anything else goes out
// unless the station was last told that very status (a repair held back in
// between did not hold).
func (r *recoveries) pass(e Event, h holds, now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	id, st := e.Update.ID, e.Update.New.Status
	if w, ok := r.waiting[id]; ok && w.e.Update.New.Status == hiadsd.Partial && st == hiadsd.FaultFree && !r.outstandingLocked(id) {
		delete(r.waiting, id)
		return false
	}
	if h.of(st) > 0 {
		if told, ok := r.told[id]; ok && told == st {
			delete(r.waiting, id)
			return false
		}
		r.waiting[id] = waitingEvent{e: e, at: now}
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
	return r.outstandingLocked(id)
}

// outstandingLocked is outstanding with r.mu held.
func (r *recoveries) outstandingLocked(id int) bool {
	st, ok := r.told[id]
	return ok && (st == hiadsd.Faulty || st == hiadsd.Partial)
}

// releaseRecoveries notifies each waiting event (a repair, a partial
// verdict) that has held for its hold, if the view still holds the node at
// its status and the station was not told so; an event the view no longer
// holds is dropped. It runs on the loop after each interval.
func (p *Policy) releaseRecoveries(now time.Time) {
	var out []Event
	h := p.holds()
	r := &p.recoveries
	r.mu.Lock()
	for id, w := range r.waiting {
		st := w.e.Update.New.Status
		switch {
		case p.view.Status(id) != st:
			delete(r.waiting, id)
			p.log.WithFields(logrus.Fields{"node": id + 1, "seq": w.e.Row.Seq, "new": st.String(), "now": p.view.Status(id).String()}).
				Info("a change that did not hold is not notified")
		case now.Sub(w.at) >= h.of(st):
			delete(r.waiting, id)
			if told, ok := r.told[id]; !ok || told != st {
				r.told[id] = st
				out = append(out, w.e)
			}
		}
	}
	r.mu.Unlock()
	for _, e := range out {
		if p.view.Mute(e.Update.ID) != "" || p.notifier == nil {
			continue
		}
		p.sendStatus(e.Row, "a change that held "+h.of(e.Update.New.Status).String())
	}
}
