package daemon

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/agent/keyring"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/traps"
)

// membership is the node list the agent runs, with what it waits to
// change in it and the peers found running another.
type membership struct {
	list       nodelist.List          // the list the core runs, with the file's names, communities and OIDs (WithFile); owned by the loop
	listHash   []byte                 // its diagNodeListHash
	file       []nodelist.Member      // the file's nodes
	pending    *nodelist.List         // a list changed by SET or reload, for the next interval (under mu)
	moved      map[int]netip.Addr     // nodes whose host name resolves elsewhere now, for the next interval (under mu)
	lists      listCheck              // peers last read with another node list
	keys       map[uint32]keyring.Key // the cluster keys held, by index: the list's, and one installed for the next (under mu)
	refusedIDs []uint32               // NodeIDs of the peers in loop.refusing, for the snapshot (under mu)
	removed    bool                   // the list removed this agent's node: it no longer tests
}

// errListAhead refuses a peer's list whose version leads this agent's by
// more than a correct peer's can (hiadsd.MaxLead).
var errListAhead = errors.New("a node list too far ahead")

// ErrRemoveSelf refuses a change that removes this agent's own node: it is
// removed through another agent, which it then learns from.
var ErrRemoveSelf = errors.New("an agent does not remove its own node; remove it through another agent")

// start is where an agent begins (startList): the list it runs and its own
// id there, a change of the file to apply at the first interval, and the
// list as the core takes it.
type start struct {
	list     nodelist.List      // the list it runs, its members named as the file names them
	id       int                // this agent's id in list
	next     *nodelist.List     // the file's list, edited while the agent was down: a change made at the first interval
	core     *hiadsd.Config     // the core's configuration on list
	version  hiadsd.ListVersion // list, as the core compares lists
	fileHash string             // the file's list, as the state remembers it
	keysHash string             // the keyring file's keys, as the state remembers them
}

// startList chooses the list the agent starts with: its file's, unless the
// state holds a list (learned or changed since) and the file is the one
// last applied, in which case the state's list stands and a file that
// differs from it is reported as older. A file edited while the agent was
// down is the next list, a change of the state's list (next version) made
// at the first interval and notified as any change made here. The agent's
// own node must be in the list it runs.
func startList(c Config, st State, log *logrus.Entry) (start, error) {
	fromFile := nodelist.New(c.Nodes)
	s := start{list: fromFile, fileHash: hex.EncodeToString(fromFile.Hash[:]), keysHash: keysHash(c.Keys)}
	fileKeys := keyring.Ring{Keys: c.Keys}.Indexes()
	if st.List == nil {
		s.list.Keys = fileKeys
		s.list.Seal()
	} else {
		s.list = *st.List
		if st.FileHash == s.fileHash {
			if s.list.NodesOnly().Hash != fromFile.Hash { // the fingerprint of its nodes alone, as the file's
				log.WithFields(logrus.Fields{"running": s.list.Version, "file": s.fileHash}).
					Warn("the configuration file holds an older node list than the one this agent runs (learned through the diagnosis, or changed by SNMP): keeping the running list; write it to the file to silence this")
			}
		} else if edited, changed := s.list.Apply(c.Nodes); changed {
			log.WithFields(logrus.Fields{"version": edited.Version}).Info("the configuration file's node list was edited since the last run: applied as a change at the first interval")
			s.next = &edited
		}
		if st.KeysHash != s.keysHash && !slices.Equal(s.list.Keys, fileKeys) {
			base := s.list
			if s.next != nil {
				base = *s.next
			}
			edited, _ := base.WithKeys(fileKeys)
			log.WithFields(logrus.Fields{"version": edited.Version, "keys": keyIDs(fileKeys)}).Info("the keyring file was edited since the last run: its keys are applied as a change at the first interval")
			s.next = &edited
		}
	}
	self := c.Nodes[c.Self]
	if s.id = s.list.Find(self.Addr, self.Port); s.id < 0 {
		return start{}, fmt.Errorf("node %d (%s) is not in the node list this agent runs (version %d): it was removed; add it again through another agent, or start afresh (empty state_dir): %w",
			c.Self+1, self.Addr, s.list.Version, hiadsd.ErrRemoved)
	}
	s.list = s.list.WithFile(c.Nodes)
	s.core, s.version = c.core(s.list), coreVersion(s.list)
	return s, nil
}

