package hiadsd

import (
	"hash/fnv"
	"slices"
	"time"
)

// Causes. A switch that fails, a cut uplink or a tripped circuit takes
// several nodes at once, and each of them is one status change in every
// view: told one by one, an operator gets k notifications for one cause.
// A Grouper takes the changes a node is about to notify and gives back
// causes: the nodes that became faulty or partial within one window are
// one cause, and so are those of that group that come back together.
//
// When a group comes back, the diagnosis says whether it was down or cut
// off. A node cut off from this side is still up and still tested by the
// nodes on its own side: they hold this side faulty while the cut lasts,
// and fault-free again once it heals, each change moving the entry's
// counter. Those entries reach this side with the heal, and move the
// counters of nodes this side held fault-free all along without a change
// of status (Report.Moved). A node that was down made no verdict: it moves
// no counter but its own. So a group comes back as Cut when, since it was
// lost, the entry of some node outside it moved with the status kept
// fault-free.
//
// A window costs a node that fails alone the window's wait. The node that
// will send a loss (its owner) can end the wait early by asking every other
// node once, at once, as soon as the faults start collecting (a sweep):
// the nodes that answer were up after the cause, so they are not part of
// it, and the faults are due as soon as every node that did not answer is
// among them (Swept). A node alone is then told about one round trip after
// it is known, and a switch's nodes as soon as the last of them is known.
// A node that did not answer and is never found faulty (a lost answer)
// leaves the faults to their window.
//
// A Grouper is a plain state machine: the driver gives it the time (any
// monotonic duration: the daemon's time since start, the simulator's
// virtual time) and the changes, and asks for the causes that are due.

// Cause is one notification's worth of changes.
type Cause struct {
	// Back is false for nodes lost together, true for nodes coming back.
	Back bool
	// Group identifies the group: the same for its loss and for its
	// return; 0 for a node that went alone (a single node's change).
	Group uint32
	// Split identifies the partition of the nodes into Nodes and the rest:
	// the same at both sides of a clean cut, so a station that hears both
	// sides can pair their notifications.
	Split uint32
	// Nodes are the nodes the cause changed, with their new entries, by id.
	Nodes []IDEntry
	// Cut, for a group coming back, says that its nodes were up and cut
	// off from this side; Lost is when the group was lost.
	Cut  bool
	Lost time.Duration
}

// IDs returns the ids of the cause's nodes, in the order of Nodes.
func (c Cause) IDs() []int {
	ids := make([]int, len(c.Nodes))
	for k, ie := range c.Nodes {
		ids[k] = ie.ID
	}
	return ids
}

// Single reports whether the cause is one node's change, to be notified
// as such.
func (c Cause) Single() bool { return c.Group == 0 && len(c.Nodes) == 1 }

// Grouper groups changes into causes; the zero value needs Window set.
type Grouper struct {
	// Window is how long after a group's latest change another still
	// joins it, up to spanWindows windows after its first: the nodes of a
	// failed switch are found over more than one interval when their
	// testers were among them (vCube tests a node from its own cluster
	// first, and only learns it must look further as the faults are found).
	Window time.Duration

	lost   *batch                // faults collecting; nil when none
	closed []*batch              // faults whose window closed before Due was asked, oldest first
	back   map[uint32]*batch     // per group, returns collecting
	groups map[int]*group        // per node out, the group it was lost with
	moved  map[int]time.Duration // per node, when its entry last moved while fault-free
}

// spanWindows bounds how long a group collects: spanWindows windows after
// its first change, however it kept growing.
const spanWindows = 4

// batch is changes collecting until their window closes.
type batch struct {
	opened, last time.Duration // its first change, its latest
	nodes        []IDEntry
	// swept is when a sweep reported on the batch (0: none has); silent
	// are the nodes that did not answer it and are not in nodes yet.
	swept  time.Duration
	silent []int
}

// closes returns when a batch is due under window w: at its window; once
// a sweep reported and every node silent in it is in the batch; and, while
// a node the sweep found silent is not, at its span's end. A silent node
// is one the cause may have taken: its testers find it in their own time,
// which a loaded machine stretches past the window, and closing at the
// window then splits one cause into two notifications. A node silent only
// because its answers were lost costs the faults the span, not a split.
func (b *batch) closes(w time.Duration) time.Duration {
	span := b.opened + spanWindows*w
	switch {
	case b.swept == 0:
		return min(b.last+w, span)
	case len(b.silent) > 0:
		return span
	default:
		return min(b.last+w, span, max(b.last, b.swept))
	}
}

// put adds or replaces the entry of ie.ID, at at.
func (b *batch) put(at time.Duration, ie IDEntry) {
	b.last = max(b.last, at)
	b.silent = slices.DeleteFunc(b.silent, func(id int) bool { return id == ie.ID })
	for k := range b.nodes {
		if b.nodes[k].ID == ie.ID {
			b.nodes[k] = ie
			return
		}
	}
	b.nodes = append(b.nodes, ie)
}

