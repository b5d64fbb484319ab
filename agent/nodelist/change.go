package nodelist

import (
	"fmt"
	"slices"
	"time"

	"github.com/diagagent/diagagent/hiadsd"
)

// The changes an agent makes to its list. Each is one or more facts
// stamped with the agent's clock (at, or next for several), and returns a
// new list: the one it was made on is left as it was.

// clone returns l with slices of its own.
func (l List) clone() List {
	l.Members = slices.Clone(l.Members)
	l.KeySlots = slices.Clone(l.KeySlots)
	l.Keys = slices.Clone(l.Keys)
	return l
}

// Add returns the list with m added as id, stamped at: id must be the next
// id (NextID: the lowest id a collection freed, else len(Members); an id
// given already is ErrTaken), and m's address and port not a member
// already. Its Name, Community and OID become its Labels, which every
// agent learns.
func (l List) Add(id int, m Member, at Stamp) (List, error) {
	next := l.NextID()
	switch {
	case id == next:
	case id >= 0 && id < len(l.Members) && !l.Members[id].Hole:
		return l, fmt.Errorf("row %d: %w (%d)", id+1, ErrTaken, next+1)
	default:
		return l, fmt.Errorf("row %d: %w (%d)", id+1, ErrBadIndex, next+1)
	}
	if k := l.IndexOf(m); k >= 0 {
		return l, fmt.Errorf("%s port %d is node %d: %w", m.ident(), m.Port, k+1, ErrExists)
	}
	m.Labels = Labels{Name: m.Name, Community: m.Community, OID: m.OID}
	m.Added, m.Want = at, id
	m.Deleted, m.DeletedAt, m.Window, m.Hole, m.At = false, Stamp{}, nil, false, 0
	out := l.clone()
	out.Members = append(out.Members, m) // settled into its id by Seal
	out.Seal()
	return out, nil
}

// Remove returns the list with member id removed, stamped at. The
// removal records what it knew, so that a change made at once elsewhere,
// which it undoes, is told as lost there (Lost): every entry that is the
// same node (one address added at once at two agents) is removed with it,
// and a window the node had is ended by the removal, which names it (Prev).
func (l List) Remove(id int, at Stamp) (List, error) {
	if id < 0 || id >= len(l.Members) || l.Members[id].Removed {
		return l, fmt.Errorf("row %d: %w", id+1, ErrNoMember)
	}
	next := l.clone()
	for k, m := range next.Members {
		if k == id || (m.Of == id+1 && !m.Deleted) {
			next.Members[k].Deleted, next.Members[k].DeletedAt = true, at
		}
	}
	if cur := l.Members[id].Maint; cur != nil {
		next.Members[id].Window = &Window{Until: at.Wall().Truncate(time.Second), Status: cur.Status, Set: at, Prev: cur.Set}
	}
	next.Seal()
	return next, nil
}

// WithMaintenance returns the list with node id's maintenance window
// ending at until, stamped at: status is the node's status now, which a
// window already open at now keeps from when it began. An until at or
// before now ends the window; the end is a change even where no window is
// open here, so that it wins over a window set at once elsewhere, which
// this agent has not learned yet, or loses to it and is told (Lost), by
// their stamps. It refuses a removed id and a window longer than MaxWindow.
func (l List) WithMaintenance(id int, until, now time.Time, status hiadsd.Status, at Stamp) (List, error) {
	if id < 0 || id >= len(l.Members) || l.Members[id].Removed {
		return l, fmt.Errorf("row %d: %w", id+1, ErrNoMember)
	}
	if until.Sub(now) > MaxWindow {
		return l, fmt.Errorf("%w: %s is more than %v from now", ErrTooLong, until.UTC().Format(time.RFC3339), MaxWindow)
	}
	cur := l.Members[id].Maint
	w := Window{Until: until.Truncate(time.Second), Status: status, Set: at}
	if cur != nil {
		w.Prev = cur.Set
	}
	switch {
	case !until.After(now):
		w.Until = now.Truncate(time.Second)
		if cur.Active(now) {
			w.Status = cur.Status
		}
	case cur.Active(now):
		w.Status = cur.Status
	}
	next := l.clone()
	next.Members[id].Window = &w
	next.Seal()
	return next, nil
}

