package lab

import (
	"math"

	"github.com/diagagent/diagagent/hiadsd"
)

// Intersections is the layout of ADSD with Intersections (seed 003, section
// 3.1) on N nodes: node 0 is the intersection, and ids 1..N-1 form P rings of
// up to Size consecutive ids, each ring closed through the intersection. P is
// ceil(sqrt(N-1)), the cluster count that minimises p + N/p (section 3.2).
type Intersections struct {
	N, P, Size int
}

// NewIntersections returns the layout for n >= 2 nodes.
func NewIntersections(n int) Intersections {
	members := max(n-1, 1)
	p := int(math.Ceil(math.Sqrt(float64(members))))
	return Intersections{N: n, P: p, Size: (members + p - 1) / p}
}

// ADSDwIBound is the latency bound of ADSD with Intersections: an event walks
// back along its ring to the ring's first member (Size-1 rounds), reaches the
// intersection (1), every ring's last member (1), and walks back along that
// ring (Size-1); one more round covers an event that happens mid-round.
func ADSDwIBound(n int) int {
	return 2*NewIntersections(n).Size + 1
}

// Cluster returns the ring of member id (1..N-1), 0..P-1.
func (g Intersections) Cluster(id int) int { return (id - 1) / g.Size }

// Block returns the member ids of ring c as a Range.
func (g Intersections) Block(c int) hiadsd.Range {
	lo := 1 + c*g.Size
	return hiadsd.Range{Lo: lo, Hi: min(lo+g.Size, g.N)}
}

// Priority returns the order in which nodes take over the intersection: node
// 0, then the last member of every ring (they test the intersection), then the
// members before them, and so on.
func (g Intersections) Priority() []int {
	out := make([]int, 0, g.N)
	out = append(out, 0)
	for depth := 0; depth < g.Size; depth++ {
		for c := 0; c < g.P; c++ {
			b := g.Block(c)
			if id := b.Hi - 1 - depth; id >= b.Lo {
				out = append(out, id)
			}
		}
	}
	return out
}

// adsdwi runs one interval: node 0 serves as the intersection; a member walks
// its ring from its successor until a source answers, and at the ring's
// intersection slot walks PRIORITY, serving as the intersection itself if it
// comes first.
func (r *run) adsdwi() {
	g := NewIntersections(r.b.cfg.N)
	if r.b.id == 0 {
		r.intersect(g, -1)
		return
	}
	all := []hiadsd.Range{{Lo: 0, Hi: g.N}}
	c := g.Cluster(r.b.id)
	b := g.Block(c)
	for k := 1; k <= b.Len(); k++ {
		pos := (r.b.id - b.Lo + 1 + k) % (b.Len() + 1)
		if pos == 0 { // the ring's slot 0: the intersection
			if r.priorityWalk(g, c, all) {
				return
			}
			continue
		}
		if j := b.Lo + pos - 1; r.isSource(j, r.test(j)) && r.fetch(j, all, true) {
			return
		}
	}
}

// priorityWalk tests PRIORITY in order until a source answers (true), or this
// node comes first and serves as the intersection for the other rings (false).
// Tested-only nodes are tested but never serve, so a tested-only node 0 hands
// the intersection to PRIORITY[1] for good.
func (r *run) priorityWalk(g Intersections, own int, all []hiadsd.Range) bool {
	for _, q := range g.Priority() {
		switch {
		case q == r.b.id:
			r.intersect(g, own)
			return false
		case r.tested[q]:
			continue
		}
		if r.isSource(q, r.test(q)) && r.fetch(q, all, true) {
			return true
		}
	}
	return false
}

// intersect serves as the intersection: in every ring but skip it tests the
// members in order until a source answers, and takes that ring's entries only.
func (r *run) intersect(g Intersections, skip int) {
	for c := 0; c < g.P; c++ {
		b := g.Block(c)
		if c == skip || b.Len() == 0 {
			continue
		}
		for j := b.Lo; j < b.Hi; j++ {
			if !r.tested[j] && r.isSource(j, r.test(j)) && r.fetch(j, []hiadsd.Range{b}, true) {
				break
			}
		}
	}
}
