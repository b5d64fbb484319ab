package snmp

import (
	"slices"
	"sort"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/agent/board"
)

// view is what one request reads: a single snapshot and a single instant.
type view struct {
	r    *Responder
	snap *board.Snapshot
	now  time.Time
	ws   *workspace // where generated OIDs are carved from
	// agent is set when the request comes from one of the cluster's users,
	// who alone see what only agents read (agentsOnly).
	agent bool
	// write is set when the community or user may SET: without cluster
	// users, they alone read a node list that holds a device's community
	// (writersOnlyWithSecrets).
	write bool
}

// lookup is the outcome of a GET on the registry.
type lookup int

const (
	found      lookup = iota // the instance exists
	noObject                 // no such object type (noSuchObject)
	noInstance               // the object exists, this instance does not (noSuchInstance)
)

// node is one registered subtree: a scalar object or a conceptual table.
type node interface {
	// base is the subtree's root; subtrees of a tree never overlap.
	base() OID
	// get returns the instance o, which lies under base.
	get(v *view, o OID) (value, lookup)
	// next returns the first instance of the subtree greater than o, if any.
	next(v *view, o OID) (OID, value, bool)
}

// tree is the registry: nodes sorted by base, searched in O(log n).
type tree struct {
	nodes []node
	bases []OID // bases[i] == nodes[i].base(), kept apart for the binary search
}

// newTree sorts nodes into a registry.
func newTree(nodes []node) *tree {
	slices.SortFunc(nodes, func(a, b node) int { return a.base().Compare(b.base()) })
	t := &tree{nodes: nodes}
	for _, n := range nodes {
		t.bases = append(t.bases, n.base())
	}
	return t
}

// find returns the index of the last node whose base is <= o, or -1.
func (t *tree) find(o OID) int {
	i := sort.Search(len(t.bases), func(i int) bool { return t.bases[i].Compare(o) > 0 })
	return i - 1
}

// get looks o up exactly.
func (t *tree) get(v *view, o OID) (value, lookup) {
	i := t.find(o)
	if i < 0 || !o.HasPrefix(t.bases[i]) {
		return value{}, noObject
	}
	return t.nodes[i].get(v, o)
}

// next returns the lexicographic successor of o, or false at the end of the MIB view.
func (t *tree) next(v *view, o OID) (OID, value, bool) {
	for i := max(t.find(o), 0); i < len(t.nodes); i++ {
		if n, val, ok := t.nodes[i].next(v, o); ok {
			return n, val, true
		}
	}
	return nil, value{}, false
}

// only is a subtree served to the requests sees lets through: to any other
// it does not exist.
type only struct {
	node
	sees func(v *view) bool
}

func (a only) get(v *view, o OID) (value, lookup) {
	if !a.sees(v) {
		return value{}, noObject
	}
	return a.node.get(v, o)
}

func (a only) next(v *view, o OID) (OID, value, bool) {
	if !a.sees(v) {
		return nil, value{}, false
	}
	return a.node.next(v, o)
}

// agentsOnly is a subtree only the cluster's users see.
func agentsOnly(n node) node { return only{n, func(v *view) bool { return v.agent }} }

// writersOnlyWithSecrets is a subtree that may hold secrets (the node list,
// with the communities of tested-only nodes), served to a request that may
// SET, or to any while the snapshot holds none: without cluster users
// (SNMPv2c), the agents read it with the write community, which a manager
// holding the read community alone does not have.
func writersOnlyWithSecrets(n node) node {
	return only{n, func(v *view) bool { return !v.snap.ListSecret || v.write || v.agent }}
}

// writer makes a scalar writable: check validates a value of the right type
// (returning noError or an RFC 3416 error status) and commit applies it;
// mayFail marks a commit that can fail, which runs before the others.
type writer struct {
	typ     gosnmp.Asn1BER
	mayFail bool
	agents  bool // written only by agents: with cluster users, by them alone (User.Cluster)
	check   func(v *view, val value) gosnmp.SNMPError
	commit  func(v *view, val value) error
}

// scalar is a single-instance object served as base.0.
type scalar struct {
	oid   OID
	inst  OID
	read  func(v *view) value
	write *writer
}

// newScalar registers a read-only scalar object.
func newScalar(oid OID, read func(v *view) value) *scalar {
	return &scalar{oid: oid, inst: oid.Child(0), read: read}
}

func (s *scalar) base() OID { return s.oid }

func (s *scalar) get(v *view, o OID) (value, lookup) {
	if o.Compare(s.inst) != 0 {
		return value{}, noInstance
	}
	return s.read(v), found
}

func (s *scalar) next(v *view, o OID) (OID, value, bool) {
	if s.inst.Compare(o) <= 0 {
		return nil, value{}, false
	}
	return s.inst, s.read(v), true
}

// column is one readable column of a table.
type column struct {
	id   uint32
	read func(v *view, row int) value
}

// table is a conceptual table with a single integer index; rows come from the
// request's snapshot and are kept sorted by that index.
type table struct {
	entry OID
	cols  []column
	size  func(s *board.Snapshot) int
	key   func(s *board.Snapshot, row int) uint32
}

func (t *table) base() OID { return t.entry }

// column returns the column with the given id, or nil.
func (t *table) column(id uint32) *column {
	for i := range t.cols {
		if t.cols[i].id == id {
			return &t.cols[i]
		}
	}
	return nil
}

// rowAfter returns the first row whose index is greater than idx.
func (t *table) rowAfter(s *board.Snapshot, idx uint32) int {
	return sort.Search(t.size(s), func(i int) bool { return t.key(s, i) > idx })
}

func (t *table) get(v *view, o OID) (value, lookup) {
	rel := o[len(t.entry):]
	if len(rel) == 0 {
		return value{}, noObject
	}
	c := t.column(rel[0])
	if c == nil {
		return value{}, noObject
	}
	if len(rel) != 2 || rel[1] == 0 {
		return value{}, noInstance
	}
	row := t.rowAfter(v.snap, rel[1]-1)
	if row == t.size(v.snap) || t.key(v.snap, row) != rel[1] {
		return value{}, noInstance
	}
	return c.read(v, row), found
}

func (t *table) next(v *view, o OID) (OID, value, bool) {
	var rel OID
	switch {
	case o.HasPrefix(t.entry):
		rel = o[len(t.entry):]
	case o.Compare(t.entry) > 0:
		return nil, value{}, false
	}
	n := t.size(v.snap)
	for _, c := range t.cols {
		row := 0
		switch {
		case len(rel) > 0 && c.id < rel[0]:
			continue
		case len(rel) > 1 && c.id == rel[0]:
			row = t.rowAfter(v.snap, rel[1])
		}
		if row < n {
			return v.ws.oid(t.entry, c.id, t.key(v.snap, row)), c.read(v, row), true
		}
	}
	return nil, value{}, false
}
