package daemon

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/flap"
	"github.com/diagagent/diagagent/agent/keyring"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/agent/state"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/traps"
)

// membership is the node list the agent runs, with what it waits to
// change in it and the peers found running another.
type membership struct {
	list       nodelist.List                  // the list the core runs, with the file's names, communities and OIDs (WithFile); owned by the loop
	listHash   []byte                         // its diagNodeListHash
	file       []nodelist.Member              // the file's nodes
	self       nodelist.Member                // this agent's own node, as the file gives it: its id in any list (IndexOf)
	origin     uint32                         // this agent in the stamps of its changes (nodelist.OriginOf)
	clock      nodelist.Clock                 // stamps this agent's changes (under mu)
	pending    *nodelist.List                 // the list with changes made here or merged, for the next interval (under mu)
	moved      map[int]netip.Addr             // nodes whose host name resolves elsewhere now, for the next interval (under mu)
	lists      listCheck                      // peers last read with a list that does not merge with this agent's
	read       map[int]hiadsd.ListVersion     // per peer, the list last read from it: not read again (the loop's)
	retry      map[int]time.Time              // per peer, a list refused for a stamp ahead: read again from then on (the loop's)
	keys       map[uint32]keyring.Key         // the cluster keys held, by index: the list's, and one installed for the next (under mu)
	refusedIDs []uint32                       // NodeIDs of the peers in loop.refusing, for the snapshot (under mu)
	removed    bool                           // the list removed this agent's node: it no longer tests
	lookup     nodelist.Lookup                // resolves the host name of a node added by name
	chunks     [][]byte                       // diagListTable's rows for list, encoded once (under mu)
	chunksOf   [8]byte                        // the fingerprint of the list chunks encodes
	deltas     func([]byte) ([][]byte, error) // diagListDeltaTable for the list chunks encodes (deltaServer)
	secret     bool                           // the list chunks encodes holds a device's community
	skew       atomic.Int64                   // nanoseconds the list's clock runs off the wall clock (diagFaultClockSkew)
	toldMoved  map[nodelist.Stamp]bool        // nodes added here whose move was told (under mu)
}

// retryAhead is how long after refusing a peer's list for a stamp ahead
// the agent reads it again.
const retryAhead = 30 * time.Second

// errListAhead refuses a peer's list whose version leads this agent's by
// more than a correct peer's can (hiadsd.MaxLead).
var errListAhead = errors.New("a node list too far ahead")

// ErrRemoveSelf refuses a change that removes this agent's own node: it is
// removed through another agent, which it then learns from.
var ErrRemoveSelf = errors.New("an agent does not remove its own node; remove it through another agent")

// ErrUnsaved is wrapped by the error of a change that was made but could
// not be saved under state_dir: it holds until a restart, not after.
var ErrUnsaved = errors.New("the change holds, but state_dir could not keep it")

// start is where an agent begins (startList): the list it runs and its own
// id there, the changes to apply at the first interval, and the list as the
// core takes it.
type start struct {
	list     nodelist.List      // the list it runs, its members named as the file names them
	id       int                // this agent's id in list
	next     *nodelist.List     // changes made before a restart, or a file edited while the agent was down, for the first interval
	core     *hiadsd.Config     // the core's configuration on list
	version  hiadsd.ListVersion // list, as the core compares lists
	fileHash string             // the file's list, as the state remembers it
	keysHash string             // the keyring file's keys, as the state remembers them
	clock    nodelist.Clock     // after every stamp the state holds
}

