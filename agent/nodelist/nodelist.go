package nodelist

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"net/netip"
	"slices"
)

// Member is one node of the list: the one type of a node, which the
// prober tests, the rows show and the page names.
type Member struct {
	// Host is the host name the file gave, if any; learned lists carry none.
	Host string     `json:"host,omitempty"`
	Addr netip.Addr `json:"addr"`
	Port uint16     `json:"port"`
	// TestedOnly marks a device that runs no agent (a printer): tested, never
	// a tester nor a source.
	TestedOnly bool `json:"tested_only,omitempty"`
	// Removed marks an id taken out of the list: never tested, never given again.
	Removed bool `json:"removed,omitempty"`
	// Name, Community and OID are the file's: a label, the community the
	// node is tested with and the object a tested-only node is tested by.
	// They are no part of the list (the fingerprint leaves them out, peers
	// do not learn them, the state file does not keep them): a member the
	// file does not name has none (WithFile), and the prober's defaults.
	Name      string `json:"-"`
	Community string `json:"-"`
	OID       string `json:"-"`
}

// DefaultPort is the UDP port of a node whose entry gives none.
const DefaultPort = 161

// List is a version of the node list.
type List struct {
	Version uint32   `json:"version"`
	Hash    [8]byte  `json:"hash"`
	Members []Member `json:"members"`
	// Keys are the cluster keys the agents run under this version, by
	// index (keyring.Key.Index): the one agents send with first, then the
	// others in ascending order. A cluster without a keyring has none. A
	// rotation is a change of the list as adding a node is, so it takes
	// the next version and spreads the same way.
	Keys []uint32 `json:"keys,omitempty"`
}

// Errors of the changes a manager asks for; the SNMP layer maps them to the
// RFC 3416 error of the SET.
var (
	// ErrBadIndex: a new row's index must be the next id.
	ErrBadIndex = errors.New("a new node takes the next id")
	// ErrExists: the address and port are already a member.
	ErrExists = errors.New("the address and port are already in the list")
	// ErrNoMember: the id is not a member (never given, or removed).
	ErrNoMember = errors.New("no such member")
)

// New returns the list of members, as a file gives it, at version 0.
func New(members []Member) List {
	l := List{Members: slices.Clone(members)}
	l.Seal()
	return l
}

// WithFile returns l with the file's Name, Community and OID on each member
// the file lists (by host name if it gives one, else by address, and by
// port), and none on the others.
func (l List) WithFile(file []Member) List {
	l.Members = slices.Clone(l.Members)
	for k := range l.Members {
		m := &l.Members[k]
		m.Name, m.Community, m.OID = "", "", ""
		for _, f := range file {
			same := f.Addr == m.Addr
			if f.Host != "" {
				same = f.Host == m.Host
			}
			if same && f.Port == m.Port {
				m.Name, m.Community, m.OID = f.Name, f.Community, f.OID
			}
		}
	}
	return l
}

// Seal computes the fingerprint of the members and keys: the first 8
// octets of SHA-256 over every id's host name (or address), port and
// tested-only flag, or its removal, in id order, then every key's index
// in Keys' order. A list read from the file has the
// fingerprint of the list as written, whatever the names resolve to.
func (l *List) Seal() {
	h := sha256.New()
	for _, m := range l.Members {
		id := m.Host
		if id == "" {
			id = m.Addr.String()
		}
		if m.Removed {
			fmt.Fprintf(h, "%s|%d|removed\n", id, m.Port)
			continue
		}
		fmt.Fprintf(h, "%s|%d|%t\n", id, m.Port, m.TestedOnly)
	}
	for _, k := range l.Keys {
		fmt.Fprintf(h, "key|%08x\n", k)
	}
	copy(l.Hash[:], h.Sum(nil))
}

// Find returns the id of the member at addr and port, or -1.
func (l List) Find(addr netip.Addr, port uint16) int {
	for k, m := range l.Members {
		if !m.Removed && m.Addr == addr && m.Port == port {
			return k
		}
	}
	return -1
}

// Count returns how many ids are members (not removed).
func (l List) Count() int {
	c := 0
	for _, m := range l.Members {
		if !m.Removed {
			c++
		}
	}
	return c
}

// Add returns the list with m as member id, at the next version: id must
// be the next id, and m's address and port not a member already.
func (l List) Add(id int, m Member) (List, error) {
	if id != len(l.Members) {
		return l, fmt.Errorf("row %d: %w (%d)", id+1, ErrBadIndex, len(l.Members)+1)
	}
	if k := l.Find(m.Addr, m.Port); k >= 0 {
		return l, fmt.Errorf("%s port %d is node %d: %w", m.Addr, m.Port, k+1, ErrExists)
	}
	m.Removed = false
	next := List{Version: l.Version + 1, Members: append(l.Members[:len(l.Members):len(l.Members)], m), Keys: l.Keys}
	next.Seal()
	return next, nil
}

// Remove returns the list with id removed, at the next version.
func (l List) Remove(id int) (List, error) {
	if id < 0 || id >= len(l.Members) || l.Members[id].Removed {
		return l, fmt.Errorf("row %d: %w", id+1, ErrNoMember)
	}
	next := List{Version: l.Version + 1, Members: append([]Member(nil), l.Members...), Keys: l.Keys}
	next.Members[id].Removed = true
	next.Seal()
	return next, nil
}

// Apply returns the list that an edited file asks for, matched by address
// and port, not by position: members the file no longer has are removed,
// nodes it adds take the next ids in file order, and a member whose
// tested-only flag changed is removed and added again (its id's meaning
// would change). It reports whether anything changed; a change takes the
// next version.
func (l List) Apply(file []Member) (List, bool) {
	next := List{Version: l.Version + 1, Members: append([]Member(nil), l.Members...), Keys: l.Keys}
	inFile := map[[2]any]bool{}
	changed := false
	for _, want := range file {
		want.Removed = false
		inFile[[2]any{want.Addr, want.Port}] = true
		k := l.Find(want.Addr, want.Port)
		if k >= 0 && l.Members[k].TestedOnly == want.TestedOnly {
			continue
		}
		if k >= 0 {
			next.Members[k].Removed = true
		}
		next.Members = append(next.Members, want)
		changed = true
	}
	for k, m := range l.Members {
		if !m.Removed && !inFile[[2]any{m.Addr, m.Port}] {
			next.Members[k].Removed = true
			changed = true
		}
	}
	if !changed {
		return l, false
	}
	next.Seal()
	return next, true
}

// SortKeys puts keys in the order Keys holds them: primary first, then
// the others ascending, each once.
func SortKeys(primary uint32, others []uint32) []uint32 {
	out := []uint32{primary}
	rest := slices.Clone(others)
	slices.Sort(rest)
	for _, k := range slices.Compact(rest) {
		if k != primary {
			out = append(out, k)
		}
	}
	return out
}

// WithKeys returns the list running keys (in SortKeys' order), at the next
// version, and whether they differ from l's.
func (l List) WithKeys(keys []uint32) (List, bool) {
	if slices.Equal(l.Keys, keys) {
		return l, false
	}
	next := List{Version: l.Version + 1, Members: l.Members, Keys: slices.Clone(keys)}
	next.Seal()
	return next, true
}

// Diff lists what changed from old to l: ids added and ids removed.
func (l List) Diff(old List) (added, removed []int) {
	for k, m := range l.Members {
		switch {
		case k >= len(old.Members):
			if !m.Removed {
				added = append(added, k)
			}
		case m.Removed && !old.Members[k].Removed:
			removed = append(removed, k)
		}
	}
	return added, removed
}