// Restamp returns pending, a list queued at origin on top of run and not
// run yet (so no other agent has read it), with the entries added at
// origin that run lacks stamped anew by next, and their windows and
// removals after them. An agent restarted after a crash does this to the
// adds it acknowledged before: stamped when they were made, they would
// take the ids of nodes added elsewhere meanwhile (by stamp order, the
// first keeps an id), and those, established since, would move; stamped
// now, the late add is the one that moves, and its agent tells it lost.
func (pending List) Restamp(run List, origin uint32, next func() Stamp) (List, bool) {
	out := pending.clone()
	changed := false
	for k, m := range out.Members {
		if m.Hole || m.Added.Origin != origin || m.Added.IsZero() || run.IDOf(pending, k) >= 0 {
			continue
		}
		m.Added = next()
		if m.Window != nil {
			w := *m.Window
			w.Set = next()
			m.Window = &w
		}
		if m.Deleted {
			m.DeletedAt = next()
		}
		out.Members[k], changed = m, true
	}
	if !changed {
		return pending, false
	}
	out.Seal()
	return out, true
}

// Unskew returns the list with the facts made at origin that are stamped
// more than MaxSkew ahead of now stamped anew by next, in the order they
// had, and the windows and key settings that named them naming the new
// stamps; false if there are none. Such facts were made while origin's
// clock ran ahead, and every agent with a correct clock refuses a list
// holding them (Check), so none took them: stamped anew, the changes
// spread. A fact ahead made elsewhere is left to its own agent.
func (l List) Unskew(now time.Time, origin uint32, next func() Stamp) (List, bool) {
	out := l.clone()
	var facts []*Stamp
	take := func(s *Stamp) {
		if s.Origin == origin && ahead(s.Time, now) {
			facts = append(facts, s)
		}
	}
	for k := range out.Members {
		m := &out.Members[k]
		if m.Hole {
			continue
		}
		take(&m.Added)
		if m.Deleted {
			take(&m.DeletedAt)
		}
		if m.Window != nil {
			w := *m.Window
			m.Window = &w
			take(&w.Set)
		}
	}
	for k := range out.KeySlots {
		take(&out.KeySlots[k].Added)
		if out.KeySlots[k].Deleted {
			take(&out.KeySlots[k].DeletedAt)
		}
	}
	take(&out.Primary.Set)
	if len(facts) == 0 {
		return l, false
	}
	slices.SortFunc(facts, func(a, b *Stamp) int { return a.Compare(*b) })
	renamed := map[Stamp]Stamp{}
	for _, s := range facts {
		n := next()
		renamed[*s] = n
		*s = n
	}
	for _, m := range out.Members {
		if w := m.Window; w != nil {
			if n, ok := renamed[w.Prev]; ok {
				w.Prev = n
			}
		}
	}
	if n, ok := renamed[out.Primary.Prev]; ok {
		out.Primary.Prev = n
	}
	out.Seal()
	return out, true
}

// Key verbs, as diagKeyChange numbers them (mib.KeyInstall, KeyUse,
// KeyRemove).
const (
	KeyInstall = 1
	KeyUse     = 2
	KeyRemove  = 3
)

// WithKey returns the list with key index changed by verb, stamped at:
// install a key not held; use a key held (it is installed again with the
// use, so that a removal made at once elsewhere does not take away the key
// in use); remove a key held but not in use. Anything else is ErrKeyChange,
// as is any change of a list that runs no keys.
func (l List) WithKey(verb int, index uint32, at Stamp) (List, error) {
	held := slices.Contains(l.Keys, index)
	switch {
	case len(l.Keys) == 0:
	case verb == KeyUse && held && index == l.Keys[0]:
		return l, nil
	case (verb == KeyInstall && !held || verb == KeyUse && held) && len(l.KeySlots) >= maxKeySlots:
		return l, fmt.Errorf("%w: the list holds %d key installations, the most its encoding carries (removed keys are collected once every agent runs one list)", ErrKeyChange, len(l.KeySlots))
	case verb == KeyInstall && !held, verb == KeyUse && held:
		next := l.clone()
		next.KeySlots = append(next.KeySlots, KeySlot{Index: index, Added: at})
		if verb == KeyUse {
			next.Primary = Primary{Index: index, Set: at, Prev: l.Primary.Set}
		}
		next.Seal()
		return next, nil
	case verb == KeyRemove && held && index != l.Keys[0]:
		next := l.clone()
		for k, s := range next.KeySlots {
			if s.Index == index && !s.Deleted {
				next.KeySlots[k].Deleted, next.KeySlots[k].DeletedAt = true, at
			}
		}
		next.Seal()
		return next, nil
	}
	return l, fmt.Errorf("%w: verb %d of key %08x, keys held %08x", ErrKeyChange, verb, index, l.Keys)
}

