package notify

import (
	"context"
	"net/netip"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
	"github.com/diagagent/diagagent/traps"
)

// causes groups the status notifications this agent would send into
// causes (hiadsd.Grouper): each node's change waits here for the group
// window, and nodes lost together go out as one diagCauseChange, as does
// their return, which says whether they were down or cut off. A node that
// went alone goes out as its own diagNodeStatusChange when the window
// closes. Every agent groups every change it would notify; who sends a
// cause is decided when it is due: the owner of its nodes, the fault-free
// agent of the lowest id outside it. Decided change by change as the view
// takes them, the nodes of one switch had as many owners as the order in
// which the view learned them (each the lowest not known down yet), and the
// group split. Every goroutine that notifies (the loop, a saver) adds to
// it; the loop, after each interval, and a timer send what is due.
type causes struct {
	mu      sync.Mutex
	g       hiadsd.Grouper
	waiting map[int]waitingStatus // per node, its event while its cause is not due
	handed  []unowned             // changes of causes another agent owns, for the loop to leave to it (handover)
	timer   *time.Timer
	due     time.Time // when the timer fires; zero when it is not set
	closed  bool      // the daemon stopped: no timer is set again

	sweeping   bool               // a sweep is out (sweep.go)
	again      bool               // faults changed while it was out
	sweeps     sync.WaitGroup     // the sweeps' goroutines
	sweepCtx   context.Context    // ends the sweeps when the daemon stops
	stopSweeps context.CancelFunc // nil until the first sweep
}

// waitingStatus is a node's event waiting for its cause, and why it went
// out late if it did.
type waitingStatus struct {
	ev   mib.Event
	late string
}

// grouping reports whether the agent groups its status notifications.
func (p *Policy) grouping() bool { return p.cfg.GroupWindow > 0 && p.notifier != nil }

// since is the grouper's clock: the time since the daemon started.
func (p *Policy) since(t time.Time) time.Duration { return t.Sub(p.start) }

// group hands the notification of event ev to the grouper.
func (p *Policy) group(ev mib.Event, late string) {
	c := &p.causes
	now := p.host.Now()
	id := int(ev.NodeID) - 1
	e := hiadsd.Entry{Status: ev.Status, Counter: ev.Counter}
	c.mu.Lock()
	if c.waiting == nil {
		c.waiting = map[int]waitingStatus{}
		c.g.Window = p.cfg.GroupWindow
	}
	c.waiting[id] = waitingStatus{ev: ev, late: late}
	if ev.Status.Up() { // fault-free, or degraded: back up either way
		c.g.Back(p.since(now), id, e)
	} else {
		c.g.Lost(p.since(now), id, e)
		c.sweepLocked(p)
	}
	c.armLocked(p, now)
	c.mu.Unlock()
}

// armLocked sets the timer for the next cause due; c.mu is held. The
// timer runs only on the real clock (a test's clock moves by hand, and its
// loop sends what is due).
func (c *causes) armLocked(p *Policy, now time.Time) {
	next, ok := c.g.Next()
	if !ok || !p.realClock || c.closed {
		return
	}
	at := p.start.Add(next)
	if !c.due.IsZero() && !at.Before(c.due) {
		return
	}
	if c.timer != nil {
		c.timer.Stop()
	}
	c.due = at
	c.timer = time.AfterFunc(max(at.Sub(now), 0), p.sendCauses)
}

// CauseGroups is nodeCauseGroup: the groups out, by NodeID; nil when
// none is. It takes c.mu: the agent's own lock may be held, never the
// other way round.
func (p *Policy) CauseGroups() map[uint32]uint32 {
	c := &p.causes
	c.mu.Lock()
	out := c.g.Out()
	c.mu.Unlock()
	if out == nil {
		return nil
	}
	m := make(map[uint32]uint32, len(out))
	for id, g := range out {
		m[uint32(id+1)] = g
	}
	return m
}

// movedEntries passes the grouper the nodes whose entries moved in an interval
// or a push (hiadsd.Report.Moved), and drops the nodes that can no longer
// be part of a cause: removed from the list, or in a maintenance window.
// It runs on the loop.
func (p *Policy) movedEntries(ids []int) {
	if !p.grouping() {
		return
	}
	c := &p.causes
	at := p.since(p.host.Now())
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		c.g.Moved(at, id)
	}
	for id := range c.waiting {
		if id >= p.view.Size() || p.view.Member(id).Removed || p.view.InMaintenance(id) {
			c.g.Forget(id)
			delete(c.waiting, id)
		}
	}
}

// sendCauses sends the causes that are due: a node alone as its
// diagNodeStatusChange, a group as one diagCauseChange. Any goroutine.
func (p *Policy) sendCauses() { p.sendDue(false) }

// endCauses sends every cause still waiting, its window cut short, and
// sets no timer again: the daemon is stopping, and a change it recorded
// is notified, not lost. Run calls it on the way out.
func (p *Policy) endCauses() {
	c := &p.causes
	c.mu.Lock()
	c.closed = true
	if c.timer != nil {
		c.timer.Stop()
	}
	c.stopSweepsLocked()
	c.mu.Unlock()
	c.sweeps.Wait()
	p.sendDue(true)
}