// startList chooses the list the agent starts with: its file's, unless the
// state holds a list (learned or changed since), in which case the state's
// list stands, with the changes the agent had taken but not yet applied. A
// file edited while the agent was down is applied as changes made here at
// the first interval, as a keyring file edited meanwhile is; a file not
// edited but older than the list run is only reported. The agent's own node
// must be in the list it runs.
func startList(c Config, st state.State, now time.Time, log *logrus.Entry) (start, error) {
	fromFile := nodelist.New(c.Nodes)
	s := start{fileHash: fileHash(fromFile), keysHash: keysHash(c.Keys)}
	fileKeys := keyring.Ring{Keys: c.Keys}.Indexes()
	origin := nodelist.OriginOf(c.Nodes[c.Self])
	stamp := func() nodelist.Stamp { return nodelist.Stamp{Time: s.clock.Next(now), Origin: origin} }
	if st.List == nil {
		s.list, _ = fromFile.WithKeys(fileKeys, func() nodelist.Stamp { return nodelist.Stamp{} }) // the file's keys are of its base
	} else {
		s.list = *st.List
		s.clock.Observe(s.list.MaxStamp())
		base := s.list
		if st.Pending != nil {
			s.clock.Observe(st.Pending.MaxStamp())
			p, _ := st.Pending.Restamp(s.list, origin, stamp) // the adds made before a crash: stamped now (Restamp)
			base, s.next = p, &p
		}
		if st.FileHash == s.fileHash {
			if s.list.NodesOnly().Hash != fromFile.Hash { // the fingerprint of its nodes alone, as the file's
				log.WithFields(logrus.Fields{"running": s.list.Version, "file": s.fileHash}).
					Warn("the configuration file holds an older node list than the one this agent runs (learned through the diagnosis, or changed by SNMP): keeping the running list; write it to the file to silence this")
			}
		}
		if edited, changed := editFile(base, st, c.Nodes, s.fileHash, stamp); changed {
			log.WithFields(logrus.Fields{"version": edited.Version}).Info("the configuration file's node list was edited since the last run: its edits are applied as changes at the first interval")
			base, s.next = edited, &edited
		}
		if st.KeysHash != s.keysHash && len(fileKeys) > 0 {
			if edited, changed := editKeys(base, st.KeysHash, fileKeys, stamp); changed {
				log.WithFields(logrus.Fields{"version": edited.Version, "keys": keyIDs(fileKeys)}).Info("the keyring file was edited since the last run: its edits are applied as a change at the first interval")
				s.next = &edited
			}
		}
	}
	if s.id = s.list.IndexOf(c.Nodes[c.Self]); s.id < 0 {
		return start{}, fmt.Errorf("node %d (%s) is not in the node list this agent runs (version %d): it was removed; add it again through another agent, or start afresh (empty state_dir): %w",
			c.Self+1, c.Nodes[c.Self].Addr, s.list.Version, hiadsd.ErrRemoved)
	}
	s.list = s.list.WithFile(c.Nodes)
	s.core, s.version = c.core(s.list), coreVersion(s.list)
	return s, nil
}

// editFile applies to l the edits made to the file since the state last
// read it: the difference from the nodes it kept (nodelist.List.Edit), or,
// from a state of 1.0 or older, which keeps only the file's fingerprint,
// the whole file if it differs.
func editFile(l nodelist.List, st state.State, file []nodelist.Member, fileHash string, stamp func() nodelist.Stamp) (nodelist.List, bool) {
	switch {
	case st.File != nil:
		return l.Edit(st.File, file, stamp)
	case st.FileHash != fileHash:
		return l.Apply(file, stamp)
	}
	return l, false
}

// fileHash names a file's list (nodelist.New) as the state remembers it
// (state.State.FileHash).
func fileHash(l nodelist.List) string { return hex.EncodeToString(l.Hash[:]) }

// fileNodes is what the state keeps of the file's nodes (state.State.File).
func fileNodes(file []nodelist.Member) []nodelist.Member {
	out := make([]nodelist.Member, len(file))
	for k, m := range file {
		out[k] = nodelist.Member{Host: m.Host, Addr: m.Addr, Port: m.Port, TestedOnly: m.TestedOnly, Want: k}
	}
	return out
}

// latest is the list the next change applies to (under mu): the one queued, or
// the running one.
func (m *membership) latest() nodelist.List {
	if m.pending != nil {
		return *m.pending
	}
	return m.list
}

