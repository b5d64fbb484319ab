package daemon

import (
	"fmt"
	"time"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/flap"
	"github.com/diagagent/diagagent/agent/notify"
	"github.com/diagagent/diagagent/agent/state"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// journal is what the agent says: its events, the state that survives a
// restart, the rows and the snapshot it serves, and what it holds back
// during start-up. The state and the snapshot are under mu.
type journal struct {
	st        state.State
	savedSeq  uint32         // the newest event sequence number on disk; later events are not served yet
	unsaved   []notify.Event // events recorded but not on disk, not yet notified
	rows      []board.Row    // immutable once published
	cur       *board.Snapshot
	graph     [][]int
	lastDone  time.Time // when the loop last finished an interval, for hiADSDisUP and hellos
	lastBegan time.Time // when it last began one, for hiADSDisUP
	withheld  bool      // the view holds verdicts made while cut off: diagViewDigest is served empty
	doubting  bool      // the agent doubts its own tests: diagSelfDoubt
	seesLoss  bool      // it sees loss on its tests (hiadsd.Doubt.SeesLoss): diagViewDigest's ninth octet 2
	calm      bool      // its view is calm (hiadsd.Node.Calm): it may answer a question with degraded
	unreached []uint32  // NodeIDs out of this agent's reach alone: diagUnreached

	// how, changed and held are owned by the loop goroutine.
	how     []mib.Source
	changed []uint32        // nodeLastChange, hundredths of a second since start
	held    []hiadsd.Status // what the state file held per node, until the first verdict on it
}

// record turns one interval's report into event rows, log lines,
// notifications, a new snapshot and, if anything changed, a saved state. An
// event is served and notified only once the state that holds it is on disk,
// so a restart after a failed save never names two events with one sequence
// number nor loses an event it served (the events wait, and go out with the
// next save that succeeds).
func (d *Daemon) record(rep hiadsd.Report) {
	now := d.now()
	ticks := uint32(now.Sub(d.start) / (10 * time.Millisecond))
	var flaps []flap.Change
	for _, u := range rep.Updates { // changes undone before the next sample count too, one a sample
		if !d.inMaintenance(u.ID) {
			d.flaps.Moved(u.ID)
		}
	}
	if d.sample { // one sample a planned testing interval, as the window's 21 mean
		flaps = d.flaps.Observe(d.statuses())
	}
	d.sample = false
	d.mu.Lock()
	for _, u := range rep.Updates {
		d.how[u.ID], d.changed[u.ID] = source(u), max(ticks, 1)
		if d.restores(u) {
			continue
		}
		d.st.LastSeq++
		ev := mib.Event{Seq: d.st.LastSeq, NodeID: uint32(u.ID + 1), Addr: d.list.Members[u.ID].Addr,
			Status: u.New.Status, Prev: u.Old.Status, Counter: u.New.Counter,
			Time: now.UTC(), How: source(u)}
		if u.IsDirect() {
			ev.Detector = uint32(d.id + 1)
		} else {
			ev.Source = uint32(u.From + 1)
		}
		d.st.Events = append(d.st.Events, ev)
		e := notify.Event{Row: ev, Update: u, Mute: d.mute(u.ID), Notify: d.pol.Notifies(u)}
		d.unsaved = append(d.unsaved, e)
		d.pol.Recorded(e, now)
	}
	if n := len(d.st.Events); n > maxEvents {
		d.st.Events = append([]mib.Event(nil), d.st.Events[n-maxEvents:]...)
	}
	if n := len(d.unsaved); n > maxEvents { // the table no longer holds the oldest: they cannot be served
		d.unsaved = append([]notify.Event(nil), d.unsaved[n-maxEvents:]...)
	}
	moved := d.keepView(d.view)
	dirty := moved || len(d.unsaved) > 0
	d.rows = d.buildRows()
	d.graph = d.testingGraph()
	d.lastDone = now
	d.publishLocked()
	d.mu.Unlock()
	d.pol.Flaps(flaps)
	if dirty {
		if err := d.saveState(); err != nil {
			d.log.WithError(err).Error("cannot save state; new events wait until a save succeeds")
		}
	}
	d.pol.Settle(now, rep.Moved)
}

// saveState saves the state as it is now and, once it is on disk, serves
// and notifies the events it holds that were waiting for a save. Every
// save goes through it (an interval's, a station change's, a change of the
// list, the last one on the way out), so whichever succeeds first releases
// them. Saves take turns, each taking the state when its turn comes, so
// the file never goes back to an older state than one already saved.
func (d *Daemon) saveState() error {
	d.saving.Lock()
	defer d.saving.Unlock()
	d.mu.Lock()
	st := d.state()
	d.mu.Unlock()
	if err := state.Save(d.cfg.StateDir, st); err != nil {
		return err
	}
	d.mu.Lock()
	d.savedSeq = max(d.savedSeq, st.LastSeq)
	var out []notify.Event
	for len(d.unsaved) > 0 && d.unsaved[0].Row.Seq <= d.savedSeq {
		out, d.unsaved = append(out, d.unsaved[0]), d.unsaved[1:]
	}
	if len(out) > 0 {
		d.publishLocked()
	}
	d.mu.Unlock()
	for _, e := range out {
		d.pol.Announce(e)
	}
	return nil
}

// mute says why an event about node id, recorded now, is not notified: the
// node is in maintenance, it flaps, or this agent is the one whose keys its peers refuse; ""
// for an event to notify. It runs on the loop, which owns what it reads.
func (d *Daemon) mute(id int) string {
	switch {
	case d.inMaintenance(id):
		return "the node is in maintenance (a window's end notifies its status if it changed)"
	case d.flaps.Flapping(id):
		return "the node flaps (diagNodeFlapping said so, and will say when it stops)"
	case d.lagging && d.refusing[id]:
		return "the verdict tells that the peer refuses this agent's cluster keys, which diagNodeKeyRefused said"
	}
	return ""
}

// restores reports whether u is a restarted agent's first verdict on a node
// that gives back what its state file held, the same status at the same
// counter: that is no event, and neither recorded nor notified (a node still
// partial across a restart was announced again at every restart). Any later
// change is news as usual.
func (j *journal) restores(u hiadsd.Update) bool {
	if u.ID >= len(j.held) || j.held[u.ID] == hiadsd.Unknown {
		return false
	}
	held := j.held[u.ID]
	j.held[u.ID] = hiadsd.Unknown // only the first verdict can restore
	return u.Old.Status == hiadsd.Unknown && u.New.Status == held && u.New.Counter == j.st.Counters[u.ID]
}

// source says how an update was learned.
func source(u hiadsd.Update) mib.Source {
	if u.IsDirect() {
		return mib.SourceDirect
	}
	return mib.SourceLearned
}

// keepView copies the view's counters and statuses into the state and
// reports a change.
func (j *journal) keepView(view hiadsd.Dense) bool {
	moved := false
	if len(j.st.Statuses) != len(view) {
		j.st.Statuses = make([]hiadsd.Status, len(view))
		for k := range j.st.Statuses {
			j.st.Statuses[k] = hiadsd.Unknown
		}
	}
	for k, e := range view {
		if j.st.Counters[k] != e.Counter {
			j.st.Counters[k], moved = e.Counter, true
		}
		if st := e.Status; j.st.Statuses[k] != st {
			j.st.Statuses[k], moved = st, true
		}
	}
	return moved
}

// state returns a copy of the state that state.Save may encode unlocked,
// with the list changes waiting for the next interval (under mu).
func (d *Daemon) state() state.State {
	j := &d.journal
	st := j.st
	d.members.Saved(&st)
	st.Counters = append([]uint32(nil), j.st.Counters...)
	st.Statuses = append([]hiadsd.Status(nil), j.st.Statuses...)
	st.Events = j.st.Events[:len(j.st.Events):len(j.st.Events)]
	return st
}

// buildRows makes the diagTree rows from the view, leaving out the nodes
// removed from the list; it runs on the loop goroutine.
func (d *Daemon) buildRows() []board.Row {
	rows := make([]board.Row, 0, len(d.view))
	for k, e := range d.view {
		if k < len(d.list.Members) && d.list.Members[k].Removed {
			continue
		}
		rows = append(rows, board.Row{ID: uint32(k + 1), Member: d.list.Members[k], Status: e.Status,
			Counter: e.Counter, LastChange: d.changed[k], How: d.how[k], Flapping: d.flaps.Flapping(k)})
	}
	return rows
}

// publishLocked hands the responder a new snapshot of rows, events and station.
func (d *Daemon) publishLocked() {
	evs := d.st.Events
	for len(evs) > 0 && evs[len(evs)-1].Seq > d.savedSeq { // not on disk yet: not served
		evs = evs[:len(evs)-1]
	}
	list, secret, deltas := d.members.Table()
	s := &board.Snapshot{Nodes: d.rows, Events: evs[:len(evs):len(evs)],
		Self: uint32(d.id + 1), TestedOnly: d.list.Members[d.id].TestedOnly, Up: d.upLocked(), Station: d.st.Station,
		NodeListHash: d.listHash, ListMismatch: d.lists.peers(), ListVersion: d.list.Version, ListIDs: uint32(len(d.list.Members)),
		Keys: d.members.BoardKeys(), KeyRefused: d.refused, NextID: d.members.NextID(), List: list, ListSecret: secret,
		ListStable: d.list.Stable.Bytes(), ListDelta: deltas, Causes: d.pol.CauseGroups()}
	s.Digest, s.Withheld, s.SelfDoubt, s.SeesLoss, s.Unreached = s.FetchDigest(), d.withheld, d.doubting, d.seesLoss, d.unreached
	if err := d.board.Publish(s); err != nil {
		d.log.WithError(err).Error("cannot publish the view")
		return
	}
	d.cur = s
}

// save writes the state; Run calls it on the way out. When it cannot, the
// error is returned only if events that were never saved are lost with it;
// otherwise the directory was already failing (boots latched, events
// waiting) and the one log line says so.
func (d *Daemon) save() error {
	d.mu.Lock()
	d.keepView(d.view)
	d.mu.Unlock()
	err := d.saveState()
	if err == nil {
		return nil
	}
	d.mu.Lock()
	lost := len(d.unsaved)
	d.mu.Unlock()
	if lost > 0 {
		return fmt.Errorf("%w: %d events never saved are lost", err, lost)
	}
	d.log.WithError(err).Warn("cannot save state on the way out; no event is lost")
	return nil
}
