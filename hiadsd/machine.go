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
	// OpTask asks Op.Target to run Hi-Comp's comparison task Op.Task:
	// Result.Output.
	OpTask
)

// String names the kind for logs and tests.
func (k OpKind) String() string {
	switch k {
	case OpTest:
		return "test"
	case OpFetch:
		return "fetch"
	case OpTask:
		return "task"
	}
	return fmt.Sprintf("op(%d)", int(k))
}

// Op is one piece of work an Interval needs from the world.
type Op struct {
	Kind   OpKind
	Target int
	Ranges []Range // OpFetch
	Task   uint64  // OpTask
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
	// list is not merged, and a newer one is reported (Report.Lists).
	List ListVersion
	Err  error
	// Output is an OpTask's output.
	Output uint64
}

// Interval is one testing interval of a Node as a state machine, in the
// manner of etcd raft's RawNode: Ready returns the work the interval needs
// now, as one batch the caller may run in any order or in parallel; Advance
// takes the results and the interval moves on; once Done, Report tells what
// it did and the node's view holds what it learned.
//
// Inside, every algorithm runs in direct style against the answers known so
// far. A test or task with no answer yet is put in the batch and, so that
// one batch holds as many tests as can be foreseen, given its expected
// answer: a test finds what the view holds (fault-free for a node it holds
// unknown), a task returns what a node of that status returns. A fetch is
// put in the batch only once every test and task before it in the pass has
// its real answer, so the entries it brings are read after the tests that
// chose it, as fresh as a blocking Tester would read them (on a LAN a test
// of a silent peer lasts seconds, and entries read at its start would miss
// what others learned meanwhile); until then it brings nothing new. The pass
// is then undone (view, level, catch-up and station restored), and the next
// Advance replays the algorithm from the start with the real answers. The
// first op a pass lacks always follows real answers only, so every Advance
// moves the real prefix forward and the interval ends. The pass that needs
// nothing is the interval: its verdicts are real answers only, and its
// result is the one a blocking Tester would give. vCube needs two batches
// (its tests, then the fetches from the sources found); Hi-ADSD a test and
// a fetch per cluster node it walks, and its rechecks.
type Interval struct {
	node  *Node
	start struct {
		next, catchUp int
		station       Station
	}
	tests    answers[int, testAnswer]
	fetches  []fetchAnswer
	tasks    answers[taskKey, uint64]
	need     []Op
	ranges   []Range   // backs the Ranges of the ops in need and fetches
	entries  []IDEntry // backs Step's copies of fetched entries
	done     bool
	report   Report
	answered int      // results taken by Advance
	spare    Report   // an undone pass's lists, for the next pass to fill
	results  []Result // Step's buffer
	scratch  interval // the pass's state, reused from pass to pass
	targets  []int    // vCube's targets: the view each pass starts from is the same
}

// testAnswer is the answer to one test.
type testAnswer struct {
	status   Status
	digest   uint64
	withheld bool
}

