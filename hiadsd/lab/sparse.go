package lab

import (
	"slices"

	"github.com/diagagent/diagagent/hiadsd"
)

// Sparse is a hiadsd.View that stores one default entry plus the entries
// that differ from it, so its memory follows what the node has learned
// rather than N. The simulator gives every node one, which is what lets
// 65,536 nodes and more fit. While a view differs from its default in many
// ids (a restarted node relearning everything) it keeps a plain table
// instead, and goes back to the sorted difference list once it knows every
// node again. The first difference is stored inside the view itself (few):
// a fetch reads every source's view, and a view that differs in one id (one
// fault) is then one read, not two. So a Sparse must not be copied once it
// is in use.
type Sparse struct {
	// What a fetch reads comes first, in one cache line.
	table               []hiadsd.Entry   // the whole view, while it differs in many ids
	diff                []hiadsd.IDEntry // sorted by ID, on few until it outgrows it; unused while table is set
	few                 [1]hiadsd.IDEntry
	def                 hiadsd.Entry
	sum                 uint64   // the digest: entryHash summed over every id
	n, stored, unknowns int      // ids; ids whose entry differs from def; ids held Unknown
	_                   [24]byte // to 128 bytes: side by side, every view's first line is the one a fetch reads
}

// NewSparse returns a view of n ids that all hold def; an all-unknown view
// starts as a table, since it is about to learn every id.
func NewSparse(n int, def hiadsd.Entry) *Sparse {
	v := &Sparse{n: n, def: def}
	if def != (hiadsd.Entry{Status: hiadsd.FaultFree}) {
		for id := range n {
			v.sum += entryHash(id, def)
		}
	}
	if def.Status == hiadsd.Unknown {
		v.unknowns = n
		v.table = make([]hiadsd.Entry, n)
		for id := range v.table {
			v.table[id] = def
		}
	}
	return v
}

// Len returns the number of ids covered.
func (v *Sparse) Len() int { return v.n }

// Default returns the entry of every id not stored explicitly.
func (v *Sparse) Default() hiadsd.Entry { return v.def }

// Unknowns returns how many ids the view still holds hiadsd.Unknown.
func (v *Sparse) Unknowns() int { return v.unknowns }

// Digest returns a digest of every id's entry, kept as entries change:
// two views of the same ids hold the same entries when their digests are
// equal (up to a 2^-64 chance), whatever their defaults and shapes.
func (v *Sparse) Digest() uint64 { return v.sum }

// Stored returns how many ids differ from the default.
func (v *Sparse) Stored() int { return v.stored }

// find returns where id is, or would be, in diff.
func (v *Sparse) find(id int) (int, bool) {
	lo, hi := 0, len(v.diff)
	for lo < hi {
		if k := int(uint(lo+hi) >> 1); v.diff[k].ID < id {
			lo = k + 1
		} else {
			hi = k
		}
	}
	return lo, lo < len(v.diff) && v.diff[lo].ID == id
}

// Get returns the entry for id.
func (v *Sparse) Get(id int) hiadsd.Entry {
	if v.table != nil {
		return v.table[id]
	}
	if k, ok := v.find(id); ok {
		return v.diff[k].Entry
	}
	return v.def
}

// Set stores the entry for id.
func (v *Sparse) Set(id int, e hiadsd.Entry) {
	old := v.Get(id)
	if old == e {
		return
	}
	v.count(old, e)
	v.sum += entryHash(id, e) - entryHash(id, old)
	if v.table != nil {
		v.table[id] = e
	} else {
		v.setDiff(id, e)
	}
	v.reshape()
}

// count keeps stored and unknowns right across one change old -> e.
func (v *Sparse) count(old, e hiadsd.Entry) {
	if old == v.def {
		v.stored++
	} else if e == v.def {
		v.stored--
	}
	if old.Status == hiadsd.Unknown {
		v.unknowns--
	}
	if e.Status == hiadsd.Unknown {
		v.unknowns++
	}
}

