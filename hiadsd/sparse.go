package hiadsd

// Sparse is a View that stores one default entry plus the entries that differ
// from it, so its memory follows what the node has learned rather than N. The
// simulator gives every node one, which is what lets 65,536 nodes fit.
type Sparse struct {
	n        int
	def      Entry
	diff     map[int32]Entry
	unknowns int // ids whose status is Unknown
}

// NewSparse returns a view of n ids that all hold def.
func NewSparse(n int, def Entry) *Sparse {
	v := &Sparse{n: n, def: def}
	if def.Status == Unknown {
		v.unknowns = n
	}
	return v
}

// Len returns the number of ids covered.
func (v *Sparse) Len() int { return v.n }

// Default returns the entry of every id not stored explicitly.
func (v *Sparse) Default() Entry { return v.def }

// Unknowns returns how many ids the view still holds Unknown.
func (v *Sparse) Unknowns() int { return v.unknowns }

// Stored returns how many entries differ from the default (the memory in use).
func (v *Sparse) Stored() int { return len(v.diff) }

// Get returns the entry for id.
func (v *Sparse) Get(id int) Entry {
	if e, ok := v.diff[int32(id)]; ok {
		return e
	}
	return v.def
}

// Set stores the entry for id. When the last Unknown goes, the view rebases
// on "fault-free, counter 0" so a restarted node sheds the entries it relearned.
func (v *Sparse) Set(id int, e Entry) {
	old := v.Get(id)
	if old.Status == Unknown && e.Status != Unknown {
		v.unknowns--
	} else if old.Status != Unknown && e.Status == Unknown {
		v.unknowns++
	}
	if e == v.def {
		delete(v.diff, int32(id))
	} else {
		if v.diff == nil {
			v.diff = make(map[int32]Entry)
		}
		v.diff[int32(id)] = e
	}
	if v.unknowns == 0 && v.def.Status == Unknown {
		v.rebase(Entry{Status: FaultFree})
	}
}

// rebase changes the default entry without changing any id's entry.
func (v *Sparse) rebase(def Entry) {
	next := make(map[int32]Entry)
	for id := 0; id < v.n; id++ {
		if e := v.Get(id); e != def {
			next[int32(id)] = e
		}
	}
	v.def, v.diff = def, next
}

// EachNotFaultFree calls fn for every id not held fault-free, in no fixed order.
func (v *Sparse) EachNotFaultFree(fn func(id int)) {
	if v.def.Status != FaultFree {
		for id := 0; id < v.n; id++ {
			if v.Get(id).Status != FaultFree {
				fn(id)
			}
		}
		return
	}
	for id, e := range v.diff {
		if e.Status != FaultFree {
			fn(int(id))
		}
	}
}

// AppendStored appends the explicitly stored entries whose ids fall in one of
// ranges, in id order, to dst.
func (v *Sparse) AppendStored(dst []IDEntry, ranges []Range) []IDEntry {
	start := len(dst)
	for id, e := range v.diff {
		if inRanges(int(id), ranges) {
			dst = append(dst, IDEntry{ID: int(id), Entry: e})
		}
	}
	sortIDEntries(dst[start:])
	return dst
}
