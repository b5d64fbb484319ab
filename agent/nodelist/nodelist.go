package nodelist

import (
	"cmp"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"net/netip"
	"slices"
	"time"

	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// Member is one entry of the list: the one type of a node, which the
// prober tests, the rows show and the page names. Its facts (what was
// added, removed and set, each with its Stamp) are what agents merge; the
// rest is derived from the facts of the whole list by Seal, or given by the
// agent's own file (WithFile).
type Member struct {
	// Host is the host name the node was given by, if any.
	Host string     `json:"host,omitempty"`
	Addr netip.Addr `json:"addr"`
	Port uint16     `json:"port"`
	// TestedOnly marks a device that runs no agent (a printer): tested, never
	// a tester nor a source.
	TestedOnly bool `json:"tested_only,omitempty"`
	// Added is when and at which agent the entry was added; zero for the
	// file's nodes.
	Added Stamp `json:"added,omitzero"`
	// Want is the id the entry was added at. Two entries added at once at
	// two agents under the same id: the one stamped first keeps it, the
	// other takes the next free id (Seal).
	Want int `json:"want"`
	// Labels are the name, community and OID the entry was added with (an
	// SNMP SET or diagagent nodes), which every agent learns; the file's
	// nodes have none here, since each agent's own file names them.
	Labels Labels `json:"labels,omitzero"`
	// Deleted records the entry's removal, and DeletedAt when and where it
	// was made (zero in a list an agent of an older format ran).
	Deleted   bool  `json:"removed,omitempty"`
	DeletedAt Stamp `json:"removed_at,omitzero"`
	// Window is the last maintenance window set on this entry.
	Window *Window `json:"maint,omitempty"`
	// Hole marks an id no entry holds: the place of an id that an entry
	// added at once with another was moved away from, or of an entry
	// collected (Collect).
	Hole bool `json:"hole,omitempty"`
	// At pins the entry to id At-1, which it held when the list was
	// collected (Collect), so that no id moves when the entries that
	// placed it are gone; 0 when it is placed by Want.
	At int `json:"at,omitempty"`

	// Removed reports that the id is no member: the node was removed, the
	// entry is the same node added again at once at another agent (Of), or
	// the id is a hole. A removed id is never tested and never given to
	// another address.
	Removed bool `json:"-"`
	// Of is, for an entry that is the same address added at once at two
	// agents, the NodeID of the node it is (the entry stamped first).
	Of int `json:"-"`
	// Maint is the node's maintenance window: the one stamped last among
	// those set on its entries; nil when it never had one. A window whose
	// Until has passed stays until the next is set.
	Maint *Window `json:"-"`
	// Name, Community and OID are the node's label, the community it is
	// tested with and the object a tested-only node is tested by: the
	// file's for a node the file lists (WithFile), else its Labels.
	Name      string `json:"-"`
	Community string `json:"-"`
	OID       string `json:"-"`
}

// Labels are what names a node added by a manager and how it is tested:
// part of the list, so every agent learns them.
type Labels struct {
	Name      string `json:"name,omitempty"`
	Community string `json:"community,omitempty"`
	OID       string `json:"oid,omitempty"`
}

// Window is a node's maintenance window: until when, the status the agent
// that took it held of the node then, which the window's end compares with
// the node's status at that time, when it was set (Set) and the window it
// replaced there (Prev), which tells a window set over another from one set
// at once with it.
type Window struct {
	Until  time.Time     `json:"until"`
	Status hiadsd.Status `json:"status"`
	Set    Stamp         `json:"set,omitzero"`
	Prev   Stamp         `json:"prev,omitzero"`
}

// Active reports whether the window is open at now: a nil one never is.
func (w *Window) Active(now time.Time) bool {
	return w != nil && now.Before(w.Until)
}

// MaxWindow is the longest window a manager may give: 366 days.
const MaxWindow = 366 * 24 * time.Hour

// DefaultPort is the UDP port of a node whose entry gives none.
const DefaultPort = mib.AgentPort

// List is the node list an agent runs: its entries by id, and the cluster
// keys. Every change made at an agent is a fact with its own stamp, and two
// lists merge fact by fact (Merge), so changes made at once at two agents
// are both kept; where they change the same thing (a node's window, the key
// in use) the one stamped last wins everywhere.
type List struct {
	// Version summarizes the facts the list holds: Base plus the number of
	// stamped facts. Two agents holding the same facts show the same
	// version; it only grows as facts are merged in.
	Version uint32 `json:"version"`
	// Hash fingerprints every fact (Seal): two lists with the same
	// fingerprint hold the same facts.
	Hash [8]byte `json:"hash"`
	// Base is the version of the list the stamped facts were added to: 0
	// for a configuration file, the version a list was at when an agent of
	// an older format ran it (Migrate).
	Base uint32 `json:"base"`
	// Members are the entries by id; their positions are settled by Seal.
	Members []Member `json:"members"`
	// Keys are the cluster keys the agents run, by index (keyring.Key.Index):
	// the one agents send with first, then the others ascending. A cluster
	// without a keyring has none. They are derived from KeySlots and
	// Primary.
	Keys []uint32 `json:"keys,omitempty"`
	// KeySlots record each key installed, with its stamp, and its removal.
	KeySlots []KeySlot `json:"key_slots,omitempty"`
	// Primary is the key agents send with, as last set.
	Primary Primary `json:"primary,omitzero"`
	// Stable is the stamp the list was last collected at (Collect): every
	// agent had seen every fact stamped by it, and what it dropped then is
	// dropped from any list merged in. Zero for a list never collected.
	Stable Stamp `json:"stable,omitzero"`
	// Collected counts the stamped facts collected: Version still counts
	// them, so that it only grows.
	Collected uint32 `json:"collected,omitempty"`
	// Span is how many ids the list had when it was last collected: it
	// keeps them (an id collected is a hole, given to the next add).
	Span int `json:"span,omitempty"`

	base [8]byte // the fingerprint of the unstamped facts (Seal): lists of two bases do not merge
}

// KeySlot is one installation of a cluster key, and its removal.
type KeySlot struct {
	Index     uint32 `json:"index"`
	Added     Stamp  `json:"added,omitzero"`
	Deleted   bool   `json:"removed,omitempty"`
	DeletedAt Stamp  `json:"removed_at,omitzero"`
}

// Primary is the key agents send with, when it was set and the setting it
// replaced there.
type Primary struct {
	Index uint32 `json:"index"`
	Set   Stamp  `json:"set,omitzero"`
	Prev  Stamp  `json:"prev,omitzero"`
}

// Errors of the changes a manager asks for; the SNMP layer maps them to the
// RFC 3416 error of the SET.
var (
	// ErrBadIndex: a new row's index must be the next id.
	ErrBadIndex = errors.New("a new node takes the next id")
	// ErrTaken: the id was given already (to a node added here just
	// before): read the next id again.
	ErrTaken = errors.New("the id is taken; read diagNodeNextID again")
	// ErrExists: the address and port are already a member.
	ErrExists = errors.New("the address and port are already in the list")
	// ErrNoMember: the id is not a member (never given, or removed).
	ErrNoMember = errors.New("no such member")
	// ErrTooLong: a maintenance window ends within MaxWindow.
	ErrTooLong = errors.New("maintenance window too long")
	// ErrKeyChange: the key change contradicts the keys held.
	ErrKeyChange = errors.New("the key change contradicts the keys held")
)

// New returns the list of members, as a file gives it, at version 0.
func New(members []Member) List {
	l := List{Members: slices.Clone(members)}
	for k := range l.Members {
		m := &l.Members[k]
		m.Want, m.Added, m.Labels = k, Stamp{}, Labels{}
	}
	l.Seal()
	return l.WithFile(members)
}

// WithFile returns l with the file's Name, Community and OID on each member
// the file lists (by host name if it gives one, else by address, and by
// port), and each other member's own Labels.
func (l List) WithFile(file []Member) List {
	l.Members = slices.Clone(l.Members)
	for k := range l.Members {
		m := &l.Members[k]
		m.Name, m.Community, m.OID = m.Labels.Name, m.Labels.Community, m.Labels.OID
		if m.Of > 0 && m.Of <= len(l.Members) {
			own := l.Members[m.Of-1].Labels
			m.Name, m.Community, m.OID = own.Name, own.Community, own.OID
		}
		for _, f := range file {
			same := f.Addr == m.Addr
			if f.Host != "" {
				same = f.Host == m.Host
			}
			if same && f.Port == m.Port && !m.Hole {
				m.Name, m.Community, m.OID = f.Name, f.Community, f.OID
			}
		}
	}
	return l
}

// Seal settles the list from its facts: each entry's id, whether it is a
// member, its maintenance window and the keys (settle); then its
// fingerprint and version. The fingerprint is the first 8 octets of
// SHA-256 over every id's host name (or address), port and tested-only
// flag, or its removal, in id order, then every key's index in Keys'
// order, then every open or past maintenance window; then every stamped
// fact. A list without stamped facts has the fingerprint an agent of an
// older format gave the same list, so agents of both formats agree on it.
func (l *List) Seal() {
	l.settle()
	h := sha256.New()
	for _, m := range l.Members {
		if m.Removed {
			fmt.Fprintf(h, "%s|%d|removed\n", m.ident(), m.Port)
			continue
		}
		fmt.Fprintf(h, "%s|%d|%t\n", m.ident(), m.Port, m.TestedOnly)
	}
	for _, k := range l.Keys {
		fmt.Fprintf(h, "key|%08x\n", k)
	}
	for id, m := range l.Members {
		if m.Maint != nil && !m.Removed {
			fmt.Fprintf(h, "maint|%d|%d|%d\n", id+1, m.Maint.Until.Unix(), m.Maint.Status)
		}
	}
	if l.collectedAny() {
		fmt.Fprintf(h, "stable|%s|%d|%d\n", l.Stable, l.Collected, l.Span)
	}
	stamped := uint32(l.facts(h, false))
	copy(l.Hash[:], h.Sum(nil))
	b := sha256.New()
	fmt.Fprintf(b, "base|%d\n", l.Base)
	l.facts(b, true)
	copy(l.base[:], b.Sum(nil))
	l.Version = l.Base + l.Collected + stamped
}

// collectedAny reports whether the list was ever collected: its encoding
// is then the format agents of 1.0 do not read.
func (l List) collectedAny() bool {
	return !l.Stable.IsZero() || l.Collected > 0 || l.Span > 0
}

// facts writes to h the list's stamped facts and returns how many it
// wrote; with unstamped, the facts of its base instead: the entries and
// removals of the file it grew from, not its windows nor the key in use,
// which a later setting replaces.
func (l *List) facts(h hash.Hash, unstamped bool) int {
	n := 0
	put := func(stamp Stamp, format string, args ...any) {
		if stamp.IsZero() == unstamped {
			fmt.Fprintf(h, format, args...)
			n++
		}
	}
	for id, m := range l.Members {
		if m.Hole {
			continue
		}
		put(m.Added, "entry|%d|%d|%s|%s|%d|%t|%q|%q|%q\n", id+1, m.Want, m.Added, m.ident(), m.Port, m.TestedOnly,
			m.Labels.Name, m.Labels.Community, m.Labels.OID)
		if m.At > 0 && !unstamped { // where the entry stays: no fact of its own
			fmt.Fprintf(h, "at|%d|%s\n", m.At, m.Added)
		}
		if m.Deleted {
			put(m.DeletedAt, "removed|%d|%s\n", id+1, m.DeletedAt)
		}
		if w := m.Window; w != nil && !unstamped {
			put(w.Set, "window|%d|%d|%d|%s|%s\n", id+1, w.Until.Unix(), w.Status, w.Set, w.Prev)
		}
	}
	for _, k := range l.KeySlots {
		put(k.Added, "keyslot|%08x|%s\n", k.Index, k.Added)
		if k.Deleted {
			put(k.DeletedAt, "keyremoved|%08x|%s|%s\n", k.Index, k.Added, k.DeletedAt)
		}
	}
	if len(l.KeySlots) > 0 && !unstamped {
		put(l.Primary.Set, "primary|%08x|%s|%s\n", l.Primary.Index, l.Primary.Set, l.Primary.Prev)
	}
	return n
}

// Changes returns how many stamped facts the list was made of, held or
// collected: 0 for a file's list, or one an agent of an older format ran.
func (l List) Changes() uint32 { return l.Version - l.Base }

// NodesOnly returns the list's members alone, sealed, without its keys
// and maintenance windows: the fingerprint a file of the same nodes has.
func (l List) NodesOnly() List {
	out := List{Members: slices.Clone(l.Members)}
	for k := range out.Members {
		m := &out.Members[k]
		m.Window, m.Added, m.DeletedAt, m.Labels, m.Want = nil, Stamp{}, Stamp{}, Labels{}, k
		m.Deleted = m.Deleted || m.Removed
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

// IndexOf returns the id of the member that is the same node as m (by
// host name, else by address, and by port), or -1.
func (l List) IndexOf(m Member) int {
	for k, o := range l.Members {
		if !o.Removed && o.key() == m.key() {
			return k
		}
	}
	return -1
}

// SameBase reports whether a and b grew from the same base, so that they
// merge (Merge) and ids mean the same nodes in both.
func SameBase(a, b List) bool { return a.Base == b.Base && a.base == b.base }

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

// Diff lists what changed from old to l: ids that are members now and were
// not, and ids that were members and are not.
func (l List) Diff(old List) (added, removed []int) {
	for k, m := range l.Members {
		was := k < len(old.Members) && !old.Members[k].Removed && old.Members[k].slot() == m.slot()
		switch {
		case !m.Removed && !was:
			added = append(added, k)
		case m.Removed && was:
			removed = append(removed, k)
		}
	}
	for k := len(l.Members); k < len(old.Members); k++ {
		if !old.Members[k].Removed {
			removed = append(removed, k)
		}
	}
	return added, removed
}

// slotID names an entry among every list's: its stamp and the id it was
// added at.
type slotID struct {
	Added Stamp
	Want  int
}

func (m Member) slot() slotID { return slotID{m.Added, m.Want} }

// Reset lists the ids whose entry differs from old's: an id that names
// another entry than it did (one added at once with another under the same
// id, which moved), so what an agent knew of it is about another node.
func (l List) Reset(old List) []int {
	var out []int
	for k := range min(len(l.Members), len(old.Members)) {
		a, b := l.Members[k], old.Members[k]
		if a.Hole != b.Hole || (!a.Hole && a.slot() != b.slot()) {
			out = append(out, k)
		}
	}
	return out
}

// IDOf returns the id at which l holds the entry that id holds in old, or
// -1 when l has no such entry.
func (l List) IDOf(old List, id int) int {
	if id < 0 || id >= len(old.Members) || old.Members[id].Hole {
		return -1
	}
	s := old.Members[id].slot()
	if id < len(l.Members) && !l.Members[id].Hole && l.Members[id].slot() == s {
		return id
	}
	return slices.IndexFunc(l.Members, func(m Member) bool { return !m.Hole && m.slot() == s })
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

// sortSlots puts entries in the order settle reads them: by stamp, then by
// the id they were added at.
func sortSlots(ms []Member) {
	slices.SortStableFunc(ms, func(a, b Member) int {
		if c := a.Added.Compare(b.Added); c != 0 {
			return c
		}
		return cmp.Compare(a.Want, b.Want)
	})
}