// listTable returns diagListTable's rows for the list run, encoded once
// per list, and whether they hold a device's community, which the table
// then serves to agents and writers alone (under mu).
func (m *membership) listTable() ([][]byte, bool) {
	if m.chunks == nil || m.chunksOf != m.list.Hash {
		m.chunks, m.chunksOf = board.Chunks(m.list.Marshal()), m.list.Hash
		m.secret = slices.ContainsFunc(m.list.Members, func(n nodelist.Member) bool { return n.Labels.Community != "" })
		m.deltas = deltaServer(m.list)
	}
	return m.chunks, m.secret
}

// deltaServer serves diagListDeltaTable for list l: the chunks of what a
// reader of each summary lacks (nodelist.List.Delta), encoded once per
// summary, as readers of one change mostly hold the same list.
func deltaServer(l nodelist.List) func(since []byte) ([][]byte, error) {
	var mu sync.Mutex
	cache := map[string][][]byte{}
	return func(since []byte) ([][]byte, error) {
		mu.Lock()
		defer mu.Unlock()
		if c, ok := cache[string(since)]; ok {
			return c, nil
		}
		b, err := l.Delta(since)
		if err != nil {
			return nil, err
		}
		if len(cache) >= maxDeltas {
			clear(cache)
		}
		c := board.Chunks(b)
		cache[string(since)] = c
		return c, nil
	}
}

// maxDeltas bounds the deltas one list keeps encoded.
const maxDeltas = 16

// listNow is the list's clock at wall-clock time now: now, unless fault
// injection moved it (SetClockSkew).
func (m *membership) listNow(now time.Time) time.Time { return now.Add(time.Duration(m.skew.Load())) }

// SetClockSkew moves this agent's clock for its node list by skew from
// the wall clock, as diagFaultClockSkew asks (fault injection): changes
// made here are stamped, and peers' lists checked, on that clock, as on
// an agent whose wall clock jumped.
func (d *Daemon) SetClockSkew(skew time.Duration) error {
	d.skew.Store(int64(skew))
	d.log.WithField("skew", skew.String()).Warn("fault injection: the node list's clock runs off the wall clock")
	return nil
}

// stamp stamps a change made here now (under mu).
func (m *membership) stamp(now time.Time) nodelist.Stamp {
	return nodelist.Stamp{Time: m.clock.Next(m.listNow(now)), Origin: m.origin}
}

// change makes one change of the list here, as a manager's SET asks: apply
// builds it on the latest list with a stamp of this agent's clock, and the
// result is queued for the next interval and saved before change returns,
// so a change acknowledged survives a crash. A save that fails is
// ErrUnsaved: the change holds in memory and spreads, but a restart before
// the next save would lose it.
func (d *Daemon) change(what logrus.Fields, apply func(base nodelist.List, at nodelist.Stamp) (nodelist.List, error)) error {
	d.changing.Lock()
	defer d.changing.Unlock()
	d.mu.Lock()
	base := d.latest()
	next, err := apply(base, d.stamp(d.now()))
	if err != nil || next.Hash == base.Hash {
		d.mu.Unlock()
		return err
	}
	d.pending = &next
	d.publishNextLocked()
	d.mu.Unlock()
	d.log.WithFields(what).WithField("version", next.Version).Info("node list changed here; every agent takes it from the next interval on")
	if err := d.saveState(); err != nil {
		return fmt.Errorf("%w: %w", ErrUnsaved, err)
	}
	return nil
}

