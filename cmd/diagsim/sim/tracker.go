package sim

import "github.com/diagagent/diagagent/hiadsd"

// tracker follows one event until every fault-free node holds its status,
// or, for a station change, the new station.
type tracker struct {
	ev       Event
	subject  int                // the node the event is about: a joiner's new id, else ev.Node
	station  hiadsd.Station     // a station event's station
	list     hiadsd.ListVersion // a join's or leave's list
	start    []int32            // each node's interval count when the event happened
	k        []int32            // intervals node needed since the event; 0 = not yet
	hist     map[int]int
	rounds   *rounds
	left     int // testing nodes still without the new status
	latency  int
	open     bool
	complete bool
}

// newTracker starts following ev with counts the nodes' intervals so far.
func newTracker(ev Event, subject int, station hiadsd.Station, counts []int32, nw *hiadsd.Network) *tracker {
	t := &tracker{ev: ev, subject: subject, station: station, list: nw.Version(), start: append([]int32(nil), counts...), k: make([]int32, len(counts)), hist: map[int]int{}, open: true}
	t.rounds = newRounds(len(counts), nw.Testing)
	t.recount(nw)
	return t
}

// owes reports whether node id must still diagnose the event.
func (t *tracker) owes(id int, nw *hiadsd.Network) bool {
	return id != t.subject && nw.Testing(id) && t.k[id] == 0
}

// recount refreshes who still owes the event after the truth changed.
func (t *tracker) recount(nw *hiadsd.Network) {
	t.left = 0
	for id := range t.k {
		if t.owes(id, nw) {
			t.left++
		}
	}
	t.rounds.recount(nw.Testing)
	t.closeIfDone()
}

// stepped is called after node id finished an interval.
func (t *tracker) stepped(id int, counts []int32, nw *hiadsd.Network) {
	if !t.open {
		return
	}
	if t.owes(id, nw) && t.knows(id, nw) {
		k := int(counts[id] - t.start[id])
		t.k[id] = int32(k)
		t.hist[k]++
		t.left--
		t.latency = t.rounds.index
	}
	t.rounds.finished(id, nw.Testing)
	t.closeIfDone()
}

// knows reports whether node id holds what the event changed.
func (t *tracker) knows(id int, nw *hiadsd.Network) bool {
	switch t.ev.Kind {
	case StationSet:
		return nw.Node(id).Station == t.station
	case Join: // runs the list, and holds the new node up
		n := nw.Node(id)
		return n.List.Counter >= t.list.Counter && n.View.Get(t.subject).Status == hiadsd.FaultFree
	case Leave:
		return nw.Node(id).List.Counter >= t.list.Counter
	}
	return nw.View(id).Get(t.ev.Node).Status == nw.Config().Algorithm.Sees(t.ev.Kind.Status())
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
		r.LatencyRounds = t.latency
	}
	for k := range t.hist {
		r.MaxTests = max(r.MaxTests, k)
	}
	total := 0
	for k := 1; k <= r.MaxTests; k++ {
		total += t.hist[k]
		r.DiagnosedAfter = append(r.DiagnosedAfter, [2]int{k, total})
	}
	return r
}