// drop removes node id, reporting whether the batch is empty.
func (b *batch) drop(id int) bool {
	b.nodes = slices.DeleteFunc(b.nodes, func(ie IDEntry) bool { return ie.ID == id })
	return len(b.nodes) == 0
}

// group is a group notified lost: its id, when it was lost, its nodes and
// those still out.
type group struct {
	id, split uint32
	at        time.Duration
	all, out  []int
}

// Lost takes node id's change to a fault (faulty or partial) to notify. A
// node whose return was not due yet is taken out of it: it is still out,
// as its last cause said, and neither its return nor this loss is a cause.
func (g *Grouper) Lost(at time.Duration, id int, e Entry) {
	if g.dropBack(id) {
		return
	}
	g.forget(id)
	if g.lost != nil && at >= g.lost.closes(g.Window) {
		g.closed, g.lost = append(g.closed, g.lost), nil
	}
	if g.lost == nil {
		g.lost = &batch{opened: at, last: at}
	}
	g.lost.put(at, IDEntry{ID: id, Entry: e})
}

// Unswept returns, while faults collect and no sweep has reported on
// them, when they started collecting and their nodes: the driver's cue to
// sweep, if it is their owner.
func (g *Grouper) Unswept() (opened time.Duration, nodes []int, ok bool) {
	b := g.lost
	if b == nil || b.swept > 0 {
		return 0, nil, false
	}
	return b.opened, Cause{Nodes: b.nodes}.IDs(), true
}

// Swept reports, at at, a sweep made for the faults that started
// collecting at opened (Unswept): silent are the nodes it asked that did
// not answer fault-free. Those faults are then due as soon as every silent
// node is among them, or spanWindows windows after they opened if some
// never is. A sweep made for faults already due is of no use and is
// dropped.
func (g *Grouper) Swept(opened, at time.Duration, silent []int) {
	b := g.lost
	if b == nil || b.opened != opened || b.swept > 0 {
		return
	}
	b.swept = max(at, 1)
	for _, id := range silent {
		if !slices.ContainsFunc(b.nodes, func(ie IDEntry) bool { return ie.ID == id }) && !slices.Contains(b.silent, id) {
			b.silent = append(b.silent, id)
		}
	}
}

// Back takes node id's return (fault-free) to notify. The return of a node
// lost with others waits for the rest of its group; any other is due at
// once, as itself. A node whose loss was not due yet is taken out of it,
// and neither its loss nor its return is a cause.
func (g *Grouper) Back(at time.Duration, id int, e Entry) {
	if g.dropLost(id) {
		return
	}
	gr := g.groups[id]
	if gr == nil {
		b := g.batchOf(0, at)
		b.put(at, IDEntry{ID: id, Entry: e})
		b.opened, b.last = at-g.Window, at-g.Window // due at once
		return
	}
	g.batchOf(gr.id, at).put(at, IDEntry{ID: id, Entry: e})
}

// batchOf returns the returns collecting for group id, opening them at at.
func (g *Grouper) batchOf(id uint32, at time.Duration) *batch {
	if g.back == nil {
		g.back = map[uint32]*batch{}
	}
	b := g.back[id]
	if b == nil {
		b = &batch{opened: at, last: at}
		g.back[id] = b
	}
	return b
}

// Moved notes that node id's entry took a newer counter with the status
// fault-free both before and after (Report.Moved): a tester elsewhere saw
// it fail and come back.
func (g *Grouper) Moved(at time.Duration, id int) {
	if g.moved == nil {
		g.moved = map[int]time.Duration{}
	}
	g.moved[id] = at
}

// Forget drops node id from every batch and group: it is removed, in a
// maintenance window, or its id now means another node. The faults
// collecting no longer wait for it.
func (g *Grouper) Forget(id int) {
	g.dropLost(id)
	if g.lost != nil {
		g.lost.silent = slices.DeleteFunc(g.lost.silent, func(k int) bool { return k == id })
	}
	g.dropBack(id)
	g.forget(id)
	delete(g.moved, id)
}

// dropLost takes node id out of the faults not due yet, reporting whether
// it was there.
func (g *Grouper) dropLost(id int) bool {
	in := func(b *batch) bool {
		return b != nil && slices.ContainsFunc(b.nodes, func(ie IDEntry) bool { return ie.ID == id })
	}
	if in(g.lost) {
		if g.lost.drop(id) {
			g.lost = nil
		}
		return true
	}
	for k, b := range g.closed {
		if in(b) {
			if b.drop(id) {
				g.closed = slices.Delete(g.closed, k, k+1)
			}
			return true
		}
	}
	return false
}

// dropBack takes node id out of the returns not due yet, reporting
// whether it was there.
func (g *Grouper) dropBack(id int) bool {
	for k, b := range g.back {
		if slices.ContainsFunc(b.nodes, func(ie IDEntry) bool { return ie.ID == id }) {
			if b.drop(id) {
				delete(g.back, k)
			}
			return true
		}
	}
	return false
}