// AddNode adds m as node id+1 (the next id, diagNodeNextID): a manager's
// createAndGo of its diagTree row. A node given by host name alone is
// resolved here first. It runs from the next interval on. Errors wrap
// nodelist.ErrBadIndex or nodelist.ErrExists.
func (d *Daemon) AddNode(id int, m nodelist.Member) error {
	if m.Host != "" && !m.Addr.IsValid() {
		if d.lookup == nil {
			return fmt.Errorf("%w: host name %s: this agent resolves no names", nodelist.ErrBadIndex, m.Host)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		a, err := nodelist.LookupHost(ctx, d.lookup, m.Host)
		cancel()
		if err != nil {
			return fmt.Errorf("%w: %w", ErrCannotResolve, err)
		}
		m.Addr = a
	}
	return d.change(logrus.Fields{"added": id + 1, "address": m.Addr.String(), "host": m.Host, "name": m.Name},
		func(base nodelist.List, at nodelist.Stamp) (nodelist.List, error) { return base.Add(id, m, at) })
}

// ErrCannotResolve is AddNode's error for a host name that does not resolve.
var ErrCannotResolve = errors.New("cannot resolve the node's host name")

// RemoveNode removes node id: a manager's destroy of its diagTree row.
// Errors wrap nodelist.ErrNoMember or ErrRemoveSelf.
func (d *Daemon) RemoveNode(id int) error {
	return d.change(logrus.Fields{"removed": id + 1}, func(base nodelist.List, at nodelist.Stamp) (nodelist.List, error) {
		if id == base.IndexOf(d.self) {
			return base, ErrRemoveSelf
		}
		return base.Remove(id, at)
	})
}

// CheckNode says whether AddNode (m non-nil) or RemoveNode would take the
// change of id now, making none: an AgentX TestSet asks before any
// subagent commits. A host name is not resolved here.
func (d *Daemon) CheckNode(id int, m *nodelist.Member) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	base := d.latest()
	if m == nil {
		if id == base.IndexOf(d.self) {
			return ErrRemoveSelf
		}
		_, err := base.Remove(id, nodelist.Stamp{Time: d.clock.Last() + 1, Origin: d.origin})
		return err
	}
	probe := *m
	if probe.Host != "" && !probe.Addr.IsValid() {
		probe.Addr = netip.IPv4Unspecified() // resolved at the commit
	}
	_, err := base.Add(id, probe, nodelist.Stamp{Time: d.clock.Last() + 1, Origin: d.origin})
	return err
}

// NextID returns the id (0-based) a manager adds the next node at here.
func (d *Daemon) NextID() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.latest().NextID()
}

// Reload applies the edits made to the configuration file since it was
// last read (SIGHUP), matched by host name or address and port, and the
// keys of an edited keyring file (keys, none without a keyring), as
// changes made here: a node the file adds is added, one it drops is
// removed, and nothing else moves, so the nodes and windows other
// operators set stay (nodelist.List.Edit); the keyring file's edits alike
// (nodelist.List.EditKeys), so keys rotated by SNMP stay until the file is
// edited. It returns the version it will run, and false if the files
// change nothing.
func (d *Daemon) Reload(nodes []nodelist.Member, keys []keyring.Key) (uint32, bool, error) {
	d.changing.Lock()
	defer d.changing.Unlock()
	d.mu.Lock()
	base := d.latest()
	stamp := func() nodelist.Stamp { return d.stamp(d.now()) }
	next, changed := base.Edit(d.file, nodes, stamp)
	if changed && next.IndexOf(d.self) < 0 {
		d.mu.Unlock()
		return base.Version, false, ErrRemoveSelf
	}
	h := keysHash(keys)
	keysEdited := h != d.st.KeysHash
	if keysEdited {
		if len(keys) == 0 || len(base.Keys) == 0 {
			d.mu.Unlock()
			return base.Version, false, errors.New("the keyring is turned on or off only at a restart of every agent")
		}
		var keysChanged bool
		next, keysChanged = editKeys(next, d.st.KeysHash, keyring.Ring{Keys: keys}.Indexes(), stamp)
		changed = changed || keysChanged
		for _, k := range keys {
			d.keys[k.Index()] = k
		}
		d.st.KeysHash = h
	}
	read := fileNodes(nodes)
	fileEdited := !slices.Equal(read, d.st.File)
	d.file, d.st.File, d.st.FileHash = nodes, read, fileHash(nodelist.New(nodes))
	if !changed {
		d.mu.Unlock()
		if fileEdited || keysEdited { // nothing to change, but the files read are the ones a restart compares with
			if err := d.saveState(); err != nil {
				return base.Version, false, fmt.Errorf("%w: %w", ErrUnsaved, err)
			}
		}
		return base.Version, false, nil
	}
	d.pending = &next
	d.publishNextLocked()
	d.mu.Unlock()
	if err := d.saveState(); err != nil {
		return next.Version, true, fmt.Errorf("%w: %w", ErrUnsaved, err)
	}
	return next.Version, true, nil
}

