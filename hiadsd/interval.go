package hiadsd

import "slices"

// interval is the scratch state of one pass of an Interval's algorithm.
type interval struct {
	node     *Node
	m        *Interval        // the answers known, and the batch of ops that lack one
	index    map[int]struct{} // ids in report.Tests, built once there are many
	passed   []Range          // clusters tested through without a source; every fetch asks for them too
	dispute  []int            // ids a source held at another status with no newer counter (see Config.Recheck)
	doubted  []int            // ids tested now whose failure no other vantage point bore out (vantage.go)
	overrode []int            // ids tested now whose direct verdict overrode a newer one heard (catchUp): pushed as events
	changes  []IDEntry        // the entries this pass replaced, oldest first, so undo can restore them
	merges   []mergedFetch    // the fetches this pass merged at a digest, remembered if the pass is the interval
	used     int              // answers this pass took
	health   evidence         // what this pass's tests say of the node's own link (vantage.go)
	// expecting is set once a test of this pass has no real answer:
	// what follows rests on expected verdicts, so no fetch is asked for.
	expecting bool
	report    Report
}

// mergedFetch is one fetch merged whole at a digest (Node.remember).
type mergedFetch struct {
	from   int
	digest uint64
	ranges []Range
}

// manyTests is the number of tests past which membership uses a map.
const manyTests = 32

// wasTested reports whether id was tested in this interval.
func (iv *interval) wasTested(id int) bool {
	if iv.index != nil {
		_, ok := iv.index[id]
		return ok
	}
	for _, t := range iv.report.Tests {
		if t.Target == id {
			return true
		}
	}
	return false
}

// test tests j, records the result and applies it to the view. A removed
// id is not tested: it answers as a faulty node would, so every algorithm
// passes over it, and nothing is recorded.
func (iv *interval) test(j int) Status {
	if iv.node.Config.IsRemoved(j) {
		return Faulty
	}
	a, real := iv.probe(j)
	got, second := a.status, SecondNone
	if real {
		got = iv.measured(j, a)
		second = iv.second(j, a)
		iv.evidence(j, a, got, second)
	}
	if iv.testedBefore(j) {
		got, second = iv.node.View.Get(j).Status, SecondNone
	}
	iv.record(j, got, second)
	return got
}

// testedBefore reports whether news about j was taken while this
// interval was testing it (Interval.Take, newsFirst): the test began
// before the news, and its verdict does not override it.
func (iv *interval) testedBefore(j int) bool { return iv.m != nil && slices.Contains(iv.m.early, j) }

// record stores a direct verdict on j: in the report, and in the view
// unless no second vantage point bears it out (Second.Believed).
func (iv *interval) record(j int, got Status, second Second) {
	iv.report.Tests = append(iv.report.Tests, TestResult{Target: j, Status: got, Second: second})
	switch {
	case iv.index != nil:
		iv.index[j] = struct{}{}
	case len(iv.report.Tests) > manyTests:
		iv.index = make(map[int]struct{}, 2*len(iv.report.Tests))
		for _, t := range iv.report.Tests {
			iv.index[t.Target] = struct{}{}
		}
	}
	if !second.Believed() {
		iv.doubted = append(iv.doubted, j)
		return
	}
	iv.set(j, observe(iv.node.View.Get(j), got), Direct)
}

// set stores e for id and reports a status change.
func (iv *interval) set(id int, e Entry, from int) {
	old := iv.node.View.Get(id)
	if old == e {
		return
	}
	iv.changes = append(iv.changes, IDEntry{ID: id, Entry: old})
	iv.node.View.Set(id, e)
	iv.node.noteReturn(id, old, e)
	if old.Status != e.Status {
		iv.report.Updates = append(iv.report.Updates, Update{ID: id, Old: old, New: e, From: from})
	} else if e.Status == FaultFree {
		iv.report.Moved = append(iv.report.Moved, id)
	}
}

// takeOwnCounter takes, from source j's entry e about this node, the counter
// its testers gave it, when e holds it up (fault-free, or degraded as it
// said it was) and is newer. Without it a node that some
// tester first saw down (a late start, a restart) would keep a counter about
// itself older than everyone's, so its digest would never equal a peer's
// and every test between it and a peer would read a view for good. A newer
// entry holding it faulty is not taken; its testers will say otherwise.
func (iv *interval) takeOwnCounter(e Entry, j int) {
	if !e.Status.Up() {
		return
	}
	iv.learn(iv.node.ID, iv.node.View.Get(iv.node.ID), e, j)
}

