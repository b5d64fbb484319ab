package nodelist

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"time"

	"github.com/diagagent/diagagent/hiadsd"
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
	// Maint is the node's maintenance window, nil when it was never given
	// one; a window whose Until has passed stays until the next is set.
	Maint *Window `json:"maint,omitempty"`
	// Name, Community and OID are the file's: a label, the community the
	// node is tested with and the object a tested-only node is tested by.
	// They are no part of the list (the fingerprint leaves them out, peers
	// do not learn them, the state file does not keep them): a member the
	// file does not name has none (WithFile), and the prober's defaults.
	Name      string `json:"-"`
	Community string `json:"-"`
	OID       string `json:"-"`
}

// Window is a node's maintenance window: until when, and the status the
// agent that took it held of the node then, which the window's end
// compares with the node's status at that time.
type Window struct {
	Until  time.Time     `json:"until"`
	Status hiadsd.Status `json:"status"`
}

// Active reports whether the window is open at now: a nil one never is.
func (w *Window) Active(now time.Time) bool {
	return w != nil && now.Before(w.Until)
}

// MaxWindow is the longest window a manager may give: 366 days.
const MaxWindow = 366 * 24 * time.Hour

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
	// ErrTooLong: a maintenance window ends within MaxWindow.
	ErrTooLong = errors.New("maintenance window too long")
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
// in Keys' order, then every maintenance window (a list that has none
// keeps the fingerprint it had before windows existed). A list read from the file has the
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
	for id, m := range l.Members {
		if m.Maint != nil && !m.Removed {
			fmt.Fprintf(h, "maint|%d|%d|%d\n", id+1, m.Maint.Until.Unix(), m.Maint.Status)
		}
	}
	copy(l.Hash[:], h.Sum(nil))
}

// NodesOnly returns the list's members alone, sealed, without its keys
// and maintenance windows: the fingerprint a file of the same nodes has.
func (l List) NodesOnly() List {
	out := List{Members: slices.Clone(l.Members)}
	for k := range out.Members {
		out.Members[k].Maint = nil
	}
	out.Seal()
	return out
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

// WithMaintenance returns the list with node id's maintenance window
// ending at until, at the next version: status is the node's status now,
// which a window already open at now keeps from when it began. An until
// at or before now ends the window. It refuses a removed id and a window
// longer than MaxWindow.
func (l List) WithMaintenance(id int, until, now time.Time, status hiadsd.Status) (List, error) {
	if id < 0 || id >= len(l.Members) || l.Members[id].Removed {
		return l, fmt.Errorf("row %d: %w", id+1, ErrNoMember)
	}
	if until.Sub(now) > MaxWindow {
		return l, fmt.Errorf("%w: %s is more than %v from now", ErrTooLong, until.UTC().Format(time.RFC3339), MaxWindow)
	}
	next := List{Version: l.Version + 1, Members: slices.Clone(l.Members), Keys: l.Keys}
	m := &next.Members[id]
	switch {
	case !until.After(now):
		if !m.Maint.Active(now) {
			return l, nil // no window open: nothing to end
		}
		m.Maint = &Window{Until: now.Truncate(time.Second), Status: m.Maint.Status}
	case m.Maint.Active(now):
		m.Maint = &Window{Until: until.Truncate(time.Second), Status: m.Maint.Status}
	default:
		m.Maint = &Window{Until: until.Truncate(time.Second), Status: status}
	}
	next.Seal()
	return next, nil
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
