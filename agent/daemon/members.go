package daemon

import (
	"encoding/hex"
	"errors"
	"net/netip"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/flap"
	"github.com/diagagent/diagagent/agent/membership"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/traps"
)

// runList is the node list the loop runs; the changes it waits to make,
// and how it agrees with its peers, are the room's (members, agent/membership).
type runList struct {
	members  *membership.Membership
	list     nodelist.List      // the list the core runs, with the file's names, communities and OIDs (WithFile); owned by the loop
	listHash []byte             // its diagNodeListHash
	self     nodelist.Member    // this agent's own node, as the file gives it: its id in any list (IndexOf)
	origin   uint32             // this agent in the stamps of its changes (nodelist.OriginOf)
	moved    map[int]netip.Addr // nodes whose host name resolves elsewhere now, for the next interval (under mu)
	lists    listCheck          // peers last read with a list that does not merge with this agent's
	refused  []uint32           // NodeIDs of the peers in loop.refusing, for the snapshot (under mu)
	removed  bool               // the list removed this agent's node: it no longer tests
}

// Members is the room of the node list this agent runs: the changes a
// manager makes here (AddNode, RemoveNode, Reload, ChangeKeys, ...) go
// through it.
func (d *Daemon) Members() *membership.Membership { return d.members }

// applyPending switches to the list the changes made here and the lists
// merged in queued, at the start of an interval (or at once after a merge,
// between two intervals). The queued list stays the latest until the
// switch is done, so a change made meanwhile (a SET does not wait for the
// loop) is built on it, and is queued for the next interval in turn.
func (d *Daemon) applyPending() {
	next := d.members.Pending()
	if next == nil {
		return
	}
	if next.Hash != d.list.Hash {
		d.switchList(*next)
	}
	d.members.Applied(next)
}

// switchList moves the agent to l between two intervals: the core keeps
// what it knows of the nodes that stay (ids keep their meaning), a new
// node starts unknown, a removed one is no longer tested nor shown, an id
// that names another node than it did (one that moved, nodelist.Reset) is
// forgotten. A list of another base (a new agent taking the others' list)
// starts the core afresh. The nodes added and removed here are notified.
func (d *Daemon) switchList(l nodelist.List) {
	old := d.list
	self := l.IndexOf(d.self)
	var err error
	switch {
	case self < 0:
		err = hiadsd.ErrRemoved
	case !nodelist.SameBase(old, l):
		err = d.rebuild(l, self)
	default:
		reset := l.Reset(old)
		if err = d.node.Renumber(d.cfg.core(l), coreVersion(l), reset, self); err == nil {
			d.grow(len(l.Members))
			d.forget(reset)
			if self != d.id {
				d.forget([]int{self})
			}
		}
	}
	switch {
	case errors.Is(err, hiadsd.ErrRemoved):
		if !d.removed {
			d.log.WithField("version", l.Version).Warn("this agent's node was removed from the node list: it no longer tests, and keeps answering until it is stopped or added again")
		}
		d.removed, self = true, d.id
	case err != nil:
		d.log.WithError(err).Error("cannot switch to the new node list")
		return
	case d.removed:
		d.removed = false
		d.log.WithField("node", self+1).Info("this agent's node is in the node list again: it tests again")
	}
	d.view = d.node.View.(hiadsd.Dense)
	d.mu.Lock()
	file := d.members.File()
	d.moved = map[int]netip.Addr{} // a host name's move is for the list it was resolved in
	d.mu.Unlock()
	l = l.WithFile(file)
	added, removed := l.Diff(old)
	d.log.WithFields(logrus.Fields{"version": l.Version, "fingerprint": hex.EncodeToString(l.Hash[:]), "added": ids(added),
		"removed": ids(removed), "nodes": l.Count(), "self": self + 1}).Info("node list changed")
	d.mu.Lock()
	d.list, d.listHash, d.id = l, l.Hash[:], self
	d.members.SetRunning(l) // under mu: a snapshot never serves one list's version with another's table
	d.mu.Unlock()
	d.listSince = d.now()
	d.members.SwitchKeys(old, l)
	d.mu.Lock()
	d.st.Nodes, d.st.List = len(l.Members), &l
	d.rows = d.buildRows()
	d.graph = d.testingGraph()
	d.publishLocked()
	d.mu.Unlock()
	if err := d.saveState(); err != nil {
		d.log.WithError(err).Error("cannot save the new node list")
	} else {
		d.members.ForgetKeys(old, l)
	}
	d.notifyChanges(l, added, removed, old)
}