// setDiff inserts, updates or removes id in the difference list.
func (v *Sparse) setDiff(id int, e hiadsd.Entry) {
	k, ok := v.find(id)
	switch {
	case e == v.def:
		v.diff = slices.Delete(v.diff, k, k+1)
	case ok:
		v.diff[k].Entry = e
	default:
		if v.diff == nil {
			v.diff = v.few[:0]
		}
		v.diff = slices.Insert(v.diff, k, hiadsd.IDEntry{ID: id, Entry: e})
	}
}

// reshape rebases a view that knows every id again on "fault-free, counter 0"
// and picks the table or the list, whichever suits the number of differences.
func (v *Sparse) reshape() {
	if v.unknowns == 0 && v.def.Status == hiadsd.Unknown {
		v.rebase(hiadsd.Entry{Status: hiadsd.FaultFree})
	}
	switch {
	case v.table == nil && v.stored > v.n/8:
		v.toTable()
	case v.table != nil && v.stored <= v.n/16 && v.unknowns == 0:
		v.diff = v.AppendStored(v.few[:0], []hiadsd.Range{{Lo: 0, Hi: v.n}})
		v.table = nil
	}
}

// rebase changes the default entry without changing any id's entry.
func (v *Sparse) rebase(def hiadsd.Entry) {
	if v.table == nil {
		v.toTable()
	}
	v.def, v.stored = def, 0
	for _, e := range v.table {
		if e != def {
			v.stored++
		}
	}
}

// Grow makes the view cover n ids, the new ones Unknown (Node.SetList).
func (v *Sparse) Grow(n int) hiadsd.View {
	if n <= v.n {
		return v
	}
	if v.table == nil {
		v.toTable()
	}
	for id := v.n; id < n; id++ {
		v.table = append(v.table, hiadsd.Entry{})
		v.count(v.def, hiadsd.Entry{})
		v.sum += entryHash(id, hiadsd.Entry{})
	}
	v.n = n
	v.reshape()
	return v
}

// toTable switches from the difference list to a full table.
func (v *Sparse) toTable() {
	table := make([]hiadsd.Entry, v.n)
	for id := range table {
		table[id] = v.Get(id)
	}
	v.table, v.diff = table, nil
}

// EachNotFaultFree calls fn for every id not held fault-free, in id order.
func (v *Sparse) EachNotFaultFree(fn func(id int)) {
	if v.table != nil || v.def.Status != hiadsd.FaultFree {
		for id := 0; id < v.n; id++ {
			if v.Get(id).Status != hiadsd.FaultFree {
				fn(id)
			}
		}
		return
	}
	for _, ie := range v.diff {
		if ie.Entry.Status != hiadsd.FaultFree {
			fn(ie.ID)
		}
	}
}

// AppendStored appends the entries that differ from the default and whose ids
// fall in ranges, in id order within each range, to dst.
func (v *Sparse) AppendStored(dst []hiadsd.IDEntry, ranges []hiadsd.Range) []hiadsd.IDEntry {
	for _, r := range ranges {
		if v.table != nil {
			for id := max(r.Lo, 0); id < min(r.Hi, v.n); id++ {
				if e := v.table[id]; e != v.def {
					dst = append(dst, hiadsd.IDEntry{ID: id, Entry: e})
				}
			}
			continue
		}
		k, _ := v.find(r.Lo)
		for ; k < len(v.diff) && v.diff[k].ID < r.Hi; k++ {
			dst = append(dst, v.diff[k])
		}
	}
	return dst
}

// entryMix is a 64-bit mix (splitmix64's finaliser) of one id's entry.
func entryMix(id int, e hiadsd.Entry) uint64 {
	x := uint64(id)<<35 ^ uint64(e.Status)<<32 ^ uint64(e.Counter)
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// entryHash is id's share of a Sparse view's digest: 0 for a fault-free
// entry at counter 0, so a view of N such entries costs nothing to start.
func entryHash(id int, e hiadsd.Entry) uint64 {
	return entryMix(id, e) - entryMix(id, hiadsd.Entry{Status: hiadsd.FaultFree})
}
