package membership

import (
	"cmp"
	"errors"
	"slices"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/keyring"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/agent/state"
	"github.com/sirupsen/logrus"
)

// The cluster keys ride the node list: its Keys name them by index, so a
// key installed, used or removed at one agent is a change of the list,
// which reaches every agent as an added node does (readList reads the keys
// with the list). The keys themselves (keys, by index) are kept under
// state_dir in a keyring file of mode 0600 (state.KeysFileName), so a restart
// runs the keys learned, not the older ones of the configured file.

// ringOf returns the keys of indexes that the agent holds, each once, in
// the order of indexes (under mu).
func (m *Membership) ringOf(indexes []uint32) keyring.Ring {
	var r keyring.Ring
	for n, i := range indexes {
		if k, ok := m.keys[i]; ok && !slices.Contains(indexes[:n], i) {
			r.Keys = append(r.Keys, k)
		}
	}
	return r
}

// SwitchKeys runs the keys of the list the agent switched to from old:
// the prober and the responder take them (onKeys) and state_dir keeps
// them beside the old ones, until the state that names the new list is
// saved (forgetKeys): a crash between the two saves finds every key its
// list names. It runs on the loop.
func (m *Membership) SwitchKeys(old, l nodelist.List) {
	if slices.Equal(old.Keys, l.Keys) {
		return
	}
	m.mu.Lock()
	r, both := m.ringOf(l.Keys), m.ringOf(append(slices.Clone(l.Keys), old.Keys...))
	m.mu.Unlock()
	f := m.log.WithFields(logrus.Fields{"version": l.Version, "keys": KeyIDs(l.Keys), "was": KeyIDs(old.Keys)})
	if len(r.Keys) != len(l.Keys) || len(r.Keys) == 0 {
		f.Error("the node list names a cluster key this agent does not hold: keeping the keys it runs")
		return
	}
	f.Info("cluster keys changed")
	if m.onKeys != nil {
		m.onKeys(r)
	}
	if err := state.SaveKeys(m.stateDir, both); err != nil {
		m.log.WithError(err).Error("cannot keep the new cluster keys under state_dir: a restart would run the older ones")
	}
}

// ForgetKeys drops the keys l no longer names (but a change queued still
// does), from memory and from state_dir, once the state naming l is saved.
func (m *Membership) ForgetKeys(old, l nodelist.List) {
	if slices.Equal(old.Keys, l.Keys) {
		return
	}
	m.mu.Lock()
	keep := slices.Clone(l.Keys)
	if m.pending != nil {
		keep = append(keep, m.pending.Keys...)
	}
	for i := range m.keys {
		if !slices.Contains(keep, i) {
			delete(m.keys, i)
		}
	}
	r := m.ringOf(keep)
	m.mu.Unlock()
	if err := state.SaveKeys(m.stateDir, r); err != nil {
		m.log.WithError(err).Error("cannot drop the removed cluster keys from state_dir")
	}
}

// BoardKeys are diagKeyTable's rows for the keys the agent runs.
func (m *Membership) BoardKeys() []board.Key {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []board.Key
	for n, i := range m.running.Keys {
		if k, ok := m.keys[i]; ok {
			out = append(out, board.Key{Index: i, Primary: n == 0, Value: k[:]})
		}
	}
	slices.SortFunc(out, func(a, b board.Key) int { return cmp.Compare(a.Index, b.Index) })
	return out
}

// Ring returns the keys of indexes that the agent holds, each once, in
// the order of indexes: the ring of a list's Keys.
func (m *Membership) Ring(indexes []uint32) keyring.Ring {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ringOf(indexes)
}

// Errors of a key change the room refuses.
var (
	// ErrNoKeyring: the agent runs no cluster key, so it has none to change.
	ErrNoKeyring = errors.New("this agent runs no cluster key (keyring is not set)")
	// ErrKeyChange: the change contradicts the keys held.
	ErrKeyChange = nodelist.ErrKeyChange
)