// applyPending switches to the list the changes made here and the lists
// merged in queued, at the start of an interval (or at once after a merge,
// between two intervals). The queued list stays the latest until the
// switch is done, so a change made meanwhile (a SET does not wait for the
// loop) is built on it, and is queued for the next interval in turn.
func (d *Daemon) applyPending() {
	d.mu.Lock()
	next := d.pending
	d.mu.Unlock()
	if next == nil {
		return
	}
	if next.Hash != d.list.Hash {
		d.switchList(*next)
	}
	d.mu.Lock()
	if d.pending == next { // nothing queued since
		d.pending = nil
	}
	d.mu.Unlock()
}

// unskew stamps anew, at the start of an interval, the changes made here
// while this agent's clock ran ahead, once it has come back: every agent
// with a correct clock refuses a list stamped that far ahead, this one
// included, so they would spread only when the wall clock caught up with
// them (nodelist.List.Unskew). The clock is set back with them.
func (d *Daemon) unskew() {
	d.changing.Lock()
	defer d.changing.Unlock()
	d.mu.Lock()
	wall := d.now()
	now := d.listNow(wall)
	base := d.latest()
	if !d.clock.Ahead(now) { // the common case
		d.mu.Unlock()
		return
	}
	d.clock.Rewind(base.MaxStampWithin(now)) // its next reading follows the wall clock again
	fixed, changed := base.Unskew(now, d.origin, func() nodelist.Stamp { return d.stamp(wall) })
	if changed {
		d.pending = &fixed
	}
	d.mu.Unlock()
	if !changed {
		return
	}
	d.log.WithField("version", fixed.Version).Warn("this agent's clock ran ahead and came back: the changes made here meanwhile are stamped anew, so that the other agents, which refused them, take them")
	if err := d.saveState(); err != nil {
		d.log.WithError(err).Error("cannot save the changes stamped anew")
	}
}

// nextID is diagNodeNextID: the NodeID the next add takes, on the latest
// list (under mu).
func (m *membership) nextID() uint32 { return uint32(m.latest().NextID() + 1) }

// publishNextLocked serves at once the diagNodeNextID of the latest list,
// so that a manager adding nodes one after another between two intervals
// reads the id its next add takes (under mu).
func (d *Daemon) publishNextLocked() {
	if d.cur == nil {
		return
	}
	s := *d.cur
	s.NextID = d.nextID()
	if err := d.board.Publish(&s); err == nil {
		d.cur = &s
	}
}

// mergeLists reads a list that a source of the interval runs and merges it
// into this agent's (takeList): the one of the most changes among those
// not read already at that version, so a peer is read once per list it
// runs, whether it is ahead, behind, or both.
func (d *Daemon) mergeLists(ctx context.Context, seen []hiadsd.ListSeen) {
	best := -1
	now := d.now()
	for k, s := range seen {
		if d.read[s.From] == s.List || now.Before(d.retry[s.From]) {
			continue
		}
		if best < 0 || s.List.Counter > seen[best].List.Counter {
			best = k
		}
	}
	if best < 0 {
		return
	}
	d.readList(ctx, seen[best].From, seen[best].List)
}

// deltaReader is a Prober that reads what a peer's list holds beyond a
// summary (probe.Prober.FetchDelta) and a peer's keys alone.
type deltaReader interface {
	FetchDelta(ctx context.Context, t probe.Target, since []byte) ([]byte, error)
	FetchKeys(ctx context.Context, t probe.Target) ([]probe.Key, error)
}

