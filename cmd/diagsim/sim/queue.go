package sim

import "container/heap"

// item is one scheduled happening: the end of a node's interval, or an event.
type item struct {
	at     float64
	seq    uint64 // ties at equal times keep scheduling order
	node   int
	gen    uint32 // the node incarnation the interval belongs to
	event  int    // index into the schedule, or -1 for an interval or a push
	flight int    // a push's index in engine.flights plus one; 0 for anything else
}

// queue is a min-heap of items by (at, seq).
type queue []item

func (q queue) Len() int { return len(q) }
func (q queue) Less(a, b int) bool {
	if q[a].at != q[b].at {
		return q[a].at < q[b].at
	}
	return q[a].seq < q[b].seq
}
func (q queue) Swap(a, b int) { q[a], q[b] = q[b], q[a] }
func (q *queue) Push(x any)   { *q = append(*q, x.(item)) }
func (q *queue) Pop() any {
	old := *q
	it := old[len(old)-1]
	*q = old[:len(old)-1]
	return it
}

// agenda wraps the heap with a sequence counter.
type agenda struct {
	q   queue
	seq uint64
}

func (a *agenda) push(it item) {
	it.seq = a.seq
	a.seq++
	heap.Push(&a.q, it)
}

func (a *agenda) pop() (item, bool) {
	if len(a.q) == 0 {
		return item{}, false
	}
	return heap.Pop(&a.q).(item), true
}
