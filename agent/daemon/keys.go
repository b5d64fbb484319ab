package daemon

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/keyring"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/agent/state"
	"github.com/diagagent/diagagent/mib"
	"github.com/diagagent/diagagent/traps"
)

// The cluster keys ride the node list: its Keys name them by index, so a
// key installed, used or removed at one agent is a change of the list,
// which reaches every agent as an added node does (readList reads the keys
// with the list). The keys themselves (keys, by index) are kept under
// state_dir in a keyring file of mode 0600 (state.KeysFileName), so a restart
// runs the keys learned, not the older ones of the configured file.

// Errors of a key change the daemon refuses.
var (
	// ErrNoKeyring: the agent runs no cluster key, so it has none to change.
	ErrNoKeyring = errors.New("this agent runs no cluster key (keyring is not set)")
	// ErrKeyChange: the change contradicts the keys held.
	ErrKeyChange = nodelist.ErrKeyChange
)

// Ring returns the cluster keys the agent runs, the one it sends with
// first, and false when it runs none.
func (d *Daemon) Ring() (keyring.Ring, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	r := d.ringOf(d.list.Keys)
	return r, len(r.Keys) > 0
}

// ringOf returns the keys of indexes that the agent holds, each once, in
// the order of indexes (under mu).
func (m *membership) ringOf(indexes []uint32) keyring.Ring {
	var r keyring.Ring
	for n, i := range indexes {
		if k, ok := m.keys[i]; ok && !slices.Contains(indexes[:n], i) {
			r.Keys = append(r.Keys, k)
		}
	}
	return r
}

// ChangeKeys makes a change of the cluster keys written to diagKeyChange
// (verb mib.KeyInstall, KeyUse or KeyRemove) here, as a node added is: it
// is saved with the key before it returns, and carried by the list to
// every agent. Errors wrap ErrNoKeyring or nodelist.ErrKeyChange.
func (d *Daemon) ChangeKeys(verb int, k keyring.Key) error {
	d.mu.Lock()
	none := len(d.latest().Keys) == 0
	if !none && verb == mib.KeyInstall {
		d.keys[k.Index()] = k
	}
	d.mu.Unlock()
	if none {
		return ErrNoKeyring
	}
	return d.change(logrus.Fields{"key": k.ID(), "verb": verb}, func(base nodelist.List, at nodelist.Stamp) (nodelist.List, error) {
		return base.WithKey(verb, k.Index(), at)
	})
}

// switchKeys runs the keys of the list the agent switched to from old:
// the prober and the responder take them (onKeys) and state_dir keeps
// them beside the old ones, until the state that names the new list is
// saved (forgetKeys): a crash between the two saves finds every key its
// list names. It runs on the loop.
func (d *Daemon) switchKeys(old, l nodelist.List) {
	if slices.Equal(old.Keys, l.Keys) {
		return
	}
	d.mu.Lock()
	r, both := d.ringOf(l.Keys), d.ringOf(append(slices.Clone(l.Keys), old.Keys...))
	d.mu.Unlock()
	f := d.log.WithFields(logrus.Fields{"version": l.Version, "keys": keyIDs(l.Keys), "was": keyIDs(old.Keys)})
	if len(r.Keys) != len(l.Keys) || len(r.Keys) == 0 {
		f.Error("the node list names a cluster key this agent does not hold: keeping the keys it runs")
		return
	}
	f.Info("cluster keys changed")
	if d.onKeys != nil {
		d.onKeys(r)
	}
	if err := state.SaveKeys(d.cfg.StateDir, both); err != nil {
		d.log.WithError(err).Error("cannot keep the new cluster keys under state_dir: a restart would run the older ones")
	}
}

// forgetKeys drops the keys l no longer names (but a change queued still
// does), from memory and from state_dir, once the state naming l is saved.
func (d *Daemon) forgetKeys(old, l nodelist.List) {
	if slices.Equal(old.Keys, l.Keys) {
		return
	}
	d.mu.Lock()
	keep := slices.Clone(l.Keys)
	if d.pending != nil {
		keep = append(keep, d.pending.Keys...)
	}
	for i := range d.keys {
		if !slices.Contains(keep, i) {
			delete(d.keys, i)
		}
	}
	r := d.ringOf(keep)
	d.mu.Unlock()
	if err := state.SaveKeys(d.cfg.StateDir, r); err != nil {
		d.log.WithError(err).Error("cannot drop the removed cluster keys from state_dir")
	}
}