// readList reads peer from's list (running v) and takes it: only the
// changes this agent lacks (readDelta), unless it holds no change yet or
// the peer serves no delta, then the whole list.
func (d *Daemon) readList(ctx context.Context, from int, v hiadsd.ListVersion) {
	f := d.log.WithFields(logrus.Fields{"from": from + 1, "address": d.list.Members[from].Addr.String(), "version": v.Counter})
	if done := d.readDelta(ctx, from, v, f); done {
		return
	}
	got, err := d.prober.FetchList(ctx, d.list.Members[from])
	switch {
	case errors.Is(err, probe.ErrNoListTable):
		d.read[from] = v
		if v.Counter < d.list.Version {
			return // behind: it takes this agent's list, as the older format takes a newer one
		}
		d.met.merges.WithLabelValues("older_format").Inc()
		d.conflict(from, "the peer serves no diagListTable to this agent: it runs an older format of the node list and changed it there (the change does not reach this agent until the peer is upgraded, docs/membership.md, Upgrading), or, without a keyring, its list holds a device's community and this agent has no write community (snmp.communities.write) to read it with")
		return
	case err != nil:
		f.WithError(err).Warn("cannot read a peer's node list; trying again at the next interval")
		return
	}
	d.read[from] = v
	d.met.listBytes.WithLabelValues("whole").Add(float64(len(got.Marshal())))
	d.takeList(got.List, from, keysOf(got.KeyRows), f, nil)
}

// keysOf turns a peer's diagKeyTable rows into keys, each whose value
// gives its index.
func keysOf(rows []probe.Key) map[uint32]keyring.Key {
	keys := map[uint32]keyring.Key{}
	for _, k := range rows {
		var key keyring.Key
		if copy(key[:], k.Value) == keyring.Size && key.Index() == k.Index {
			keys[k.Index] = key
		}
	}
	return keys
}

// readDelta reads from peer from what its list holds beyond this agent's
// latest list (its Summary) and merges it, as takeList merges a whole
// list; it reports whether it is done, false when the whole list is to be
// read instead: this agent holds no change yet (or changes from too many
// agents to summarize), the peer serves no delta (a release before 1.1),
// or what it served is the whole list (it collected past this agent's),
// of another base, or not a delta this list can take.
func (d *Daemon) readDelta(ctx context.Context, from int, v hiadsd.ListVersion, f *logrus.Entry) bool {
	r, ok := d.prober.(deltaReader)
	if !ok {
		return false
	}
	d.mu.Lock()
	since := d.latest().Summary()
	d.mu.Unlock()
	if since == nil {
		return false
	}
	peer := d.list.Members[from]
	b, err := r.FetchDelta(ctx, peer, since)
	switch {
	case errors.Is(err, probe.ErrNoListTable):
		return false
	case err != nil:
		f.WithError(err).Warn("cannot read a peer's node list changes; trying again at the next interval")
		return true
	case !nodelist.IsDelta(b):
		return false
	}
	now := d.now()
	d.mu.Lock()
	merged, err := d.latest().ApplyDelta(b, d.listNow(now))
	var missing []uint32
	if err == nil {
		missing = d.missingKeys(merged, nil)
	}
	d.mu.Unlock()
	if err != nil {
		f.WithError(err).Debug("a peer's changes do not apply here; reading its whole list")
		return false
	}
	keys := map[uint32]keyring.Key{}
	if len(missing) > 0 { // a key installed there: its value comes from the key table
		rows, err := r.FetchKeys(ctx, peer)
		if err != nil {
			f.WithError(err).Warn("cannot read a peer's keys; trying again at the next interval")
			return true
		}
		keys = keysOf(rows)
	}
	d.read[from] = v
	d.met.listBytes.WithLabelValues("delta").Add(float64(len(b)))
	d.takeList(merged, from, keys, f, func(base nodelist.List) (nodelist.List, error) { return base.ApplyDelta(b, d.listNow(now)) })
	return true
}

