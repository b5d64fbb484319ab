package membership

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/diagagent/diagagent/agent/keyring"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/traps"
	"github.com/sirupsen/logrus"
)

// Merge reads a list that a source of the interval runs and merges it
// into this agent's (takeList): the one of the most changes among those
// not read already at that version, so a peer is read once per list it
// runs, whether it is ahead, behind, or both.
func (m *Membership) Merge(ctx context.Context, seen []hiadsd.ListSeen) {
	best := -1
	now := m.host.Now()
	for k, s := range seen {
		if m.read[s.From] == s.List || now.Before(m.retry[s.From]) {
			continue
		}
		if best < 0 || s.List.Counter > seen[best].List.Counter {
			best = k
		}
	}
	if best < 0 {
		return
	}
	m.readList(ctx, seen[best].From, seen[best].List)
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
func (m *Membership) readList(ctx context.Context, from int, v hiadsd.ListVersion) {
	f := m.log.WithFields(logrus.Fields{"from": from + 1, "address": m.running.Members[from].Addr.String(), "version": v.Counter})
	if done := m.readDelta(ctx, from, v, f); done {
		return
	}
	got, err := m.prober.FetchList(ctx, m.running.Members[from])
	switch {
	case errors.Is(err, probe.ErrNoListTable):
		m.read[from] = v
		if v.Counter < m.running.Version {
			return // behind: it takes this agent's list, as the older format takes a newer one
		}
		m.met.merges.WithLabelValues("older_format").Inc()
		m.host.Conflict(from, "the peer serves no diagListTable to this agent: it runs an older format of the node list and changed it there (the change does not reach this agent until the peer is upgraded, docs/membership.md, Upgrading), or, without a keyring, its list holds a device's community and this agent has no write community (snmp.communities.write) to read it with")
		return
	case err != nil:
		f.WithError(err).Warn("cannot read a peer's node list; trying again at the next interval")
		return
	}
	m.read[from] = v
	m.met.listBytes.WithLabelValues("whole").Add(float64(len(got.Marshal())))
	m.takeList(got.List, from, keysOf(got.KeyRows), f, nil)
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
func (m *Membership) readDelta(ctx context.Context, from int, v hiadsd.ListVersion, f *logrus.Entry) bool {
	r, ok := m.prober.(deltaReader)
	if !ok {
		return false
	}
	m.mu.Lock()
	since := m.latest().Summary()
	m.mu.Unlock()
	if since == nil {
		return false
	}
	peer := m.running.Members[from]
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
	now := m.host.Now()
	m.mu.Lock()
	merged, err := m.latest().ApplyDelta(b, m.listNow(now))
	var missing []uint32
	if err == nil {
		missing = m.missingKeys(merged, nil)
	}
	m.mu.Unlock()
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
	m.read[from] = v
	m.met.listBytes.WithLabelValues("delta").Add(float64(len(b)))
	m.takeList(merged, from, keys, f, func(base nodelist.List) (nodelist.List, error) { return base.ApplyDelta(b, m.listNow(now)) })
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
func (m *Membership) takeList(got nodelist.List, from int, keys map[uint32]keyring.Key, f *logrus.Entry, delta func(nodelist.List) (nodelist.List, error)) {
	now := m.host.Now()
	merge := func(base nodelist.List) (nodelist.List, error) { return base.Merge(got) }
	if delta != nil { // got is a delta merged already: merged again on the latest list, it is checked there
		merge = delta
	} else if err := got.Check(m.listNow(now)); err != nil {
		m.refuseList(f, err)
		if errors.Is(err, nodelist.ErrAhead) { // a clock is off: read again later, and say so
			delete(m.read, from)
			m.retry[from] = now.Add(retryAhead)
			m.host.Conflict(from, fmt.Sprintf("its node list holds a change stamped more than %v ahead of this agent's clock (a clock is off, there or here): refused, and read again every %v", nodelist.MaxSkew, retryAhead))
		}
		return
	}
	delete(m.retry, from)
	if v := (hiadsd.ListVersion{Counter: got.Version}); !v.Within(hiadsd.ListVersion{Counter: m.running.Version}) {
		m.refuseList(f, fmt.Errorf("%w: version %d is more than %d changes ahead of this agent's %d", errListAhead, got.Version, hiadsd.MaxLead, m.running.Version))
		return
	}
	m.changing.Lock()
	defer m.changing.Unlock()
	m.mu.Lock()
	base := m.latest()
	merged, err := merge(base)
	switch {
	case errors.Is(err, nodelist.ErrOtherBase) && delta == nil && base.Adopts(got) && got.IndexOf(m.self) >= 0:
		merged = got
		f.WithField("version", got.Version).Info("this agent runs a file's node list (or one of the older format) and the peer one changed since, of another base: taking the peer's whole")
	case errors.Is(err, nodelist.ErrOtherBase) && delta == nil && base.Rebases(got):
		merged, _ = base.Rebase(got, func() nodelist.Stamp { return m.stamp(now) })
		f.WithField("version", merged.Version).Warn("this agent runs a list of the older format with changes made there that the peer's lacks: they are made again here, on the peer's list")
	case errors.Is(err, nodelist.ErrOtherBase):
		m.mu.Unlock()
		m.met.merges.WithLabelValues("other_base").Inc()
		m.host.Conflict(from, "peer runs a node list of another file, which does not merge")
		return
	case err != nil:
		m.mu.Unlock()
		m.refuseList(f, err)
		return
	}
	if merged.Hash == base.Hash {
		m.mu.Unlock()
		m.host.Conflict(from, "") // it merges: no conflict (conflict takes mu)
		m.met.merges.WithLabelValues("held").Inc()
		return
	}
	if missing := m.missingKeys(merged, keys); len(missing) > 0 {
		m.mu.Unlock()
		m.refuseList(f, fmt.Errorf("it names cluster keys %v that neither this agent nor the peer gave", KeyIDs(missing)))
		return
	}
	maps.Copy(m.keys, keys)
	m.clock.Observe(merged.MaxStamp())
	lost := m.untold(nodelist.Lost(base, merged, m.origin), merged)
	m.pending = &merged
	m.mu.Unlock()
	m.host.Conflict(from, "")
	m.met.merges.WithLabelValues("merged").Inc()
	for _, c := range lost {
		m.notifyLost(merged, c)
	}
	m.host.Apply()
}

// untold keeps of lost the conflicts not told already: a node added here
// that moved is told once for each id it moves to, so the last notification
// about it names the id it holds (under mu).
func (m *Membership) untold(lost []nodelist.Conflict, merged nodelist.List) []nodelist.Conflict {
	out := lost[:0]
	for _, c := range lost {
		if c.Kind == "id" {
			s := merged.Members[c.Entry].Added
			if m.toldMoved[s] == c.Node+1 {
				continue
			}
			m.toldMoved[s] = c.Node + 1
		}
		out = append(out, c)
	}
	return out
}

// missingKeys lists the keys l runs that this agent does not hold and
// given does not bring (under mu).
func (m *Membership) missingKeys(l nodelist.List, given map[uint32]keyring.Key) []uint32 {
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
func (m *Membership) refuseList(f *logrus.Entry, err error) {
	m.met.merges.WithLabelValues("refused").Inc()
	if errors.Is(err, errListAhead) || errors.Is(err, nodelist.ErrBadList) {
		m.met.refused.Inc()
	}
	f.WithError(err).Warn("refused a peer's node list")
}

// notifyLost logs, counts and notifies a change made here that a merge
// undid (nodelist.Lost).
func (m *Membership) notifyLost(l nodelist.List, c nodelist.Conflict) {
	winner := 0
	for k, n := range l.Members {
		if !n.Removed && nodelist.OriginOf(n) == c.Winner {
			winner = k + 1
		}
	}
	m.met.lost.WithLabelValues(c.Kind).Inc()
	m.log.WithFields(logrus.Fields{"kind": c.Kind, "node": c.Node + 1, "winner": winner}).Warn("a change made here lost to one made at once at another agent: " + c.Reason)
	if m.notifier == nil {
		return
	}
	n := traps.ListConflict{Version: l.Version, Hash: l.Hash[:], Node: uint32(c.Node + 1), Winner: uint32(winner), Reason: c.Reason}
	if c.Node < 0 {
		n.Node = 0
	}
	if err := m.notifier.NodeListConflict(n); err != nil {
		m.log.WithError(err).Warn("notification not queued")
	}
}

// Poll reads, while this agent's node is removed from the list (it runs
// no intervals of its own), the list of one agent of the list a turn, so
// that it learns when its node is added again.
func (m *Membership) Poll(ctx context.Context, self int) {
	var agents []int
	for k, n := range m.running.Members {
		if !n.Removed && !n.TestedOnly && k != self {
			agents = append(agents, k)
		}
	}
	if len(agents) == 0 {
		return
	}
	m.poll++
	from := agents[m.poll%len(agents)]
	m.readList(ctx, from, hiadsd.ListVersion{})
	delete(m.read, from) // a poll reads again
}