// rebuild starts the core afresh on l, a list of another base, with this
// agent as node self: nothing it knew by id holds there.
func (d *Daemon) rebuild(l nodelist.List, self int) error {
	n := len(l.Members)
	node, err := hiadsd.NewNode(d.cfg.core(l), self, hiadsd.NewDense(n))
	if err != nil {
		return err
	}
	node.List, node.Station = coreVersion(l), d.node.Station
	d.node = node
	d.how, d.changed, d.held = nil, nil, nil
	d.pol.Reset(n)
	d.mu.Lock()
	d.st.Counters, d.st.Statuses = nil, nil
	d.mu.Unlock()
	d.flaps = flap.New(d.cfg.Flapping)
	d.grow(n)
	clear(d.told)
	clear(d.refusing)
	clear(d.maintOpen)
	d.members.Reset()
	d.mu.Lock()
	clear(d.hi.heard)
	d.mu.Unlock()
	d.lists.mu.Lock()
	clear(d.lists.other)
	clear(d.lists.held)
	d.lists.mu.Unlock()
	return nil
}

// grow extends what the agent keeps per id to n ids.
func (d *Daemon) grow(n int) {
	for len(d.how) < n {
		d.how, d.changed = append(d.how, 0), append(d.changed, 0)
	}
	d.pol.Grow(n)
	d.mu.Lock()
	for len(d.st.Counters) < n {
		d.st.Counters = append(d.st.Counters, 0)
	}
	d.mu.Unlock()
}

// forget drops what the agent knew of ids that name other nodes now. It
// runs on the loop, which owns most of it; the rest is under its locks.
func (d *Daemon) forget(reset []int) {
	if len(reset) == 0 {
		return
	}
	for _, id := range reset {
		d.flaps.Forget(id)
		delete(d.told, id)
		delete(d.refusing, id)
		delete(d.maintOpen, id)
		d.members.Forget(id)
		d.lists.forget(id)
		d.pol.Forget(id)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, id := range reset {
		d.how[id], d.changed[id] = 0, 0
		d.st.Counters[id] = 0
		if id < len(d.st.Statuses) {
			d.st.Statuses[id] = hiadsd.Unknown
		}
		if id < len(d.held) {
			d.held[id] = hiadsd.Unknown
		}
		delete(d.hi.heard, id)
	}
}

// notifyChanges sends diagNodeListChange for each node added or removed by
// a change made here (its stamp's origin is this agent). A node of this
// agent's that a merge moved to another id is no new node: the conflict
// notification said where it went.
func (d *Daemon) notifyChanges(l nodelist.List, added, removed []int, old nodelist.List) {
	if d.notify == nil {
		return
	}
	send := func(id int, a netip.Addr, gone bool) {
		c := traps.ListChange{Version: l.Version, Hash: l.Hash[:], Node: uint32(id + 1), Addr: a, Removed: gone}
		if err := d.notify.NodeListChange(c); err != nil {
			d.log.WithError(err).Warn("notification not queued")
		}
	}
	for _, id := range added {
		if m := l.Members[id]; m.Added.Origin == d.origin && !m.Added.IsZero() && old.IDOf(l, id) < 0 { // moved, not added: notifyLost told it
			send(id, m.Addr, false)
		}
	}
	for _, id := range removed {
		if m := l.Members[id]; m.Deleted && m.DeletedAt.Origin == d.origin && !m.DeletedAt.IsZero() {
			send(id, old.Members[id].Addr, true)
		}
	}
}

// ids turns core ids into NodeIDs for a log line.
func ids(core []int) []int {
	out := make([]int, len(core))
	for k, id := range core {
		out[k] = id + 1
	}
	return out
}

// membersHost is the daemon as the node list's room's Host.
type membersHost struct{ d *Daemon }

func (h *membersHost) Now() time.Time              { return h.d.now() }
func (h *membersHost) Save() error                 { return h.d.saveState() }
func (h *membersHost) Apply()                      { h.d.applyPending() }
func (h *membersHost) Conflict(id int, why string) { h.d.conflict(id, why) }

// PublishNext serves at once the diagNodeNextID of the latest list, so
// that a manager adding nodes one after another between two intervals
// reads the id its next add takes.
func (h *membersHost) PublishNext() {
	h.d.republish(func(s *board.Snapshot) { s.NextID = h.d.members.NextID() })
}