// takeList merges a list read from peer from into the latest one, and runs
// the result from now on, between two intervals. A list no correct agent
// could have made is refused and counted; one of another base is a
// conflict (diagNodeListMismatch) unless this agent runs a file's list and
// the peer's has changed since, in which case it is taken whole (a new
// agent joining; an agent upgraded from the older format), or, for a list
// of the older format holding changes the peer's lacks, those changes are
// made again on the peer's list (nodelist.Rebase). A change made here that
// the merge undid is told to the station (diagNodeListConflict). With
// delta, got is a peer's delta already applied (readDelta): delta applies
// it again to the latest list, and a list of another base is no case for
// taking it whole.
func (d *Daemon) takeList(got nodelist.List, from int, keys map[uint32]keyring.Key, f *logrus.Entry, delta func(nodelist.List) (nodelist.List, error)) {
	now := d.now()
	merge := func(base nodelist.List) (nodelist.List, error) { return base.Merge(got) }
	if delta != nil { // got is a delta merged already: merged again on the latest list, it is checked there
		merge = delta
	} else if err := got.Check(d.listNow(now)); err != nil {
		d.refuseList(f, err)
		if errors.Is(err, nodelist.ErrAhead) { // a clock is off: read again later, and say so
			delete(d.read, from)
			d.retry[from] = now.Add(retryAhead)
			d.conflict(from, fmt.Sprintf("its node list holds a change stamped more than %v ahead of this agent's clock (a clock is off, there or here): refused, and read again every %v", nodelist.MaxSkew, retryAhead))
		}
		return
	}
	delete(d.retry, from)
	if v := (hiadsd.ListVersion{Counter: got.Version}); !v.Within(hiadsd.ListVersion{Counter: d.list.Version}) {
		d.refuseList(f, fmt.Errorf("%w: version %d is more than %d changes ahead of this agent's %d", errListAhead, got.Version, hiadsd.MaxLead, d.list.Version))
		return
	}
	d.changing.Lock()
	defer d.changing.Unlock()
	d.mu.Lock()
	base := d.latest()
	merged, err := merge(base)
	switch {
	case errors.Is(err, nodelist.ErrOtherBase) && delta == nil && base.Adopts(got) && got.IndexOf(d.self) >= 0:
		merged = got
		f.WithField("version", got.Version).Info("this agent runs a file's node list (or one of the older format) and the peer one changed since, of another base: taking the peer's whole")
	case errors.Is(err, nodelist.ErrOtherBase) && delta == nil && base.Rebases(got):
		merged, _ = base.Rebase(got, func() nodelist.Stamp { return d.stamp(now) })
		f.WithField("version", merged.Version).Warn("this agent runs a list of the older format with changes made there that the peer's lacks: they are made again here, on the peer's list")
	case errors.Is(err, nodelist.ErrOtherBase):
		d.mu.Unlock()
		d.met.merges.WithLabelValues("other_base").Inc()
		d.conflict(from, "peer runs a node list of another file, which does not merge")
		return
	case err != nil:
		d.mu.Unlock()
		d.refuseList(f, err)
		return
	}
	if merged.Hash == base.Hash {
		d.mu.Unlock()
		d.conflict(from, "") // it merges: no conflict (conflict takes mu)
		d.met.merges.WithLabelValues("held").Inc()
		return
	}
	if missing := d.missingKeys(merged, keys); len(missing) > 0 {
		d.mu.Unlock()
		d.refuseList(f, fmt.Errorf("it names cluster keys %v that neither this agent nor the peer gave", keyIDs(missing)))
		return
	}
	maps.Copy(d.keys, keys)
	d.clock.Observe(merged.MaxStamp())
	lost := d.untold(nodelist.Lost(base, merged, d.origin), merged)
	d.pending = &merged
	d.mu.Unlock()
	d.conflict(from, "")
	d.met.merges.WithLabelValues("merged").Inc()
	for _, c := range lost {
		d.notifyLost(merged, c)
	}
	d.applyPending()
}

