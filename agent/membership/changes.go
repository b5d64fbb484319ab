package membership

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"time"

	"github.com/diagagent/diagagent/agent/keyring"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
	"github.com/sirupsen/logrus"
)

// change makes one change of the list here, as a manager's SET asks: apply
// builds it on the latest list with a stamp of this agent's clock, and the
// result is queued for the next interval and saved before change returns,
// so a change acknowledged survives a crash. A save that fails is
// ErrUnsaved: the change holds in memory and spreads, but a restart before
// the next save would lose it.
func (m *Membership) change(what logrus.Fields, apply func(base nodelist.List, at nodelist.Stamp) (nodelist.List, error)) error {
	m.changing.Lock()
	defer m.changing.Unlock()
	m.mu.Lock()
	base := m.latest()
	next, err := apply(base, m.stamp(m.host.Now()))
	if err != nil || next.Hash == base.Hash {
		m.mu.Unlock()
		return err
	}
	m.pending = &next
	m.mu.Unlock()
	m.host.PublishNext()
	m.log.WithFields(what).WithField("version", next.Version).Info("node list changed here; every agent takes it from the next interval on")
	if err := m.host.Save(); err != nil {
		return fmt.Errorf("%w: %w", ErrUnsaved, err)
	}
	return nil
}

// AddNode adds m as node id+1 (the next id, diagNodeNextID): a manager's
// createAndGo of its diagTree row. A node given by host name alone is
// resolved here first. It runs from the next interval on. Errors wrap
// nodelist.ErrBadIndex or nodelist.ErrExists.
func (m *Membership) AddNode(id int, n nodelist.Member) error {
	if n.Host != "" && !n.Addr.IsValid() {
		if m.lookup == nil {
			return fmt.Errorf("%w: host name %s: this agent resolves no names", nodelist.ErrBadIndex, n.Host)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		a, err := nodelist.LookupHost(ctx, m.lookup, n.Host)
		cancel()
		if err != nil {
			return fmt.Errorf("%w: %w", ErrCannotResolve, err)
		}
		n.Addr = a
	}
	return m.change(logrus.Fields{"added": id + 1, "address": n.Addr.String(), "host": n.Host, "name": n.Name},
		func(base nodelist.List, at nodelist.Stamp) (nodelist.List, error) { return base.Add(id, n, at) })
}

// ErrCannotResolve is AddNode's error for a host name that does not resolve.
var ErrCannotResolve = errors.New("cannot resolve the node's host name")

// RemoveNode removes node id: a manager's destroy of its diagTree row.
// Errors wrap nodelist.ErrNoMember or ErrRemoveSelf.
func (m *Membership) RemoveNode(id int) error {
	return m.change(logrus.Fields{"removed": id + 1}, func(base nodelist.List, at nodelist.Stamp) (nodelist.List, error) {
		if id == base.IndexOf(m.self) {
			return base, ErrRemoveSelf
		}
		return base.Remove(id, at)
	})
}

// CheckNode says whether AddNode (m non-nil) or RemoveNode would take the
// change of id now, making none: an AgentX TestSet asks before any
// subagent commits. A host name is not resolved here.
func (m *Membership) CheckNode(id int, n *nodelist.Member) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	base := m.latest()
	if n == nil {
		if id == base.IndexOf(m.self) {
			return ErrRemoveSelf
		}
		_, err := base.Remove(id, nodelist.Stamp{Time: m.clock.Last() + 1, Origin: m.origin})
		return err
	}
	probe := *n
	if probe.Host != "" && !probe.Addr.IsValid() {
		probe.Addr = netip.IPv4Unspecified() // resolved at the commit
	}
	_, err := base.Add(id, probe, nodelist.Stamp{Time: m.clock.Last() + 1, Origin: m.origin})
	return err
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
func (m *Membership) Reload(nodes []nodelist.Member, keys []keyring.Key) (uint32, bool, error) {
	m.changing.Lock()
	defer m.changing.Unlock()
	m.mu.Lock()
	base := m.latest()
	stamp := func() nodelist.Stamp { return m.stamp(m.host.Now()) }
	next, changed := base.Edit(m.file, nodes, stamp)
	if changed && next.IndexOf(m.self) < 0 {
		m.mu.Unlock()
		return base.Version, false, ErrRemoveSelf
	}
	h := keysHash(keys)
	keysEdited := h != m.saved.keysHash
	if keysEdited {
		if len(keys) == 0 || len(base.Keys) == 0 {
			m.mu.Unlock()
			return base.Version, false, errors.New("the keyring is turned on or off only at a restart of every agent")
		}
		var keysChanged bool
		next, keysChanged = editKeys(next, m.saved.keysHash, keyring.Ring{Keys: keys}.Indexes(), stamp)
		changed = changed || keysChanged
		for _, k := range keys {
			m.keys[k.Index()] = k
		}
		m.saved.keysHash = h
	}
	read := fileNodes(nodes)
	fileEdited := !slices.Equal(read, m.saved.file)
	m.file, m.saved.file, m.saved.fileHash = nodes, read, fileHash(nodelist.New(nodes))
	if !changed {
		m.mu.Unlock()
		if fileEdited || keysEdited { // nothing to change, but the files read are the ones a restart compares with
			if err := m.host.Save(); err != nil {
				return base.Version, false, fmt.Errorf("%w: %w", ErrUnsaved, err)
			}
		}
		return base.Version, false, nil
	}
	m.pending = &next
	m.mu.Unlock()
	m.host.PublishNext()
	if err := m.host.Save(); err != nil {
		return next.Version, true, fmt.Errorf("%w: %w", ErrUnsaved, err)
	}
	return next.Version, true, nil
}

// Unskew stamps anew, at the start of an interval, the changes made here
// while this agent's clock ran ahead, once it has come back: every agent
// with a correct clock refuses a list stamped that far ahead, this one
// included, so they would spread only when the wall clock caught up with
// them (nodelist.List.Unskew). The clock is set back with them.
func (m *Membership) Unskew() {
	m.changing.Lock()
	defer m.changing.Unlock()
	m.mu.Lock()
	wall := m.host.Now()
	now := m.listNow(wall)
	base := m.latest()
	if !m.clock.Ahead(now) { // the common case
		m.mu.Unlock()
		return
	}
	m.clock.Rewind(base.MaxStampWithin(now)) // its next reading follows the wall clock again
	fixed, changed := base.Unskew(now, m.origin, func() nodelist.Stamp { return m.stamp(wall) })
	if changed {
		m.pending = &fixed
	}
	m.mu.Unlock()
	if !changed {
		return
	}
	m.log.WithField("version", fixed.Version).Warn("this agent's clock ran ahead and came back: the changes made here meanwhile are stamped anew, so that the other agents, which refused them, take them")
	if err := m.host.Save(); err != nil {
		m.log.WithError(err).Error("cannot save the changes stamped anew")
	}
}

// ChangeKeys makes a change of the cluster keys written to diagKeyChange
// (verb mib.KeyInstall, KeyUse or KeyRemove) here, as a node added is: it
// is saved with the key before it returns, and carried by the list to
// every agent. Errors wrap ErrNoKeyring or nodelist.ErrKeyChange.
func (m *Membership) ChangeKeys(verb int, k keyring.Key) error {
	m.mu.Lock()
	none := len(m.latest().Keys) == 0
	if !none && verb == mib.KeyInstall {
		m.keys[k.Index()] = k
	}
	m.mu.Unlock()
	if none {
		return ErrNoKeyring
	}
	return m.change(logrus.Fields{"key": k.ID(), "verb": verb}, func(base nodelist.List, at nodelist.Stamp) (nodelist.List, error) {
		return base.WithKey(verb, k.Index(), at)
	})
}

// collectList collects, on the latest list, what every agent of l had
// seen (l runs everywhere, so nothing made anywhere before its newest
// stamp is missing from it), and queues the result for the next interval
// as a change made here.
func (m *Membership) collectList(l nodelist.List) {
	t := l.Newest()
	m.changing.Lock()
	defer m.changing.Unlock()
	m.mu.Lock()
	base := m.latest()
	next, ok := base.Collect(t)
	if !ok || next.Hash == base.Hash {
		m.mu.Unlock()
		return
	}
	m.pending = &next
	m.mu.Unlock()
	m.host.PublishNext()
	facts := next.Collected - base.Collected
	m.met.collected.Add(float64(facts))
	m.log.WithFields(logrus.Fields{"version": next.Version, "facts": facts, "stable": t.String(), "ids": len(next.Members),
		"next_id": next.NextID() + 1}).Info("node list collected: every agent runs one list, and what it had seen removed is dropped")
	if err := m.host.Save(); err != nil {
		m.log.WithError(err).Error("cannot save the collected node list")
	}
}

// SetMaintenance is a SET of node's maintenance window (nodeMaintenanceUntil
// or nodeMaintenanceFor): the window ending at until, the zero time (or one
// past) to end it; status is the node's status now, which the window keeps.
// It is a change of the list made here, saved before it returns. Errors
// wrap nodelist.ErrNoMember or nodelist.ErrTooLong.
func (m *Membership) SetMaintenance(node uint32, until time.Time, status hiadsd.Status) error {
	id, now := int(node)-1, m.host.Now()
	what := logrus.Fields{"node": node, "until": until.Format(time.RFC3339)}
	if !until.After(now) {
		what = logrus.Fields{"node": node, "ended": true}
	}
	return m.change(what, func(base nodelist.List, at nodelist.Stamp) (nodelist.List, error) {
		return base.WithMaintenance(id, until, now, status, at)
	})
}