// sendDue sends the causes due now, or all of them.
func (p *Policy) sendDue(all bool) {
	c := &p.causes
	c.mu.Lock()
	_, waits := c.g.Next()
	c.mu.Unlock()
	now := p.host.Now()
	snap := p.host.Snapshot()
	if !waits || snap == nil {
		return // nothing waits (the loop asks after every interval), or nothing published yet
	}
	n := 0
	present := map[int]bool{} // the rows leave removed nodes out
	for _, r := range snap.Nodes {
		n, present[int(r.ID)-1] = max(n, int(r.ID)), true
	}
	at := p.since(now)
	if all {
		at = 1 << 62 // past every window
	}
	c.mu.Lock()
	c.due = time.Time{}
	due := c.g.Due(at, n, func(id int) bool { return !present[id] })
	out := make([][]waitingStatus, len(due))
	for k, cause := range due {
		for _, ie := range cause.Nodes {
			if w, ok := c.waiting[ie.ID]; ok {
				out[k] = append(out[k], w)
				delete(c.waiting, ie.ID)
			}
		}
	}
	c.armLocked(p, now)
	c.mu.Unlock()
	if len(due) > 0 { // the groups out changed: served before they are told
		p.host.RepublishCauses()
	}
	for k, cause := range due {
		if len(out[k]) == 0 {
			continue
		}
		if o := ownerOutside(snap, cause.IDs()); o != p.view.Self() && o >= 0 {
			c.leave(out[k], o, now)
			continue
		}
		if cause.Single() {
			p.sendNow(out[k][0].ev, out[k][0].late)
			continue
		}
		p.sendCause(cause, out[k], snap, now)
	}
}

// leave keeps the changes of a cause another agent owns, for the loop to
// leave to it (handover): if that owner fails before it is known to have
// sent them, this agent may become their owner.
func (c *causes) leave(ws []waitingStatus, owner int, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, w := range ws {
		ev := w.ev
		u := hiadsd.Update{ID: int(ev.NodeID) - 1, Old: hiadsd.Entry{Status: ev.Prev}, New: hiadsd.Entry{Status: ev.Status, Counter: ev.Counter}, From: hiadsd.Direct}
		c.handed = append(c.handed, unowned{Event: Event{Row: ev, Update: u}, owner: owner, at: now})
	}
}

// takeHanded returns the changes left to other owners since the last call.
func (c *causes) takeHanded() []unowned {
	c.mu.Lock()
	defer c.mu.Unlock()
	h := c.handed
	c.handed = nil
	return h
}

// ownerOutside returns the owner of nodes in the snapshot: the agent of
// the lowest id held fault-free outside them, -1 if none.
func ownerOutside(s *board.Snapshot, nodes []int) int {
	for _, r := range s.Nodes {
		if r.Status == hiadsd.FaultFree && !r.TestedOnly && !r.Removed && !slices.Contains(nodes, int(r.ID)-1) {
			return int(r.ID) - 1
		}
	}
	return -1
}

// sendCause sends one diagCauseChange for a group's loss or return. The
// return of a group cut off is told by one side only: the side of the
// agent of the lowest id, which is then the owner of every node; the
// other side's agent, whose own loss of that side was true of its view,
// leaves the heal to it.
func (p *Policy) sendCause(c hiadsd.Cause, ws []waitingStatus, snap *board.Snapshot, now time.Time) {
	kind := mib.CauseLost
	if c.Back {
		kind = mib.CauseBackUnknown
		switch {
		case c.Cut:
			kind = mib.CauseBackCut
		case c.Lost > 0 || c.Split != 0:
			kind = mib.CauseBackDown
		}
	}
	n := traps.Cause{Kind: kind, Group: c.Group, Split: c.Split}
	var addrs []netip.Addr
	for _, w := range ws {
		n.Nodes = append(n.Nodes, traps.CauseNode{ID: w.ev.NodeID, Status: w.ev.Status})
		addrs = append(addrs, w.ev.Addr)
	}
	n.Subnet = subnetOf(addrs)
	if c.Back && c.Lost > 0 {
		n.Lasted = p.since(now) - c.Lost
	}
	ids := make([]uint32, len(n.Nodes))
	for k, x := range n.Nodes {
		ids[k] = x.ID
	}
	f := p.log.WithFields(logrus.Fields{"kind": causeKinds[kind], "group": c.Group, "split": c.Split,
		"nodes": mib.NodeRanges(ids, 255), "count": len(ids)})
	if c.Back && c.Lost > 0 {
		f = f.WithField("lasted", n.Lasted.Round(time.Second).String())
	}
	if c.Cut {
		if low := lowestAgent(snap); low >= 0 && slices.Contains(ids, uint32(low+1)) {
			f.WithField("teller", low+1).Info("a cut healed: the side of the lowest agent tells it")
			return
		}
	}
	if err := p.notifier.CauseChange(n); err != nil {
		f.WithError(err).Warn("notification not queued")
		return
	}
	p.met.cause(causeKinds[kind])
	f.Info("cause notified")
}

// causeKinds names the values of diagCauseKind, for logs and metrics.
var causeKinds = map[int]string{mib.CauseLost: "lost", mib.CauseBackDown: "back-down",
	mib.CauseBackCut: "back-cut", mib.CauseBackUnknown: "back"}

// lowestAgent returns the agent of the lowest id the snapshot holds
// fault-free, -1 if none.
func lowestAgent(s *board.Snapshot) int {
	for _, r := range s.Nodes {
		if r.Status == hiadsd.FaultFree && !r.TestedOnly && !r.Removed {
			return int(r.ID) - 1
		}
	}
	return -1
}

// subnetOf returns the smallest prefix holding every address, as
// "198.18.0.16/29"; "" when there are none or they differ in family.
func subnetOf(addrs []netip.Addr) string {
	if len(addrs) == 0 {
		return ""
	}
	first := addrs[0].Unmap()
	bits := first.BitLen()
	for _, a := range addrs[1:] {
		a = a.Unmap()
		if a.BitLen() != first.BitLen() {
			return ""
		}
		for bits > 0 {
			p, _ := first.Prefix(bits)
			if p.Contains(a) {
				break
			}
			bits--
		}
	}
	p, _ := first.Prefix(bits)
	return p.Masked().Addr().String() + "/" + strconv.Itoa(bits)
}
