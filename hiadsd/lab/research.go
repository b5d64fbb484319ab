package lab

import "github.com/diagagent/diagagent/hiadsd"

// The research algorithms run here, on benches, as the papers describe
// them: a node's interval tests and reads one answer at a time from the
// network, with the core's merge rule (hiadsd.Entry.Newer) and none of the
// daemon's additions (pushes, digests, rechecks, self-suspicion, node lists,
// the station). A repaired node catches up as the core's does: its first
// log2 N intervals read every entry.

// Report is what one testing interval of one node did.
type Report struct {
	hiadsd.Report
	// Tasks counts the comparison tasks Hi-Comp sent, each given to two nodes;
	// its Tests list one verdict per node judged. Zero for the other algorithms.
	Tasks int
}

// TestCount returns the tests the interval made: Hi-Comp's comparison tasks,
// or one per tested node for every other algorithm.
func (r *Report) TestCount() int {
	if r.Tasks > 0 {
		return r.Tasks
	}
	return len(r.Tests)
}

// bench is a node of a research network: what it carries from one interval
// to the next.
type bench struct {
	id      int
	cfg     *hiadsd.Config
	view    *Sparse
	next    int // the Hi-ADSD cluster level the next interval starts with
	catchUp int // intervals left that read every entry (hiadsd.Node.CatchUp)
}

// newBench returns node id on view, holding itself fault-free; a view that
// holds some id Unknown (a repair) catches up.
func newBench(cfg *hiadsd.Config, id int, view *Sparse) bench {
	self := view.Get(id)
	self.Status = hiadsd.FaultFree
	view.Set(id, self)
	b := bench{id: id, cfg: cfg, view: view, next: 1}
	if view.Unknowns() > 0 {
		b.catchUp = max(hiadsd.Levels(cfg.N), 1)
	}
	return b
}

// isTester reports whether b counts id as a fault-free testing node.
func (b *bench) isTester(id int) bool {
	return id == b.id || !b.cfg.IsTestedOnly(id) && b.view.Get(id).Status == hiadsd.FaultFree
}

// level returns the Hi-ADSD level of the next interval, repairing a bad next.
func (b *bench) level() int {
	if b.next < 1 || b.next > hiadsd.Levels(b.cfg.N) {
		return 1
	}
	return b.next
}

// run is one interval of a bench.
type run struct {
	nw     *Network
	b      *bench
	tested map[int]bool
	passed []hiadsd.Range // clusters tested through without a source; every fetch asks for them too
	report Report
}

// research runs one interval of bench id.
func (nw *Network) research(id int) Report {
	b := &nw.benches[id]
	r := &run{nw: nw, b: b, tested: map[int]bool{}, report: Report{Report: hiadsd.Report{Node: id}}}
	switch nw.algo {
	case ADSDwI:
		r.adsdwi()
	case HiADSDDetours:
		r.hiadsdDetours()
	case HiADSDTimestamps:
		r.hiadsdTimestamps()
	case HiComp:
		r.hicomp()
	}
	b.catchUp = max(b.catchUp-1, 0)
	return r.report
}

// test tests j, records the result and applies it to the view.
func (r *run) test(j int) hiadsd.Status {
	got := r.nw.test(r.b.id, j)
	r.record(j, got)
	return got
}

// record stores a direct verdict on j: in the report and in the view. A
// change from a known status advances the counter; the first verdict after
// Unknown keeps it (the core's rule for a direct tester).
func (r *run) record(j int, got hiadsd.Status) {
	r.report.Tests = append(r.report.Tests, hiadsd.TestResult{Target: j, Status: got})
	r.tested[j] = true
	e := r.b.view.Get(j)
	if e.Status != got {
		if e.Status != hiadsd.Unknown {
			e.Counter++
		}
		e.Status = got
	}
	r.set(j, e, hiadsd.Direct)
}

// set stores e for id and reports a status change.
func (r *run) set(id int, e hiadsd.Entry, from int) {
	old := r.b.view.Get(id)
	if old == e {
		return
	}
	r.b.view.Set(id, e)
	if old.Status != e.Status {
		r.report.Updates = append(r.report.Updates, hiadsd.Update{ID: id, Old: old, New: e, From: from})
	}
}

