package hiadsd

import (
	"fmt"
	"slices"
)

// OpKind says what an Op asks the caller to do.
type OpKind uint8

// The kinds of work a testing interval hands back.
const (
	// OpTest asks for a test of Op.Target: Result.Status.
	OpTest OpKind = iota + 1
	// OpFetch asks for Op.Target's entries in Op.Ranges, and its station, in
	// one read: Result.Entries, Result.Station, or Result.Err.
	OpFetch
)

// String names the kind for logs and tests.
func (k OpKind) String() string {
	switch k {
	case OpTest:
		return "test"
	case OpFetch:
		return "fetch"
	}
	return fmt.Sprintf("op(%d)", int(k))
}

// Op is one piece of work an Interval needs from the world.
type Op struct {
	Kind   OpKind
	Target int
	Ranges []Range // OpFetch
	// Via lists, for an OpTest with Config.Vantage, the other agents to ask
	// to test Target should this test find it faulty or partial where the
	// view holds it otherwise (vantage.go); their answers go in Result.Seen.
	Via []int
}

// Result is the world's answer to one Op.
type Result struct {
	// Status is an OpTest's verdict: FaultFree, Faulty or Partial.
	Status Status
	// Digest is, for an OpTest that found the target fault-free, a digest
	// of what a fetch of it would read now (its entries, station and node
	// list), as it changes whenever any of them does; 0 means it told none.
	// A fetch from a source whose digest is the one it was last merged at
	// is skipped (digest.go).
	Digest uint64
	// Withheld is, for an OpTest that found the target fault-free, set when
	// the target withholds its view (Node.Withholds: it holds verdicts made
	// while cut off); no fetch of it is made.
	Withheld bool
	// Entries are an OpFetch's entries; the source may leave out entries that
	// cannot be newer than the caller's (defaults). Err non-nil means the
	// source gave no information.
	Entries []IDEntry
	// Station is the station the source of an OpFetch holds; the zero Station
	// means it sent none.
	Station Station
	// List is the version of the node list the source of an OpFetch runs;
	// the zero ListVersion means it told none. A source running another
	// list is not merged, and the list is reported (Report.Lists).
	List ListVersion
	Err  error
	// Seen is, for an OpTest that found the target faulty or partial, what
	// the other vantage points found of it meanwhile: the agents of Op.Via
	// asked to test it, and any agent whose own test of it was heard; one
	// status each, Unknown for none that answered (vantage.go).
	Seen []Status
	// NoneAsked says every agent of Op.Via refused the question (an older
	// agent): the test's word stands alone, as when none is held up.
	NoneAsked bool
	// Sent and Unanswered count the requests the test sent and those no
	// reply came to: the tester's own measure of its link (vantage.go's
	// self-doubt). Zero when not counted.
	Sent, Unanswered int
	// Stopped says the tester itself did not run for a while within the
	// test (a stall of its host): a failure it found is no evidence, and
	// goes unheard (vantage.go; with Config.Vantage 0, the papers' rule, it
	// stands as before).
	Stopped bool
}

// Interval is one testing interval of a Node as a state machine, in the
// manner of etcd raft's RawNode: Ready returns the work the interval needs
// now, as one batch the caller may run in any order or in parallel; Advance
// takes the results and the interval moves on; once Done, Report tells what
// it did and the node's view holds what it learned.
//
// Inside, every algorithm runs in direct style against the answers known so
// far. A test with no answer yet is put in the batch and, so that one batch
// holds as many tests as can be foreseen, given its expected answer: what the
// view holds (fault-free for a node it holds unknown). A fetch is put in the
// batch only once every test before it in the pass has its real answer, so
// the entries it brings are read after the tests that chose it, as fresh as
// a caller answering one op at a time would read them (on a LAN a test of a
// silent peer lasts seconds, and entries read at its start would miss what
// others learned meanwhile); until then it brings nothing new. The pass is
// then undone (view, level, catch-up and station restored), and the next
// Advance replays the algorithm from the start with the real answers. The
// first op a pass lacks always follows real answers only, so every Advance
// moves the real prefix forward and the interval ends. The pass that needs
// nothing is the interval: its verdicts are real answers only, and its
// result is the one a caller answering one op at a time would get. vCube
// needs two batches (its tests, then the fetches from the sources found);
// Hi-ADSD a test and a fetch per cluster node it walks, and its rechecks.
type Interval struct {
	node  *Node
	start struct {
		next, catchUp int
		station       Station
	}
	tests    answers[int, testAnswer]
	expected testAnswer // the answer probe assumes for a test not answered yet
	fetches  []fetchAnswer
	need     []Op
	ranges   []Range // backs the Ranges of the ops in need and fetches
	via      []int   // backs the Via of the ops in need
	done     bool
	report   Report
	answered int      // results taken by Advance
	spare    Report   // an undone pass's lists, for the next pass to fill
	scratch  interval // the pass's state, reused from pass to pass
	targets  []int    // vCube's targets, once targeted: news taken midway (midway.go) does not change them
	targeted bool
	plan     []planned // the rotating plan's targets, by the clusters tested
	taken    []int     // ids whose entry Take merged during the interval
	early    []int     // those of them this interval was testing then (midway.go)
	heads    []int     // nonTesterHeads' storage
	addHead  func(int) // nonTesterHeads' filter, adding to heads
	all      []Range   // everyID's storage
}

