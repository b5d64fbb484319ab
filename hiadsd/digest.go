package hiadsd

import "slices"

// A test of a fault-free node may bring back a digest of what a fetch of
// that node would read now: its entries, its station and its node list
// (Result.Digest). The node remembers, for the last few sources it merged,
// the digest it merged them at and the ids that fetch covered; a later fetch
// from a source whose digest has not changed since, for ids inside those,
// would bring nothing the node does not hold already (what it merged then,
// it still holds or has newer), so the interval skips it
// (FetchResult.Skipped). In a system where nothing changes a test is then
// the only traffic: one GET instead of a GET and a walk of N rows.
//
// A source whose digest is the node's own (Node.Digest) holds nothing the
// node lacks either, wherever the node last read it: once an event has
// reached every node (a push does it in the interval that found it), the
// views are equal again and no test reads a view.
//
// A digest of 0 means the source told none, and the fetch is made. A node
// that catches up (Node.CatchUp) fetches everything whatever the source's
// remembered digest says, unless the source's digest is its own (a catch-up
// read of an equal view brings nothing), and one that changes its node list
// (SetList) forgets every digest.

// merged is what a node merged from one source: at which digest, and the
// ids the fetches made at that digest covered.
type merged struct {
	from   int
	digest uint64
	cover  Range
}

// maxMerged bounds the sources a node remembers; the oldest is forgotten
// first. vCube fetches from at most Levels(N) sources an interval.
func maxMerged(n int) int { return 2*Levels(n) + 2 }

// skippable reports whether a fetch of ranges from j, tested now with
// digest d, would bring nothing new.
func (n *Node) skippable(j int, d uint64, ranges []Range) bool {
	if d == 0 {
		return false
	}
	if d == n.Digest {
		// The source serves what this node served at the interval's start:
		// the same entry for every id, so even a catch-up read brings nothing.
		return true
	}
	if n.CatchUp > 0 {
		return false
	}
	for _, m := range n.merged {
		if m.from != j {
			continue
		}
		if m.digest != d {
			return false
		}
		for _, r := range ranges {
			if r.Len() > 0 && (r.Lo < m.cover.Lo || r.Hi > m.cover.Hi) {
				return false
			}
		}
		return true
	}
	return false
}

// remember records that j was merged at digest d for ranges: the cover
// grows while the digest stays and the ranges touch it, and starts anew
// otherwise.
func (n *Node) remember(j int, d uint64, ranges []Range) {
	if d == 0 {
		return
	}
	cover := Range{Lo: -1}
	for _, r := range ranges {
		switch {
		case r.Len() == 0:
		case cover.Lo < 0:
			cover = r
		case r.Lo <= cover.Hi && r.Hi >= cover.Lo:
			cover = Range{Lo: min(cover.Lo, r.Lo), Hi: max(cover.Hi, r.Hi)}
		}
	}
	if cover.Lo < 0 {
		return
	}
	for k := range n.merged {
		m := &n.merged[k]
		if m.from != j {
			continue
		}
		if m.digest == d && cover.Lo <= m.cover.Hi && cover.Hi >= m.cover.Lo {
			cover = Range{Lo: min(cover.Lo, m.cover.Lo), Hi: max(cover.Hi, m.cover.Hi)}
		}
		n.merged = append(n.merged[:k], n.merged[k+1:]...)
		break
	}
	if len(n.merged) >= maxMerged(n.Config.N) {
		n.merged = append(n.merged[:0], n.merged[1:]...)
	}
	n.merged = append(n.merged, merged{from: j, digest: d, cover: cover})
}

// forget drops what the node remembers of the sources it merged id from: an
// entry taken from a push did not come from them, so the next fetch of id
// reads the source again, and a source that holds it otherwise shows the
// disagreement (settle) instead of being skipped as having nothing new.
func (n *Node) forget(id int) {
	n.merged = slices.DeleteFunc(n.merged, func(m merged) bool { return id >= m.cover.Lo && id < m.cover.Hi })
}

// digestOf returns the digest the test of j in this interval brought (0 if
// j was not tested fault-free or told none) and whether it found j
// withholding its view (Result.Withheld).
func (iv *interval) digestOf(j int) (digest uint64, withheld bool) {
	a, ok := iv.m.tests.get(j)
	if !ok || a.status != FaultFree {
		return 0, false
	}
	return a.digest, a.withheld
}