// learn sets e, learned from source j, for id if it takes mine, the entry
// held (Entry.takes), and lists it in Report.Refused if it refuses it. A
// fetch while the entry held is Unknown takes any newer counter: a node
// that starts with no state catches up from its sources, however far the
// system's counters went.
func (iv *interval) learn(id int, mine, e Entry, j int) (took bool) {
	take, refuse := e.takes(mine)
	if refuse && mine.Status == Unknown {
		take, refuse = true, false
	}
	if take {
		iv.set(id, e, j)
	}
	if refuse {
		iv.report.Refused = append(iv.report.Refused, Update{ID: id, Old: mine, New: e, From: j})
	}
	return take
}

// isSource reports whether a node tested with status st may supply information.
func (iv *interval) isSource(j int, st Status) bool {
	return st == FaultFree && !iv.node.Config.IsTestedOnly(j)
}

// fetch takes j's entries for ranges and merges the newer ones (about this
// node, only its counter: takeOwnCounter); for ids tested in this interval
// the direct verdict stands and only its counter catches up. copyAll selects
// the unit count of copying algorithms. It reports whether j answered. While
// the node catches up it asks for every id; past clusters tested through
// without a source, it asks for them too.
func (iv *interval) fetch(j int, ranges []Range, copyAll bool) bool {
	units := ranges // the extra ids asked for are not counted (Report.Units)
	switch {
	case iv.node.CatchUp > 0:
		ranges = []Range{{Lo: 0, Hi: iv.node.Config.N}}
	case len(iv.passed) > 0:
		// Every id there was tested now, so only counters can catch up: a
		// node that saw a faulty node itself would otherwise keep a lagging
		// counter that loses every tie (see catchUp).
		ranges = append(ranges[:len(ranges):len(ranges)], iv.passed...)
	}
	d, withheld := iv.digestOf(j)
	if iv.node.skippable(j, d, ranges) || withheld {
		iv.report.Fetches = append(iv.report.Fetches, FetchResult{From: j, Ranges: ranges, Skipped: true})
		return true
	}
	res := iv.read(j, ranges)
	if res == nil {
		return true // not answered yet: this pass will be undone, as if j sent nothing new
	}
	iv.report.Fetches = append(iv.report.Fetches, FetchResult{From: j, Ranges: ranges, Received: len(res.Entries), Err: res.Err})
	if res.Err != nil {
		return false
	}
	iv.learnStation(res.Station, j)
	if iv.otherList(j, res.List) {
		iv.report.Fetches[len(iv.report.Fetches)-1].Err = ErrOtherList
		return false
	}
	if d != 0 {
		iv.merges = append(iv.merges, mergedFetch{from: j, digest: d, ranges: ranges})
	}
	adopted := 0
	for _, ie := range res.Entries {
		id := ie.ID
		if id == j || id < 0 || id >= iv.node.Config.N || !InRanges(id, ranges) || iv.node.Config.IsRemoved(id) {
			continue
		}
		if id == iv.node.ID {
			iv.takeOwnCounter(ie.Entry, j)
			continue
		}
		mine := iv.node.View.Get(id)
		if iv.wasTested(id) && !iv.isDoubted(id) {
			e, refused := catchUp(mine, ie.Entry)
			iv.set(id, e, Direct)
			if refused {
				iv.report.Refused = append(iv.report.Refused, Update{ID: id, Old: mine, New: ie.Entry, From: j})
			}
			if e != mine && e.Status != ie.Entry.Status {
				iv.overrode = append(iv.overrode, id)
			}
			continue
		}
		if iv.node.stale(j, mine, ie.Entry) {
			continue
		}
		if iv.learn(id, mine, ie.Entry, j) {
			adopted++
		} else if ie.Entry.Status != mine.Status && ie.Entry.Status != Unknown && mine.Status != Unknown && !slices.Contains(iv.m.taken, id) {
			iv.dispute = append(iv.dispute, id) // an older or refused verdict that disagrees, not with news taken midway
		}
	}
	if copyAll {
		iv.report.Units += iv.copied(units)
	} else {
		iv.report.Units += adopted
	}
	return true
}

// copied counts the ids in ranges other than this node and those tested.
func (iv *interval) copied(ranges []Range) int { return Copied(ranges, iv.node.ID, iv.report.Tests) }

// searchList tests list in order until a source answers a fetch of ranges.
func (iv *interval) searchList(list []int, ranges []Range) bool {
	for _, j := range list {
		if iv.isSource(j, iv.test(j)) && iv.fetch(j, ranges, true) {
			return true
		}
	}
	return false
}
