package daemon

import (
	"slices"

	"github.com/diagagent/diagagent/agent/keyring"
	"github.com/diagagent/diagagent/agent/membership"
	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/traps"
	"github.com/sirupsen/logrus"
)

// Ring returns the cluster keys the agent runs, the one it sends with
// first, and false when it runs none.
func (d *Daemon) Ring() (keyring.Ring, bool) {
	d.mu.Lock()
	keys := d.list.Keys
	d.mu.Unlock()
	r := d.members.Ring(keys)
	return r, len(r.Keys) > 0
}

// keysRefused notes, from this interval's tests, the peers that refused
// every key this agent holds: logged once per episode (explain), counted
// and shown (Snapshot.KeyRefused). A peer tested otherwise leaves the set.
// When every agent tested refused, this agent is the one that missed a
// rotation (or was given another keyring): it says so once per episode,
// in its log and to the station (diagNodeKeyRefused about itself), and
// its verdicts about the peers that refuse it are not notified (mute):
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
	d.refused = ids
	d.mu.Unlock()
	was := d.lagging
	d.lagging = refused > 0 && refused == agents || (was && agents == 0)
	switch {
	case d.lagging && !was:
		d.log.WithFields(logrus.Fields{"refused_by": refused, "keys": membership.KeyIDs(d.list.Keys)}).
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