// latest is the list the next change applies to (under mu): the one queued, or
// the running one.
func (m *membership) latest() nodelist.List {
	if m.pending != nil {
		return *m.pending
	}
	return m.list
}

// AddNode queues node id+1 (the next id) at addr and port: a manager's
// createAndGo of its diagTree row. It runs from the next interval on.
// Errors wrap nodelist.ErrBadIndex or nodelist.ErrExists.
func (d *Daemon) AddNode(id int, m nodelist.Member) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	next, err := d.latest().Add(id, m)
	if err != nil {
		return err
	}
	d.pending = &next
	return nil
}

// RemoveNode queues the removal of node id: a manager's destroy of its
// diagTree row. Errors wrap nodelist.ErrNoMember or ErrRemoveSelf.
func (d *Daemon) RemoveNode(id int) error {
	if id == d.id {
		return ErrRemoveSelf
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	next, err := d.latest().Remove(id)
	if err != nil {
		return err
	}
	d.pending = &next
	return nil
}

// Reload queues the node list of an edited file (SIGHUP), matched by
// address and port, and the keys of an edited keyring file (keys, none
// without a keyring): the keys run are the file's only if the file changed
// since it was last read, so keys rotated by SNMP stay until the file is
// edited. It returns the version it will run, and false if the files
// change nothing.
func (d *Daemon) Reload(nodes []nodelist.Member, keys []keyring.Key) (uint32, bool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	base := d.latest()
	next, changed := base.Apply(nodes)
	if changed && next.Members[d.id].Removed {
		return base.Version, false, ErrRemoveSelf
	}
	if h := keysHash(keys); h != d.st.KeysHash {
		if len(keys) == 0 || len(base.Keys) == 0 {
			return base.Version, false, errors.New("the keyring is turned on or off only at a restart of every agent")
		}
		withKeys, keysChanged := next.WithKeys(keyring.Ring{Keys: keys}.Indexes())
		if keysChanged && !changed {
			next = withKeys
		} else if keysChanged {
			next.Keys = withKeys.Keys
			next.Seal()
		}
		changed = changed || keysChanged
		for _, k := range keys {
			d.keys[k.Index()] = k
		}
		d.st.KeysHash = h
	}
	if !changed {
		return base.Version, false, nil
	}
	d.file = nodes
	d.pending = &next
	return next.Version, true, nil
}

// applyPending switches to the list a SET or a reload queued, at the start
// of an interval, and notifies the station of each node added or removed.
func (d *Daemon) applyPending() {
	d.mu.Lock()
	next := d.pending
	d.pending = nil
	d.mu.Unlock()
	if next != nil {
		d.switchList(*next, hiadsd.Direct)
	}
}

// adoptList reads the newest list the interval's sources run, and switches
// to it if it is still newer than this agent's.
func (d *Daemon) adoptList(ctx context.Context, seen []hiadsd.ListSeen) {
	best := -1
	for k, s := range seen {
		if best < 0 || s.List.Newer(seen[best].List) {
			best = k
		}
	}
	if best < 0 {
		return
	}
	from := seen[best].From
	got, err := d.prober.FetchList(ctx, d.list.Members[from])
	if err != nil {
		d.log.WithFields(logrus.Fields{"from": from + 1}).WithError(err).Warn("cannot read a newer node list; trying again at the next interval")
		return
	}
	l, keys, err := d.learned(got, d.now())
	if err != nil {
		if errors.Is(err, errListAhead) {
			d.met.refused.Inc()
		}
		d.log.WithFields(logrus.Fields{"from": from + 1}).WithError(err).Warn("refused a peer's node list")
		return
	}
	if coreVersion(l).Newer(coreVersion(d.list)) {
		d.mu.Lock()
		maps.Copy(d.keys, keys)
		d.mu.Unlock()
		d.switchList(l, from)
	}
}

// learned turns a peer's list as read into a List: an id below its count
// with no row is removed (its old member kept, if this agent knew it). A
// maintenance window no agent could have given at now (ending more than
// nodelist.MaxWindow and a day of clock skew away) refuses the list.
func (m *membership) learned(got probe.List, now time.Time) (nodelist.List, map[uint32]keyring.Key, error) {
	if int(got.IDs) < len(m.list.Members) || len(got.Hash) != 8 {
		return nodelist.List{}, nil, fmt.Errorf("version %d has %d ids, fewer than this agent's %d: ids are never taken back", got.Version, got.IDs, len(m.list.Members))
	}
	if v := (hiadsd.ListVersion{Counter: got.Version}); !v.Within(hiadsd.ListVersion{Counter: m.list.Version}) {
		return nodelist.List{}, nil, fmt.Errorf("%w: version %d is more than %d changes ahead of this agent's %d", errListAhead, got.Version, hiadsd.MaxLead, m.list.Version)
	}
	keys, found, err := m.learnKeys(got.Keys)
	if err != nil {
		return nodelist.List{}, nil, err
	}
	l := nodelist.List{Version: got.Version, Members: make([]nodelist.Member, got.IDs), Keys: keys}
	copy(l.Hash[:], got.Hash)
	for k := range l.Members {
		l.Members[k].Removed = true
		if k < len(m.list.Members) {
			l.Members[k] = m.list.Members[k]
			l.Members[k].Removed = true
		}
	}
	for _, r := range got.Members {
		if r.ID < 1 || r.ID > got.IDs {
			return nodelist.List{}, nil, fmt.Errorf("row %d outside the %d ids given", r.ID, got.IDs)
		}
		k := int(r.ID - 1)
		host := ""
		if k < len(m.list.Members) && m.list.Members[k].Addr == r.Addr {
			host = m.list.Members[k].Host
		}
		l.Members[k] = nodelist.Member{Host: host, Addr: r.Addr, Port: r.Port, TestedOnly: r.TestedOnly}
		if r.MaintUntil.IsZero() {
			continue
		}
		if r.MaintUntil.Sub(now) > nodelist.MaxWindow+24*time.Hour {
			return nodelist.List{}, nil, fmt.Errorf("%w: node %d's maintenance window ends at %s", errListAhead, r.ID, r.MaintUntil.Format(time.RFC3339))
		}
		l.Members[k].Maint = &nodelist.Window{Until: r.MaintUntil, Status: r.MaintStatus}
	}
	return l, found, nil
}

// switchList moves the agent to l between two intervals: the core keeps
// what it knows of the nodes that stay (ids keep their meaning), a new
// node starts unknown, a removed one is no longer tested nor shown. from is
// the peer it was learned from, or hiadsd.Direct for a change made here,
// which is also notified to the station.
func (d *Daemon) switchList(l nodelist.List, from int) {
	old := d.list
	err := d.node.SetList(d.cfg.core(l), coreVersion(l))
	if errors.Is(err, hiadsd.ErrRemoved) {
		d.removed = true
		d.log.WithField("version", l.Version).Warn("this agent's node was removed from the node list: it no longer tests, and keeps answering until it is stopped")
	} else if err != nil {
		d.log.WithError(err).Error("cannot switch to the new node list")
		return
	}
	d.view = d.node.View.(hiadsd.Dense)
	n := len(l.Members)
	d.mu.Lock()
	file := d.file
	d.mu.Unlock()
	l = l.WithFile(file)
	for len(d.how) < n {
		d.how, d.changed, d.grace.seenUp = append(d.how, 0), append(d.changed, 0), append(d.grace.seenUp, false)
	}
	added, removed := l.Diff(old)
	d.mu.Lock()
	d.moved = map[int]netip.Addr{} // a host name's move is for the list it was resolved in
	d.mu.Unlock()
	d.log.WithFields(logrus.Fields{"version": l.Version, "fingerprint": hex.EncodeToString(l.Hash[:]), "added": ids(added),
		"removed": ids(removed), "from": from + 1, "nodes": l.Count()}).Info("node list changed")
	d.mu.Lock()
	d.list, d.listHash = l, l.Hash[:]
	d.mu.Unlock()
	d.switchKeys(old, l, from)
	d.mu.Lock()
	for len(d.st.Counters) < n {
		d.st.Counters = append(d.st.Counters, 0)
	}
	d.st.Nodes, d.st.List = n, &l
	d.rows = d.buildRows()
	d.graph = d.testingGraph()
	d.publishLocked()
	st := d.state()
	d.mu.Unlock()
	if err := SaveState(d.cfg.StateDir, st); err != nil {
		d.log.WithError(err).Error("cannot save the new node list")
	} else {
		d.forgetKeys(old, l)
	}
	if from == hiadsd.Direct {
		d.notifyChanges(l, added, removed, old)
	}
}

// notifyChanges sends diagNodeListChange for each node added or removed here.
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
		send(id, l.Members[id].Addr, false)
	}
	for _, id := range removed {
		send(id, old.Members[id].Addr, true)
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