// isSource reports whether a node tested with status st may supply information.
func (r *run) isSource(j int, st hiadsd.Status) bool {
	return st == hiadsd.FaultFree && !r.b.cfg.IsTestedOnly(j)
}

// fetch takes j's entries for ranges and merges the newer ones; copyAll
// selects the unit count of copying algorithms. It reports whether j
// answered.
func (r *run) fetch(j int, ranges []hiadsd.Range, copyAll bool) bool {
	adopted, ok := r.fetchWhere(j, ranges, nil)
	switch {
	case !ok:
		return false
	case copyAll:
		r.report.Units += r.copied(ranges)
	default:
		r.report.Units += adopted
	}
	return true
}

// fetchWhere takes j's entries for ranges and merges the newer ones whose id
// also passes keep (nil keeps all; ids tested now, and every id while the
// node catches up, pass anyway); it returns how many it adopted and whether
// j answered. For an id tested in this interval the direct verdict stands,
// with a counter above the source's when they disagree.
func (r *run) fetchWhere(j int, ranges []hiadsd.Range, keep func(id int) bool) (int, bool) {
	switch {
	case r.b.catchUp > 0:
		ranges = []hiadsd.Range{{Lo: 0, Hi: r.b.cfg.N}}
	case len(r.passed) > 0:
		ranges = append(ranges[:len(ranges):len(ranges)], r.passed...)
	}
	got, err := r.nw.fetch(r.b.id, j, ranges)
	r.report.Fetches = append(r.report.Fetches, hiadsd.FetchResult{From: j, Ranges: ranges, Received: len(got), Err: err})
	if err != nil {
		return 0, false
	}
	adopted := 0
	for _, ie := range got {
		id, heard := ie.ID, ie.Entry
		mine := r.b.view.Get(id)
		switch {
		case id == j || id == r.b.id || !hiadsd.InRanges(id, ranges):
		case r.tested[id]:
			if heard.Newer(mine) {
				if heard.Status != mine.Status {
					heard = hiadsd.Entry{Status: mine.Status, Counter: heard.Counter + 1}
				}
				r.set(id, heard, hiadsd.Direct)
			}
		case keep != nil && !keep(id) && r.b.catchUp == 0:
		case heard.Newer(mine):
			r.set(id, heard, j)
			adopted++
		}
	}
	return adopted, true
}

// copied counts the ids in ranges other than this node and those tested.
func (r *run) copied(ranges []hiadsd.Range) int { return hiadsd.Copied(ranges, r.b.id, r.report.Tests) }

// searchList tests list in order until a source answers a fetch of ranges.
func (r *run) searchList(list []int, ranges []hiadsd.Range) bool {
	for _, j := range list {
		if r.isSource(j, r.test(j)) && r.fetch(j, ranges, true) {
			return true
		}
	}
	return false
}

// hierarchical runs search on the interval's level and, while it finds no
// source, on the following levels, whose fetches then also ask for the
// clusters passed; the next interval starts one level up (Hi-ADSD's walk).
func (r *run) hierarchical(search func(lvl int) bool) {
	n := r.b.cfg.N
	l := hiadsd.Levels(n)
	s := r.b.level()
	r.report.Level = s
	for k := 0; k < l; k++ {
		lvl := (s-1+k)%l + 1
		if search(lvl) {
			break
		}
		if c := clusterRange(r.b.id, lvl, n); c.Len() > 0 {
			r.passed = append(r.passed, c)
		}
	}
	r.b.next = s%l + 1
}

// clusterRange returns the contiguous ids of the level-s cluster node i
// tests, clipped to n: c_{i,s} of Hi-ADSD as a set.
func clusterRange(i, s, n int) hiadsd.Range {
	half := 1 << (s - 1)
	lo := (i ^ half) &^ (half - 1)
	return hiadsd.Range{Lo: lo, Hi: min(lo+half, n)}
}