// planned is the targets of one cluster of the rotating plan, once made.
type planned struct {
	targets []int
	made    bool
}

// everyID returns the one range of every id of the node's list.
func (m *Interval) everyID() []Range {
	m.all = append(m.all[:0], Range{Lo: 0, Hi: m.node.Config.N})
	return m.all
}

// testAnswer is the answer to one test.
type testAnswer struct { // the flags last: 56 octets, not 72
	digest              uint64
	seen                []Status
	sent, unanswered    int
	status              Status
	withheld, noneAsked bool
	stopped             bool
}

// fetchAnswer is the answer to one fetch.
type fetchAnswer struct {
	target int
	ranges []Range
	res    Result
}

// answers maps ops to results: a short list searched in order, then a map.
type answers[K comparable, V any] struct {
	keys []K
	vals []V
	idx  map[K]int
}

func (a *answers[K, V]) get(k K) (*V, bool) {
	if a.idx != nil {
		if i, ok := a.idx[k]; ok {
			return &a.vals[i], true
		}
	} else if i := slices.Index(a.keys, k); i >= 0 {
		return &a.vals[i], true
	}
	return nil, false
}

func (a *answers[K, V]) put(k K, v V) {
	a.keys, a.vals = append(a.keys, k), append(a.vals, v)
	switch {
	case a.idx != nil:
		a.idx[k] = len(a.keys) - 1
	case len(a.keys) > manyTests:
		a.idx = make(map[K]int, 2*len(a.keys))
		for i, key := range a.keys {
			a.idx[key] = i
		}
	}
}

// reset empties a, keeping its storage.
func (a *answers[K, V]) reset() {
	a.keys, a.vals = a.keys[:0], a.vals[:0]
	clear(a.idx)
	a.idx = nil
}

// Begin starts node n's next testing interval on m, which may be the zero
// Interval or one whose interval has ended: m keeps its storage from one
// interval to the next, so a caller that steps many nodes one after another
// (the lab's network) lends them one machine. A tested-only node does not
// test (ErrTestedOnly), nor does a removed one (ErrRemoved). The lists of
// the Report of m's earlier interval (Tests, Fetches, Updates) are m's and
// are reused from here on: a caller copies what it keeps; its Pushes,
// Station, Lists and Held stay the caller's.
func (m *Interval) Begin(n *Node) error {
	if n.Config.IsTestedOnly(n.ID) {
		return fmt.Errorf("node %d: %w", n.ID, ErrTestedOnly)
	}
	if n.Config.IsRemoved(n.ID) {
		return fmt.Errorf("node %d: %w", n.ID, ErrRemoved)
	}
	m.node = n
	n.ageReturning()
	m.reset()
	m.start.next, m.start.catchUp, m.start.station = n.Next, n.CatchUp, n.Station
	m.pass()
	return nil
}

// reset empties the machine for a new interval, keeping its storage.
func (m *Interval) reset() {
	m.tests.reset()
	clear(m.fetches)
	m.fetches, m.need, m.ranges, m.via = m.fetches[:0], m.need[:0], m.ranges[:0], m.via[:0]
	m.spare = Report{Tests: m.report.Tests, Fetches: m.report.Fetches, Updates: m.report.Updates}
	m.done, m.report, m.answered, m.targeted = false, Report{}, 0, false
	for k := range m.plan {
		m.plan[k].made = false
	}
	m.taken, m.early = m.taken[:0], m.early[:0]
}

// Ready returns the ops the interval needs answered now, nil once it is done.
// The slice is the Interval's until the next Advance.
func (m *Interval) Ready() []Op {
	if m.done {
		return nil
	}
	return m.need
}

// Advance takes the results of the ops Ready returned, in the same order,
// and runs the interval on as far as they allow.
func (m *Interval) Advance(res []Result) error {
	if m.done {
		return fmt.Errorf("node %d: Advance after the interval ended: %w", m.node.ID, ErrBadConfig)
	}
	if len(res) != len(m.need) {
		return fmt.Errorf("node %d: %d results for %d ops: %w", m.node.ID, len(res), len(m.need), ErrBadConfig)
	}
	for k, op := range m.need {
		switch op.Kind {
		case OpTest:
			r := &res[k]
			m.tests.put(op.Target, testAnswer{status: r.Status, digest: r.Digest, withheld: r.Withheld,
				seen: slices.Clone(r.Seen), noneAsked: r.NoneAsked, sent: r.Sent, unanswered: r.Unanswered, stopped: r.Stopped})
		case OpFetch:
			m.fetches = append(m.fetches, fetchAnswer{target: op.Target, ranges: op.Ranges, res: res[k]})
		}
	}
	m.answered += len(res)
	m.pass()
	return nil
}

// Done reports whether the interval has ended.
func (m *Interval) Done() bool { return m.done }