// WithKeys returns the list running keys (primary first), each change
// stamped by next, and whether anything changed: keys not held are
// installed, the first is used, and keys held but not given are removed.
func (l List) WithKeys(keys []uint32, next func() Stamp) (List, bool) {
	if len(keys) == 0 || slices.Equal(l.Keys, keys) {
		return l, false
	}
	out := l
	if len(l.Keys) == 0 { // a list of no keys: the file's, before a keyring
		out = l.clone()
		for _, k := range keys {
			out.KeySlots = append(out.KeySlots, KeySlot{Index: k, Added: next()})
		}
		out.Primary = Primary{Index: keys[0], Set: next()}
		out.Seal()
		return out, true
	}
	for _, k := range keys {
		out, _ = out.WithKey(KeyInstall, k, next())
	}
	out, _ = out.WithKey(KeyUse, keys[0], next())
	for _, k := range l.Keys {
		if !slices.Contains(keys, k) {
			out, _ = out.WithKey(KeyRemove, k, next())
		}
	}
	return out, true
}

// Edit returns the list with the edits made to a file applied: old is the
// file as last read, file as read now, matched by host name or address,
// and by port. Each change is stamped by next: a node the file now lists
// and did not is added (at the next id, with the file's labels) unless it
// is a member already; a node it no longer lists is removed; a node whose
// tested-only flag changed is removed and added again. Nothing else moves:
// the file is one operator among others, so a node added by another (a SET,
// diagagent nodes) stays until someone removes it, and a file read again
// unchanged changes nothing. It reports whether anything changed.
func (l List) Edit(old, file []Member, next func() Stamp) (List, bool) {
	was := map[string]Member{}
	for _, m := range old {
		was[m.key()] = m
	}
	out, changed := l, false
	now := map[string]bool{}
	for _, want := range file {
		now[want.key()] = true
		before, listed := was[want.key()]
		if listed && before.TestedOnly == want.TestedOnly {
			continue // the file says of it what it said
		}
		k := out.IndexOf(want)
		if k >= 0 && out.Members[k].TestedOnly == want.TestedOnly {
			continue // a member already, as the file wants it
		}
		if k >= 0 {
			out, _ = out.Remove(k, next())
		}
		out, _ = out.Add(out.NextID(), want, next())
		changed = true
	}
	for _, gone := range old {
		if now[gone.key()] {
			continue
		}
		if k := out.IndexOf(gone); k >= 0 {
			out, _ = out.Remove(k, next())
			changed = true
		}
	}
	return out, changed
}

// EditKeys returns the list with the edits made to a keyring file applied:
// old are the file's keys as last read, keys as read now (the first is the
// one to send with), each change stamped by next. A key the file adds is
// installed, a first key that changed is put in use, a key the file drops
// is removed (unless it is in use); a key the file lists as it did is left
// as other operators left it, so a file that still names a key removed
// with diagagent keyring does not install it again. It reports whether
// anything changed.
func (l List) EditKeys(old, keys []uint32, next func() Stamp) (List, bool) {
	out := l
	for _, k := range keys {
		if !slices.Contains(old, k) {
			out, _ = out.WithKey(KeyInstall, k, next())
		}
	}
	if len(keys) > 0 && (len(old) == 0 || old[0] != keys[0]) {
		if !slices.Contains(out.Keys, keys[0]) {
			out, _ = out.WithKey(KeyInstall, keys[0], next())
		}
		out, _ = out.WithKey(KeyUse, keys[0], next())
	}
	for _, k := range old {
		if !slices.Contains(keys, k) {
			out, _ = out.WithKey(KeyRemove, k, next())
		}
	}
	return out, out.Hash != l.Hash
}

// Apply returns the list that an edited file asks for, matched by host
// name or address, and by port, not by position, each change stamped by
// next: members the file no longer has are removed, nodes it adds take the
// next ids in file order (with the file's labels), and a member whose
// tested-only flag changed is removed and added again (its id's meaning
// would change). It reports whether anything changed. It takes the file
// as the whole truth, and so removes nodes other operators added: Edit is
// for a file whose last reading is known, Apply only for a state that does
// not keep it (an agent of 1.0 or older).
func (l List) Apply(file []Member, next func() Stamp) (List, bool) {
	out := l
	inFile := map[string]bool{}
	changed := false
	for _, want := range file {
		inFile[want.key()] = true
		k := out.IndexOf(want)
		if k >= 0 && out.Members[k].TestedOnly == want.TestedOnly {
			continue
		}
		if k >= 0 {
			out, _ = out.Remove(k, next())
		}
		out, _ = out.Add(out.NextID(), want, next())
		changed = true
	}
	for k, m := range out.Members {
		if !m.Removed && !inFile[m.key()] {
			out, _ = out.Remove(k, next())
			changed = true
		}
	}
	return out, changed
}
