package hiadsd

// View is one node's knowledge of every node id 0..Len()-1.
type View interface {
	// Len returns N, the number of node ids the view covers.
	Len() int
	// Get returns the entry for id.
	Get(id int) Entry
	// Set stores the entry for id.
	Set(id int, e Entry)
	// EachNotFaultFree calls fn, in any order, for every id whose status is not FaultFree.
	EachNotFaultFree(fn func(id int))
	// Unknowns returns how many ids the view holds Unknown.
	Unknowns() int
	// Grow returns the view covering n ids, n >= Len(): its own entries,
	// then Unknown ones (Node.SetList, when the node list grows).
	Grow(n int) View
}

// Dense is a View stored as a plain table of N entries; the daemon uses it.
type Dense []Entry

// NewDense returns a Dense view of n entries, all unknown with counter 0.
func NewDense(n int) Dense { return make(Dense, n) }

// Len returns the number of entries.
func (d Dense) Len() int { return len(d) }

// Get returns the entry for id.
func (d Dense) Get(id int) Entry { return d[id] }

// Set stores the entry for id.
func (d Dense) Set(id int, e Entry) { d[id] = e }

// EachNotFaultFree calls fn for every id not held fault-free, in id order.
func (d Dense) EachNotFaultFree(fn func(id int)) {
	for id, e := range d {
		if e.Status != FaultFree {
			fn(id)
		}
	}
}

// Unknowns returns how many ids are held Unknown.
func (d Dense) Unknowns() int {
	c := 0
	for _, e := range d {
		if e.Status == Unknown {
			c++
		}
	}
	return c
}

// Grow returns d covering n ids, the new ones Unknown.
func (d Dense) Grow(n int) View {
	if n <= len(d) {
		return d
	}
	return append(d, make(Dense, n-len(d))...)
}