// keysHash names the keys of a keyring file as the state remembers them
// (state.State.KeysHash): their IDs in order, "" for none.
func keysHash(keys []keyring.Key) string {
	return strings.Join(keyIDs(keyring.Ring{Keys: keys}.Indexes()), ",")
}

// editKeys applies to l the edits made to the keyring file since the
// state last read it (lastRead, its keysHash): the keys it adds, drops and
// now sends with first (nodelist.List.EditKeys). From a state that read
// no keyring file, the file's keys are the keys run (List.WithKeys).
func editKeys(l nodelist.List, lastRead string, keys []uint32, stamp func() nodelist.Stamp) (nodelist.List, bool) {
	var old []uint32
	for id := range strings.SplitSeq(lastRead, ",") {
		if k, err := strconv.ParseUint(id, 16, 32); err == nil {
			old = append(old, uint32(k))
		}
	}
	if len(old) == 0 {
		return l.WithKeys(keys, stamp)
	}
	return l.EditKeys(old, keys, stamp)
}

// keyIDs names keys by ID for a log line, the one in use first.
func keyIDs(indexes []uint32) []string {
	out := make([]string, len(indexes))
	for i, k := range indexes {
		out[i] = fmt.Sprintf("%08x", k)
	}
	return out
}

// boardKeys are diagKeyTable's rows for the keys the agent runs (under mu).
func (m *membership) boardKeys() []board.Key {
	var out []board.Key
	for n, i := range m.list.Keys {
		if k, ok := m.keys[i]; ok {
			out = append(out, board.Key{Index: i, Primary: n == 0, Value: k[:]})
		}
	}
	slices.SortFunc(out, func(a, b board.Key) int { return cmp.Compare(a.Index, b.Index) })
	return out
}

// keysRefused notes, from this interval's tests, the peers that refused
// every key this agent holds: logged once per episode (explain), counted
// and shown (Snapshot.KeyRefused). A peer tested otherwise leaves the set.
// When every agent tested refused, this agent is the one that missed a
// rotation (or was given another keyring): it says so once per episode,
// in its log and to the station (diagNodeKeyRefused about itself), and
// its verdicts about the peers that refuse it are not notified (announce):
// they tell of its keys, not of the peers.
func (d *Daemon) keysRefused(probes map[int]probe.Result) {
	agents, refused := 0, 0
	for id, r := range probes {
		if probe.KeyRefused(r.SNMPErr) {
			d.refusing[id] = true
			refused++
		} else {
			delete(d.refusing, id)
		}
		if !d.list.Members[id].TestedOnly {
			agents++
		}
	}
	ids := nodeIDs(d.refusing)
	d.mu.Lock()
	d.refusedIDs = ids
	d.mu.Unlock()
	was := d.lagging
	d.lagging = refused > 0 && refused == agents || (was && agents == 0)
	switch {
	case d.lagging && !was:
		d.log.WithFields(logrus.Fields{"refused_by": refused, "keys": keyIDs(d.list.Keys)}).
			Warn("every agent tested refuses every cluster key this agent holds: it missed a rotation of the keys, or holds another keyring; " +
				"give it the key in use (install it here with diagagent keyring -install, or edit its keyring file and reload)")
		d.notifyKeyRefused(d.id)
	case was && !d.lagging:
		d.log.Info("an agent accepts this agent's cluster keys again")
	}
}

// notifyKeyRefused sends diagNodeKeyRefused about node id.
func (d *Daemon) notifyKeyRefused(id int) {
	if d.notify == nil {
		return
	}
	r := traps.KeyRefused{Node: uint32(id + 1), Addr: d.list.Members[id].Addr}
	if err := d.notify.NodeKeyRefused(r); err != nil {
		d.log.WithError(err).Warn("notification not queued")
	}
}

// nodeIDs lists the ids of set as NodeIDs, ascending.
func nodeIDs(set map[int]bool) []uint32 {
	out := make([]uint32, 0, len(set))
	for id := range set {
		out = append(out, uint32(id+1))
	}
	slices.Sort(out)
	return out
}