// Report returns what the interval did; meaningful once Done.
func (m *Interval) Report() Report { return m.report }

// pass runs the algorithm once from the interval's start against the answers
// known; it keeps the outcome only if no op lacked an answer.
func (m *Interval) pass() {
	n := m.node
	m.need = m.need[:0]
	iv := &m.scratch
	*iv = interval{node: n, m: m, passed: iv.passed[:0], dispute: iv.dispute[:0], doubted: iv.doubted[:0], overrode: iv.overrode[:0],
		changes: iv.changes[:0], merges: iv.merges[:0], report: Report{Node: n.ID,
			Tests: m.spare.Tests[:0], Fetches: m.spare.Fetches[:0], Updates: m.spare.Updates[:0]}}
	m.spare = Report{}
	iv.run()
	if len(m.need) > 0 {
		iv.undo()
		m.restore()
		m.spare = iv.report
		return
	}
	for _, f := range iv.merges {
		n.remember(f.from, f.digest, f.ranges)
	}
	n.CatchUp = max(m.start.catchUp-1, 0)
	iv.report.Wasted = m.answered - iv.used
	iv.report.Pushes = iv.pushes()
	wasCut := n.isolated > 0
	iv.isolation()
	if n.Config.Vantage > 0 { // without second vantage points no node keeps a health window
		if n.health == nil {
			n.health = new(health)
		}
		iv.report.Doubt = n.health.add(iv.ownEvidence(wasCut))
	}
	n.asked = n.asked[:0] // asked and tested: a pass that is undone keeps them for the next one
	n.afterTests(iv.report.Tests)
	m.report, m.done = iv.report, true
}

// restore puts back the node's level, catch-up and station as they were
// when the interval began.
func (m *Interval) restore() {
	m.node.Next, m.node.CatchUp, m.node.Station = m.start.next, m.start.catchUp, m.start.station
}

// ask puts op in the batch. An algorithm asks an op once a pass at most:
// it tests a node once an interval, and reads a source once.
func (m *Interval) ask(op Op) {
	if op.Ranges != nil {
		lo := len(m.ranges)
		m.ranges = append(m.ranges, op.Ranges...)
		op.Ranges = m.ranges[lo:len(m.ranges):len(m.ranges)]
	}
	m.need = append(m.need, op)
}

// fetched returns the answer to a fetch of ranges from j, nil if there is none.
func (m *Interval) fetched(j int, ranges []Range) *Result {
	for k := range m.fetches {
		if f := &m.fetches[k]; f.target == j && slices.Equal(f.ranges, ranges) {
			return &f.res
		}
	}
	return nil
}

// run dispatches to the node's algorithm.
func (iv *interval) run() {
	switch iv.node.Config.Algorithm {
	case HiADSD:
		iv.hiadsd()
	case VCube:
		iv.vcube()
	case VRing:
		iv.vring()
	default:
		iv.bruteForce()
	}
}

// expect returns the verdict this pass assumes for an unanswered test of j:
// what the view holds, fault-free for a node it holds unknown.
func (iv *interval) expect(j int) Status {
	if st := iv.node.View.Get(j).Status; st != Unknown {
		return st
	}
	return FaultFree
}

// probe returns the answer to a test of j, real (ok) or expected: the
// machine's, to read before the next probe.
func (iv *interval) probe(j int) (a *testAnswer, ok bool) {
	if a, ok := iv.m.tests.get(j); ok {
		iv.used++
		return a, true
	}
	iv.m.ask(Op{Kind: OpTest, Target: j, Via: iv.node.vantages(j, &iv.m.via)})
	iv.expecting = true
	iv.m.expected = testAnswer{status: iv.expect(j)}
	return &iv.m.expected, false
}

// read returns j's answer to a fetch of ranges, nil if it has none yet; a
// fetch is asked for only once every test before it has its real answer.
// The answer is the machine's: read it, do not keep it.
func (iv *interval) read(j int, ranges []Range) *Result {
	if r := iv.m.fetched(j, ranges); r != nil {
		iv.used++
		return r
	}
	if !iv.expecting {
		iv.m.ask(Op{Kind: OpFetch, Target: j, Ranges: ranges})
	}
	return nil
}

// undo restores every entry this pass changed, newest first.
func (iv *interval) undo() {
	for k := len(iv.changes) - 1; k >= 0; k-- {
		c := iv.changes[k]
		iv.node.View.Set(c.ID, c.Entry)
	}
}

// Expected returns the tests node id would make in its next interval if every
// test found what view holds: its out-edges in the testing graph as seen from
// view, for display: the first batch of the node's machine, whose pass is
// undone, so view is unchanged; a tested-only node tests nothing.
func Expected(cfg *Config, id int, view View, next int) []int {
	if cfg.IsTestedOnly(id) {
		return nil
	}
	n := &Node{ID: id, Config: cfg, View: view, Next: next}
	var m Interval
	if m.Begin(n) != nil { // its first pass, undone since nothing is answered
		return nil
	}
	var out []int
	for _, op := range m.Ready() {
		if op.Kind == OpTest {
			out = append(out, op.Target)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