// forget takes node id out of the group it was lost with.
func (g *Grouper) forget(id int) {
	gr := g.groups[id]
	if gr == nil {
		return
	}
	delete(g.groups, id)
	gr.out = slices.DeleteFunc(gr.out, func(k int) bool { return k == id })
}

// Out returns, per node still out of a group notified lost, the group's
// id; nil when no group is out.
func (g *Grouper) Out() map[int]uint32 {
	var out map[int]uint32
	for id, gr := range g.groups {
		if out == nil {
			out = make(map[int]uint32, len(g.groups))
		}
		out[id] = gr.id
	}
	return out
}

// Next returns when the next cause is due, false when none waits.
func (g *Grouper) Next() (time.Duration, bool) {
	var next time.Duration
	ok := false
	add := func(b *batch) {
		if t := b.closes(g.Window); !ok || t < next {
			next, ok = t, true
		}
	}
	if g.lost != nil {
		add(g.lost)
	}
	for _, b := range g.closed {
		add(b)
	}
	for _, b := range g.back {
		add(b)
	}
	return next, ok
}

// Due returns the causes whose window has closed at at, losses first, then
// returns by group. n is the number of ids and skip reports the ids that
// count in no partition (removed from the list); both give Split.
func (g *Grouper) Due(at time.Duration, n int, skip func(int) bool) []Cause {
	var out []Cause
	for _, b := range g.closed {
		out = append(out, g.lose(b, n, skip))
	}
	g.closed = nil
	if b := g.lost; b != nil && at >= b.closes(g.Window) {
		g.lost = nil
		out = append(out, g.lose(b, n, skip))
	}
	ids := make([]uint32, 0, len(g.back))
	for id, b := range g.back {
		if at >= b.closes(g.Window) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		b := g.back[id]
		delete(g.back, id)
		slices.SortFunc(b.nodes, byID)
		if id == 0 {
			for _, ie := range b.nodes {
				out = append(out, Cause{Back: true, Nodes: []IDEntry{ie}, Split: split([]int{ie.ID}, n, skip)})
			}
			continue
		}
		out = append(out, g.comeBack(id, b))
	}
	return out
}

// lose makes the cause of the faults of b and, for more than one node,
// the group their returns will join.
func (g *Grouper) lose(b *batch, n int, skip func(int) bool) Cause {
	slices.SortFunc(b.nodes, byID)
	c := Cause{Nodes: b.nodes}
	ids := c.IDs()
	c.Split = split(ids, n, skip)
	if len(ids) == 1 {
		return c
	}
	h := fnv.New32a()
	for _, ie := range b.nodes {
		h.Write([]byte{byte(ie.ID >> 24), byte(ie.ID >> 16), byte(ie.ID >> 8), byte(ie.ID),
			byte(ie.Entry.Counter >> 24), byte(ie.Entry.Counter >> 16), byte(ie.Entry.Counter >> 8), byte(ie.Entry.Counter)})
	}
	c.Group = max(h.Sum32(), 1)
	gr := &group{id: c.Group, split: c.Split, at: b.opened, all: ids, out: slices.Clone(ids)}
	if g.groups == nil {
		g.groups = map[int]*group{}
	}
	for _, id := range ids {
		g.groups[id] = gr
	}
	return c
}

// comeBack makes the cause of the returns b of group id, and ends the
// group once none of its nodes is out.
func (g *Grouper) comeBack(id uint32, b *batch) Cause {
	var gr *group
	for _, ie := range b.nodes {
		if x := g.groups[ie.ID]; x != nil && x.id == id {
			gr = x
			break
		}
	}
	c := Cause{Back: true, Group: id, Nodes: b.nodes}
	if gr == nil {
		return c
	}
	c.Split, c.Lost = gr.split, gr.at
	for k, t := range g.moved {
		if t >= gr.at && !slices.Contains(gr.all, k) {
			c.Cut = true
			break
		}
	}
	for _, ie := range b.nodes {
		g.forget(ie.ID)
	}
	return c
}

// byID orders entries by node id.
func byID(a, b IDEntry) int { return a.ID - b.ID }

// split returns the id of the partition of the ids below n that skip
// keeps into side and the rest: a hash of the part that holds the lowest
// id, the same whichever part side is.
func split(side []int, n int, skip func(int) bool) uint32 {
	in := make([]bool, n)
	for _, id := range side {
		if id < n {
			in[id] = true
		}
	}
	first := -1
	for id := range n {
		if skip == nil || !skip(id) {
			first = id
			break
		}
	}
	if first < 0 {
		return 0
	}
	h := fnv.New32a()
	for id := range n {
		if (skip == nil || !skip(id)) && in[id] == in[first] {
			h.Write([]byte{byte(id >> 24), byte(id >> 16), byte(id >> 8), byte(id)})
		}
	}
	return max(h.Sum32(), 1)
}
