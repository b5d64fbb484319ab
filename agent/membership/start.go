package membership

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/diagagent/diagagent/agent/keyring"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/agent/state"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/sirupsen/logrus"
)

// start is where an agent begins (startList): the list it runs and its own
// id there, and the changes to apply at the first interval.
type start struct {
	list     nodelist.List  // the list it runs, its members named as the file names them
	id       int            // this agent's id in list
	next     *nodelist.List // changes made before a restart, or a file edited while the agent was down, for the first interval
	fileHash string         // the file's list, as the state remembers it
	keysHash string         // the keyring file's keys, as the state remembers them
	clock    nodelist.Clock // after every stamp the state holds
}

// startList chooses the list the agent starts with: its file's, unless the
// state holds a list (learned or changed since), in which case the state's
// list stands, with the changes the agent had taken but not yet applied. A
// file edited while the agent was down is applied as changes made here at
// the first interval, as a keyring file edited meanwhile is; a file not
// edited but older than the list run is only reported. The agent's own node
// must be in the list it runs.
func startList(c Options, st state.State, now time.Time) (start, error) {
	log := c.Log
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
				log.WithFields(logrus.Fields{"version": edited.Version, "keys": KeyIDs(fileKeys)}).Info("the keyring file was edited since the last run: its edits are applied as a change at the first interval")
				s.next = &edited
			}
		}
	}
	if s.id = s.list.IndexOf(c.Nodes[c.Self]); s.id < 0 {
		return start{}, fmt.Errorf("node %d (%s) is not in the node list this agent runs (version %d): it was removed; add it again through another agent, or start afresh (empty state_dir): %w",
			c.Self+1, c.Nodes[c.Self].Addr, s.list.Version, hiadsd.ErrRemoved)
	}
	s.list = s.list.WithFile(c.Nodes)
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

// keysHash names the keys of a keyring file as the state remembers them
// (state.State.KeysHash): their IDs in order, "" for none.
func keysHash(keys []keyring.Key) string {
	return strings.Join(KeyIDs(keyring.Ring{Keys: keys}.Indexes()), ",")
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

// KeyIDs names keys by ID for a log line, the one in use first.
func KeyIDs(indexes []uint32) []string {
	out := make([]string, len(indexes))
	for i, k := range indexes {
		out[i] = fmt.Sprintf("%08x", k)
	}
	return out
}