// untold keeps of lost the conflicts not told already: a node added here
// that moved is told once, though a later merge may move it again (under
// mu).
func (m *membership) untold(lost []nodelist.Conflict, merged nodelist.List) []nodelist.Conflict {
	out := lost[:0]
	for _, c := range lost {
		if c.Kind == "id" {
			s := merged.Members[c.Entry].Added
			if m.toldMoved[s] {
				continue
			}
			m.toldMoved[s] = true
		}
		out = append(out, c)
	}
	return out
}

// missingKeys lists the keys l runs that this agent does not hold and
// given does not bring (under mu).
func (m *membership) missingKeys(l nodelist.List, given map[uint32]keyring.Key) []uint32 {
	var out []uint32
	for _, k := range l.Keys {
		if _, held := m.keys[k]; !held {
			if _, ok := given[k]; !ok {
				out = append(out, k)
			}
		}
	}
	return out
}

// refuseList logs and counts a peer's list not taken.
func (d *Daemon) refuseList(f *logrus.Entry, err error) {
	d.met.merges.WithLabelValues("refused").Inc()
	if errors.Is(err, errListAhead) || errors.Is(err, nodelist.ErrBadList) {
		d.met.refused.Inc()
	}
	f.WithError(err).Warn("refused a peer's node list")
}

// notifyLost logs, counts and notifies a change made here that a merge
// undid (nodelist.Lost).
func (d *Daemon) notifyLost(l nodelist.List, c nodelist.Conflict) {
	winner := 0
	for k, m := range l.Members {
		if !m.Removed && nodelist.OriginOf(m) == c.Winner {
			winner = k + 1
		}
	}
	d.met.lost.WithLabelValues(c.Kind).Inc()
	d.log.WithFields(logrus.Fields{"kind": c.Kind, "node": c.Node + 1, "winner": winner}).Warn("a change made here lost to one made at once at another agent: " + c.Reason)
	if d.notify == nil {
		return
	}
	n := traps.ListConflict{Version: l.Version, Hash: l.Hash[:], Node: uint32(c.Node + 1), Winner: uint32(winner), Reason: c.Reason}
	if c.Node < 0 {
		n.Node = 0
	}
	if err := d.notify.NodeListConflict(n); err != nil {
		d.log.WithError(err).Warn("notification not queued")
	}
}

// pollList reads, while this agent's node is removed from the list (it runs
// no intervals of its own), the list of one agent of the list a turn, so
// that it learns when its node is added again.
func (d *Daemon) pollList(ctx context.Context) {
	var agents []int
	for k, m := range d.list.Members {
		if !m.Removed && !m.TestedOnly && k != d.id {
			agents = append(agents, k)
		}
	}
	if len(agents) == 0 {
		return
	}
	d.poll++
	from := agents[d.poll%len(agents)]
	d.readList(ctx, from, hiadsd.ListVersion{})
	delete(d.read, from) // a poll reads again
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
	file := d.file
	d.moved = map[int]netip.Addr{} // a host name's move is for the list it was resolved in
	d.mu.Unlock()
	l = l.WithFile(file)
	added, removed := l.Diff(old)
	d.log.WithFields(logrus.Fields{"version": l.Version, "fingerprint": hex.EncodeToString(l.Hash[:]), "added": ids(added),
		"removed": ids(removed), "nodes": l.Count(), "self": self + 1}).Info("node list changed")
	d.mu.Lock()
	d.list, d.listHash, d.id = l, l.Hash[:], self
	d.mu.Unlock()
	d.listSince = d.now()
	d.switchKeys(old, l)
	d.mu.Lock()
	d.st.Nodes, d.st.List = len(l.Members), &l
	d.rows = d.buildRows()
	d.graph = d.testingGraph()
	d.publishLocked()
	d.mu.Unlock()
	if err := d.saveState(); err != nil {
		d.log.WithError(err).Error("cannot save the new node list")
	} else {
		d.forgetKeys(old, l)
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
	clear(d.read)
	clear(d.retry)
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
		delete(d.read, id)
		delete(d.retry, id)
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