// taskKey names one comparison task sent to one node.
type taskKey struct {
	target int
	task   uint64
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

func (a *answers[K, V]) get(k K) (V, bool) {
	if a.idx != nil {
		if i, ok := a.idx[k]; ok {
			return a.vals[i], true
		}
	} else if i := slices.Index(a.keys, k); i >= 0 {
		return a.vals[i], true
	}
	var zero V
	return zero, false
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

// Begin starts the node's next testing interval. A tested-only node does not
// test (ErrTestedOnly). The Interval is the node's own and is reused by its
// next Begin; the Report's lists are the caller's.
func (n *Node) Begin() (*Interval, error) { return n.BeginIn(n.ownMachine()) }

// ownMachine returns the node's own interval machine, made at first use.
func (n *Node) ownMachine() *Interval {
	if n.machine == nil {
		n.machine = &Interval{}
	}
	return n.machine
}

// BeginIn is Begin on the storage of m, an Interval no other interval is
// using now: a caller that steps many nodes one after another (the
// simulator's Network) lends them one machine instead of keeping one per
// node. Its earlier interval's Report stays valid.
func (n *Node) BeginIn(m *Interval) (*Interval, error) {
	if n.Config.IsTestedOnly(n.ID) {
		return nil, fmt.Errorf("node %d: %w", n.ID, ErrTestedOnly)
	}
	if n.Config.IsRemoved(n.ID) {
		return nil, fmt.Errorf("node %d: %w", n.ID, ErrRemoved)
	}
	m.node = n
	m.reset()
	m.start.next, m.start.catchUp, m.start.station = n.Next, n.CatchUp, n.Station
	m.pass()
	return m, nil
}

// reset empties the machine for a new interval, keeping its storage.
func (m *Interval) reset() {
	m.tests.reset()
	m.tasks.reset()
	clear(m.fetches)
	m.fetches, m.need, m.ranges, m.entries = m.fetches[:0], m.need[:0], m.ranges[:0], m.entries[:0]
	m.done, m.report, m.answered, m.targets, m.spare = false, Report{}, 0, nil, Report{}
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
			m.tests.put(op.Target, testAnswer{status: res[k].Status, digest: res[k].Digest, withheld: res[k].Withheld})
		case OpFetch:
			m.fetches = append(m.fetches, fetchAnswer{target: op.Target, ranges: op.Ranges, res: res[k]})
		case OpTask:
			m.tasks.put(taskKey{op.Target, op.Task}, res[k].Output)
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
	*iv = interval{node: n, m: m, passed: iv.passed[:0], dispute: iv.dispute[:0],
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
	iv.isolation()
	m.report, m.done = iv.report, true
}

// restore puts back the node's level, catch-up and station as they were
// when the interval began.
func (m *Interval) restore() {
	m.node.Next, m.node.CatchUp, m.node.Station = m.start.next, m.start.catchUp, m.start.station
}

// ask puts op in the batch unless it is there already.
func (m *Interval) ask(op Op) {
	for k := range m.need {
		if o := &m.need[k]; o.Target == op.Target && o.Kind == op.Kind && o.Task == op.Task && slices.Equal(o.Ranges, op.Ranges) {
			return
		}
	}
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

// nothing is the answer a pass assumes for a fetch it has not asked for yet.
var nothing Result

// run dispatches to the node's algorithm.
func (iv *interval) run() {
	switch iv.node.Config.Algorithm {
	case HiADSD:
		iv.hiadsd()
	case VCube:
		iv.vcube()
	case VRing:
		iv.vring()
	case ADSDwI:
		iv.adsdwi()
	case HiADSDDetours:
		iv.hiadsdDetours()
	case HiADSDTimestamps:
		iv.hiadsdTimestamps()
	case HiComp:
		iv.hicomp()
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

// probe returns the verdict of a test of j, real or expected.
func (iv *interval) probe(j int) Status {
	if a, ok := iv.m.tests.get(j); ok {
		iv.used++
		return a.status
	}
	iv.m.ask(Op{Kind: OpTest, Target: j})
	iv.expecting = true
	return iv.expect(j)
}

// read returns j's answer to a fetch of ranges, real or expected (nothing
// new); it is asked for only once every test and task before it has its
// real answer. The answer is the machine's: read it, do not keep it.
func (iv *interval) read(j int, ranges []Range) *Result {
	if r := iv.m.fetched(j, ranges); r != nil {
		iv.used++
		return r
	}
	if !iv.expecting {
		iv.m.ask(Op{Kind: OpFetch, Target: j, Ranges: ranges})
	}
	return &nothing
}

// runTask returns j's output for task, real or expected.
func (iv *interval) runTask(j int, task uint64) uint64 {
	if out, ok := iv.m.tasks.get(taskKey{j, task}); ok {
		iv.used++
		return out
	}
	iv.m.ask(Op{Kind: OpTask, Target: j, Task: task})
	iv.expecting = true
	if iv.expect(j) == FaultFree {
		return TaskOutput(task)
	}
	return TaskOutput(task) ^ uint64(j+1)<<1 | 1
}

// undo restores every entry this pass changed, newest first.
func (iv *interval) undo() {
	for k := len(iv.changes) - 1; k >= 0; k-- {
		c := iv.changes[k]
		iv.node.View.Set(c.ID, c.Entry)
	}
}

// Step runs one whole testing interval against t, answering every batch in
// order: the blocking driver the simulator and the tests use. Hi-Comp's tasks
// need t to be an Executor (ErrNoExecutor); a t that is also a StationSource
// gives each successful fetch the source's station.
func (n *Node) Step(t Tester) (Report, error) { return n.StepIn(t, n.ownMachine()) }

// StepIn is Step on the storage of m (see BeginIn).
func (n *Node) StepIn(t Tester, m *Interval) (Report, error) {
	m, err := n.BeginIn(m)
	if err != nil {
		return Report{}, err
	}
	ex, _ := t.(Executor)
	ss, _ := t.(StationSource)
	ls, _ := t.(ListSource)
	ds, _ := t.(DigestSource)
	ws, _ := t.(WithholdSource)
	for !m.Done() {
		ops := m.Ready()
		res := slices.Grow(m.results[:0], len(ops))[:len(ops)]
		clear(res)
		m.results = res
		for k, op := range ops {
			switch op.Kind {
			case OpTest:
				res[k].Status = t.Test(op.Target)
				if ds != nil && res[k].Status == FaultFree {
					res[k].Digest = ds.DigestOf(op.Target)
				}
				if ws != nil && n.Config.Isolation > 0 && res[k].Status == FaultFree { // none withholds without self-suspicion
					res[k].Withheld = ws.Withholds(op.Target)
				}
			case OpFetch:
				got, err := t.Fetch(op.Target, op.Ranges)
				lo := len(m.entries)
				m.entries = append(m.entries, got...) // got may be reused by the next Fetch
				res[k].Entries, res[k].Err = m.entries[lo:len(m.entries):len(m.entries)], err
				if err == nil && ss != nil {
					res[k].Station = ss.StationOf(op.Target)
				}
				if err == nil && ls != nil {
					res[k].List = ls.ListOf(op.Target)
				}
			case OpTask:
				if ex == nil {
					return Report{}, fmt.Errorf("node %d: Hi-Comp needs a Tester that runs tasks: %w", n.ID, ErrNoExecutor)
				}
				res[k].Output = ex.Run(op.Target, op.Task)
			}
		}
		if err := m.Advance(res); err != nil {
			return Report{}, err
		}
	}
	return m.Report(), nil
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
	m, err := n.BeginIn(&Interval{}) // its first pass, undone since nothing is answered
	if err != nil {
		return nil
	}
	var out []int
	for _, op := range m.Ready() {
		if op.Kind == OpTest || op.Kind == OpTask {
			out = append(out, op.Target)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
