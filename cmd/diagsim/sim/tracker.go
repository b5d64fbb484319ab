package sim

import (
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/hiadsd/lab"
)

// tracker follows one event until every fault-free node holds its status,
// or, for a station change, the new station.
type tracker struct {
	ev       Event
	subject  int                // the node the event is about: a joiner's new id, else ev.Node
	station  hiadsd.Station     // a station event's station
	list     hiadsd.ListVersion // a join's or leave's list
	start    []int32            // each node's interval count when the event happened
	k        []int32            // intervals node needed since the event
	got      []bool             // node holds the event
	hist     map[int]int
	rounds   *rounds
	left     int // testing nodes still without the new status
	latency  int
	took     float64 // time from the event to the last node that learned it
	hops     int     // the most push hops by which a node learned it
	byPush   int     // nodes that learned it from a push
	open     bool
	complete bool
}

// newTracker starts following ev with counts the nodes' intervals so far.
func newTracker(ev Event, subject int, station hiadsd.Station, counts []int32, nw *lab.Network) *tracker {
	t := &tracker{ev: ev, subject: subject, station: station, list: nw.Version(), start: append([]int32(nil), counts...), k: make([]int32, len(counts)), got: make([]bool, len(counts)), hist: map[int]int{}, open: true}
	t.rounds = newRounds(len(counts), nw.Testing)
	t.recount(nw)
	return t
}

// owes reports whether node id must still diagnose the event.
func (t *tracker) owes(id int, nw *lab.Network) bool {
	return id != t.subject && nw.Testing(id) && !t.got[id]
}

// recount refreshes who still owes the event after the truth changed.
func (t *tracker) recount(nw *lab.Network) {
	t.left = 0
	for id := range t.k {
		if t.owes(id, nw) {
			t.left++
		}
	}
	t.rounds.recount(nw.Testing)
	t.closeIfDone()
}

// stepped is called after node id finished an interval at time now.
func (t *tracker) stepped(id int, counts []int32, nw *lab.Network, now float64) {
	if !t.open {
		return
	}
	t.learn(id, counts, nw, now)
	t.rounds.finished(id, nw.Testing)
	t.closeIfDone()
}

// pushed is called after node id merged a push hops hops from its root.
func (t *tracker) pushed(id, hops int, counts []int32, nw *lab.Network, now float64) {
	if t.open && t.learn(id, counts, nw, now) {
		t.byPush++
		t.hops = max(t.hops, hops)
		t.closeIfDone()
	}
}

// learn books node id if it holds the event now for the first time.
func (t *tracker) learn(id int, counts []int32, nw *lab.Network, now float64) bool {
	if !t.owes(id, nw) || !t.knows(id, nw) {
		return false
	}
	k := int(counts[id] - t.start[id])
	t.k[id], t.got[id] = int32(k), true
	t.hist[k]++
	t.left--
	t.latency, t.took = t.rounds.index, now-t.ev.Time
	return true
}

// knows reports whether node id holds what the event changed.
func (t *tracker) knows(id int, nw *lab.Network) bool {
	switch t.ev.Kind {
	case StationSet:
		return nw.Node(id).Station == t.station
	case Join: // runs the list, and holds the new node up
		n := nw.Node(id)
		return n.List.Counter >= t.list.Counter && n.View.Get(t.subject).Status == hiadsd.FaultFree
	case Leave:
		return nw.Node(id).List.Counter >= t.list.Counter
	}
	return nw.View(id).Get(t.ev.Node).Status == nw.Algorithm().Sees(t.ev.Kind.Status())
}

func (t *tracker) closeIfDone() {
	if t.open && t.left == 0 {
		t.open, t.complete = false, true
	}
}

// result summarises the tracker.
func (t *tracker) result() EventResult {
	r := EventResult{Kind: t.ev.Kind.String(), Node: t.ev.Node, Time: t.ev.Time, Complete: t.complete, DiagnosedAfter: [][2]int{}}
	if t.ev.Kind == Join || t.ev.Kind == Leave {
		r.Subject = &t.subject
	}
	if t.complete {
		r.LatencyRounds, r.LatencyTime, r.Hops, r.ByPush = t.latency, t.took, t.hops, t.byPush
	}
	for k := range t.hist {
		r.MaxTests = max(r.MaxTests, k)
	}
	total, first := 0, 1
	if t.hist[0] > 0 { // learned by push before an interval of its own
		first = 0
	}
	for k := first; k <= r.MaxTests; k++ {
		total += t.hist[k]
		r.DiagnosedAfter = append(r.DiagnosedAfter, [2]int{k, total})
	}
	return r
}
