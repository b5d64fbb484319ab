package sim

// item is one scheduled happening: the end of a node's interval, a push
// arriving, or an event. It is small (32 bytes), since the agenda holds one
// for every node and sifts them on every interval.
type item struct {
	at     float64
	seq    uint64 // ties at equal times keep scheduling order
	node   int32
	gen    uint32 // the node incarnation the interval belongs to
	event  int32  // index into the schedule, or -1 for an interval or a push
	flight int32  // a push's index in engine.flights plus one; 0 for anything else
}

// before orders items by (at, seq), a total order.
func (it *item) before(o *item) bool {
	if it.at != o.at {
		return it.at < o.at
	}
	return it.seq < o.seq
}

// agenda is a binary min-heap of items by (at, seq), with the sequence
// counter that breaks ties; typed, so a push or pop boxes nothing.
type agenda struct {
	q   []item
	seq uint64
}

func (a *agenda) push(it item) {
	it.seq = a.seq
	a.seq++
	a.q = append(a.q, it)
	q := a.q
	for k := len(q) - 1; k > 0; {
		p := (k - 1) / 2
		if !q[k].before(&q[p]) {
			break
		}
		q[k], q[p] = q[p], q[k]
		k = p
	}
}

func (a *agenda) pop() (item, bool) {
	n := len(a.q)
	if n == 0 {
		return item{}, false
	}
	top := a.q[0]
	a.q[0] = a.q[n-1]
	a.q = a.q[:n-1]
	q := a.q
	for k := 0; ; {
		c := 2*k + 1
		if c >= len(q) {
			break
		}
		if c+1 < len(q) && q[c+1].before(&q[c]) {
			c++
		}
		if !q[c].before(&q[k]) {
			break
		}
		q[k], q[c] = q[c], q[k]
		k = c
	}
	return top, true
}
