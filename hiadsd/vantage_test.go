package hiadsd

import (
	"slices"
	"testing"
)

// lossyWorld answers every test of the node under test with fail, and
// what each other vantage point saw with seen (nil: none answered).
type lossyWorld struct {
	fail    Status
	seen    []Status
	sent    int
	stopped bool // the tester stopped within each test
	ops     []Op // every test op asked, for the Via it carried
}

func (w *lossyWorld) step(t *testing.T, n *Node) Report {
	t.Helper()
	return runInterval(t, n, func(op Op) Result {
		if op.Kind == OpFetch {
			return Result{Err: errNoAnswer}
		}
		w.ops = append(w.ops, Op{Kind: op.Kind, Target: op.Target, Via: slices.Clone(op.Via)})
		return Result{Status: w.fail, Seen: w.seen, Sent: w.sent, Unanswered: w.sent, Stopped: w.stopped}
	})
}

// runInterval runs one interval of n, each op answered by answer, and
// returns its report.
func runInterval(t *testing.T, n *Node, answer func(Op) Result) Report {
	t.Helper()
	var m Interval
	if err := m.Begin(n); err != nil {
		t.Fatal(err)
	}
	for !m.Done() {
		ops := m.Ready()
		res := make([]Result, len(ops))
		for k, op := range ops {
			res[k] = answer(op)
		}
		if err := m.Advance(res); err != nil {
			t.Fatal(err)
		}
	}
	return m.Report()
}

// TestVantagesSpreadOverTheLargestClusters: node 0 of 16 asks, of node 8,
// its own nearest agent (node 1), then one agent in each of node 8's two
// largest clusters (c(8,4) = 0..7, c(8,3) = 12..15), never itself, the
// target, a printer or a node it holds faulty; another tester of node 8
// asks others.
func TestVantagesSpreadOverTheLargestClusters(t *testing.T) {
	cfg := &Config{N: 16, Algorithm: VCube, Vantage: 3, TestedOnly: []int{12}}
	n := newTestNode(t, cfg, 0)
	n.View.Set(13, Entry{Status: Faulty, Counter: 1})
	var buf []int
	got := n.vantages(8, &buf)
	inCluster := func(id, s int) bool { return id>>(s-1) == (8^1<<(s-1))>>(s-1) }
	if len(got) != 3 || got[0] != 1 || !inCluster(got[1], 4) || !inCluster(got[2], 3) {
		t.Fatalf("vantages of 8 = %v, want node 1 (the tester's nearest), then one in c(8,4) and c(8,3), in that order", got)
	}
	for _, h := range got {
		if h == 0 || h == 8 || h == 12 || h == 13 {
			t.Fatalf("vantages of 8 = %v: holds itself, the target, the printer or a faulty node", got)
		}
	}
	other := newTestNode(t, cfg, 9)
	if o := other.vantages(8, &buf); slices.Equal(o, got) {
		t.Errorf("testers 0 and 9 of node 8 ask the same agents %v", o)
	}
	if got := n.vantages(1, &buf); slices.Contains(got, 0) || slices.Contains(got, 1) || len(got) != 3 {
		t.Fatalf("vantages of 1 = %v: three, neither 0 nor 1", got)
	}
	cfg.Vantage = 0
	if got := n.vantages(8, &buf); got != nil {
		t.Fatalf("vantages without Config.Vantage = %v", got)
	}
}

// TestFailureNeedsASecondVantagePoint: a new failure is applied only when
// another vantage point confirms it; refuted or unheard, the view keeps
// the node fault-free and nothing is pushed; with Vantage 0 (the papers')
// the tester's word stands.
func TestFailureNeedsASecondVantagePoint(t *testing.T) {
	for _, tc := range []struct {
		name    string
		vantage int
		seen    []Status
		stopped bool
		want    Second
		applied bool
	}{
		{"refuted", 3, []Status{Unknown, FaultFree}, false, Refuted, false},
		{"refuted though another agrees", 3, []Status{Partial, FaultFree}, false, Refuted, false},
		{"confirmed", 3, []Status{Unknown, Partial}, false, Confirmed, true},
		{"confirmed, the tester stopped within", 3, []Status{Partial, Partial}, true, Unheard, false},
		{"unheard", 3, []Status{Unknown, Unknown, Unknown}, false, Unheard, false},
		{"unheard, none", 3, nil, false, Unheard, false},
		{"the papers'", 0, nil, false, SecondNone, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := &Config{N: 16, Algorithm: VCube, Rotate: true, Push: true, Vantage: tc.vantage}
			n := newTestNode(t, cfg, 0)
			w := &lossyWorld{fail: Partial, seen: tc.seen, stopped: tc.stopped}
			rep := w.step(t, n)
			if len(rep.Tests) == 0 {
				t.Fatal("no test")
			}
			tr := rep.Tests[0]
			if tr.Second != tc.want {
				t.Fatalf("test of %d judged %v, want %v", tr.Target, tr.Second, tc.want)
			}
			held := n.View.Get(tr.Target).Status
			if (held == Partial) != tc.applied || (len(rep.Updates) > 0) != tc.applied || (len(rep.Pushes) > 0) != tc.applied {
				t.Fatalf("node %d held %v, %d updates, %d pushes; applied should be %v", tr.Target, held, len(rep.Updates), len(rep.Pushes), tc.applied)
			}
			if tc.vantage > 0 && len(w.ops[0].Via) != 3 {
				t.Fatalf("test of %d asks %v, want three other vantage points", tr.Target, w.ops[0].Via)
			}
		})
	}
}

// TestAloneWhenNoneElse: with every other agent held faulty, the tester's
// word stands (Alone), unless it doubts itself.
func TestAloneWhenNoneElse(t *testing.T) {
	cfg := &Config{N: 4, Algorithm: VCube, Vantage: 3}
	n := newTestNode(t, cfg, 0)
	n.View.Set(2, Entry{Status: Faulty, Counter: 1})
	n.View.Set(3, Entry{Status: Faulty, Counter: 1})
	rep := (&lossyWorld{fail: Faulty}).step(t, n)
	var got Second
	for _, tr := range rep.Tests {
		if tr.Target == 1 {
			got = tr.Second
		}
	}
	if got != Alone || n.View.Get(1).Status != Faulty {
		t.Fatalf("node 1, the only other agent up, tested faulty: judged %v, held %v; want alone, faulty", got, n.View.Get(1).Status)
	}
}

// TestDoubtFromRefutedFailuresAndLostRequests: two refuted failures within
// the window make a node doubt itself, and it stops once the window is
// clean; so does a tester losing 40% of its requests to the nodes it
// tests, but not one that loses them to one node only (it is lossy), nor one losing 19% (a link with 10% loss each way). Any
// loss in the window asks for measurements (Doubt.Measure).
func TestDoubtFromRefutedFailuresAndLostRequests(t *testing.T) {
	var h health
	if d := h.add(evidence{sent: 1}); d.Doubting || d.Measure {
		t.Fatalf("a clean interval: %+v", d)
	}
	if d := h.add(evidence{refuted: 1, lossy: [2]int{4}, refutedOn: [2]int{4}}); d.Doubting || !d.Measure {
		t.Fatalf("one refuted failure: %+v, want measuring only", d)
	}
	var busy health
	if d := busy.add(evidence{sent: 8, unanswered: 1, lossy: [2]int{2}}); d.Measure {
		t.Fatalf("one late reply: %+v, want no measuring (steady state costs nothing)", d)
	}
	var half health
	if d := half.add(evidence{sent: 3, unanswered: 2, lossy: [2]int{2}}); !d.Measure || d.Doubting {
		t.Fatalf("two of three requests lost in one test: %+v, want measuring only", d)
	}
	if d := busy.add(evidence{sent: 8, unanswered: 1, lossy: [2]int{3}}); d.Measure {
		t.Fatalf("two late replies in two intervals, a quarter of all sent: %+v, want no measuring", d)
	}
	if d := h.add(evidence{refuted: 1, lossy: [2]int{4}, refutedOn: [2]int{4}, sent: 2, unanswered: 1}); d.Doubting {
		t.Fatalf("two refuted failures about one node: %+v, want no doubt (the node is hard to reach, from here)", d)
	}
	if d := h.add(evidence{refuted: 1, lossy: [2]int{5}, refutedOn: [2]int{5}}); !d.Doubting || d.Refuted != 3 {
		t.Fatalf("refuted failures about two nodes, a request lost to a live one: %+v", d)
	}
	var blocked health // a firewall between this node and node 9 alone, and a late reply from another
	for k := range healthWindow {
		e := evidence{sent: 9, lossy: [2]int{3 + k%2}}
		if k%4 == 0 {
			e = evidence{refuted: 1, lossy: [2]int{9}, refutedOn: [2]int{9}}
		}
		if k == 3 {
			e.unanswered = 1
		}
		if d := blocked.add(e); d.Doubting {
			t.Fatalf("interval %d: refuted about one node only, a reply late from another: %+v, want no doubt", k, d)
		}
	}
	var walled health
	for k := range healthWindow {
		if d := walled.add(evidence{refuted: 1, sent: 5, lossy: [2]int{1 + k%4}, refutedOn: [2]int{1 + k%4}}); d.Doubting {
			t.Fatalf("refuted about four nodes, nothing lost to live ones (a firewall): %+v", d)
		}
	}
	for k := 0; k < healthWindow-1; k++ {
		if d := h.add(evidence{sent: 9}); !d.Doubting {
			t.Fatalf("stopped doubting %d intervals after, with a refuted failure in the window", k+1)
		}
	}
	if d := h.add(evidence{sent: 9}); d.Doubting {
		t.Fatalf("still doubting with a clean window: %+v", d)
	}
	lossyLink := func(targets int) health {
		var h health
		for k := range healthWindow {
			h.add(evidence{sent: 9, unanswered: 5, lossy: [2]int{1 + k%targets}})
		}
		return h
	}
	if h := lossyLink(4); !h.doubting {
		t.Fatal("over half the requests to four nodes unanswered: not doubting")
	}
	if h := lossyLink(1); h.doubting {
		t.Fatal("the requests to one node unanswered: doubting (that node is lossy, not this one)")
	}
	var fine health
	for k := 0; k < 10*healthWindow; k++ {
		// 19 of 100 requests lost to four nodes: never 40% of a window.
		if d := fine.add(evidence{sent: 9, unanswered: 1 + k%3, lossy: [2]int{1 + k%4}}); d.Doubting {
			t.Fatalf("interval %d: doubting at 20%% loss: %+v", k, d)
		}
	}
}

// TestConfirmedFailuresAreNoEvidence: a tester whose target is down (its
// failure confirmed every interval) does not doubt itself, nor does one
// whose failures are refuted while nothing it sends to a node that answers
// is lost.
func TestConfirmedFailuresAreNoEvidence(t *testing.T) {
	cfg := &Config{N: 16, Algorithm: VCube, Rotate: true, Vantage: 3}
	n := newTestNode(t, cfg, 0)
	w := &lossyWorld{fail: Faulty, seen: []Status{Faulty}, sent: 4}
	for range 2 * healthWindow {
		w.step(t, n)
	}
	if n.Doubting() {
		t.Fatal("a tester whose failures are confirmed doubts itself")
	}
	w.seen = []Status{FaultFree}
	n2 := newTestNode(t, cfg, 0)
	for range healthWindow {
		w.step(t, n2)
	}
	if n2.Doubting() {
		t.Fatal("a tester refuted about every node, with nothing lost to a node that answered, doubts itself (a firewall in front of it is no lossy link)")
	}
}

// TestDegradedIsUpAndNamed: a test that finds a node degraded (it answered,
// and doubts its own tests) records and pushes it as an event; the node is
// then neither a tester nor a source of the plan, a failure of it still
// needs a second vantage point, and one that reaches it keeps it degraded.
func TestDegradedIsUpAndNamed(t *testing.T) {
	cfg := &Config{N: 16, Algorithm: VCube, Rotate: true, Push: true, Vantage: 3}
	n := newTestNode(t, cfg, 0)
	rep := (&lossyWorld{fail: Degraded}).step(t, n)
	j := rep.Tests[0].Target
	if got := n.View.Get(j); got.Status != Degraded || got.Counter != 1 || len(rep.Updates) != len(rep.Tests) || len(rep.Pushes) == 0 {
		t.Fatalf("node %d tested degraded: held %v, %d updates of %d tests, %d pushes", j, got, len(rep.Updates), len(rep.Tests), len(rep.Pushes))
	}
	if n.isTester(j) || !Degraded.Up() || !(Entry{Status: Degraded, Counter: 3}).Newer(Entry{Status: Faulty, Counter: 3}) {
		t.Fatalf("degraded: tester %v, up %v", n.isTester(j), Degraded.Up())
	}
	var m Interval
	if err := m.Begin(n); err != nil {
		t.Fatal(err)
	}
	var a testAnswer
	a.status, a.seen = Partial, []Status{Degraded}
	iv := &interval{node: n, m: &m}
	if got := iv.second(j, &a); got != Holding {
		t.Fatalf("a failure of a degraded node that another agent found or holds degraded: %v, want holding", got)
	}
	n.View.Set(j, Entry{Status: FaultFree, Counter: 1})
	if got := iv.second(j, &a); got != Holding {
		t.Fatalf("a failure of a node held fault-free that another agent holds degraded: %v, want holding (not refuted: the tester is not at fault)", got)
	}
}

// TestDegradedHeldUntilSilent: a failure of a node held degraded is held
// (not believed) while it has been silent fewer than degradedHold intervals
// in a row, and the node is tested again each of them; an answer starts
// the count anew; the degradedHold-th silent interval in a row believes it.
func TestDegradedHeldUntilSilent(t *testing.T) {
	cfg := &Config{N: 16, Algorithm: VCube, Rotate: true, Push: true, Vantage: 3}
	n := newTestNode(t, cfg, 0)
	const j = 1 // node 0's first test in cluster 1
	n.View.Set(j, Entry{Status: Degraded, Counter: 1})
	judged := func(rep Report) Second {
		t.Helper()
		for _, tr := range rep.Tests {
			if tr.Target == j {
				return tr.Second
			}
		}
		t.Fatalf("interval of cluster %d did not test node %d: %+v", rep.Level, j, rep.Tests)
		return SecondNone
	}
	silent := &lossyWorld{fail: Faulty, seen: []Status{Faulty}}
	for k := 1; k < degradedHold; k++ {
		if got := judged(silent.step(t, n)); got != Holding || n.View.Get(j).Status != Degraded {
			t.Fatalf("silent interval %d: judged %v, held %v; want holding, degraded", k, got, n.View.Get(j).Status)
		}
	}
	if got := judged((&lossyWorld{fail: Degraded}).step(t, n)); got != SecondNone || n.silent[j] != 0 {
		t.Fatalf("an answer: judged %v, %d silent intervals left counted", got, n.silent[j])
	}
	for k := 1; k < degradedHold; k++ {
		if got := judged(silent.step(t, n)); got != Holding {
			t.Fatalf("silent interval %d after an answer: judged %v, want holding", k, got)
		}
	}
	if got := judged(silent.step(t, n)); got != Confirmed || n.View.Get(j).Status != Faulty {
		t.Fatalf("silent %d intervals in a row: judged %v, held %v; want confirmed, faulty", degradedHold, got, n.View.Get(j).Status)
	}
	// The agents asked hold it degraded too (their answer: degraded), and
	// this tester does not know it yet: held the same way, then believed.
	m := newTestNode(t, cfg, 0)
	told := &lossyWorld{fail: Faulty, seen: []Status{Degraded, Degraded}}
	for k := 1; k < degradedHold; k++ {
		if got := judged(told.step(t, m)); got != Holding || m.View.Get(j).Status != FaultFree {
			t.Fatalf("silent interval %d, the others holding it degraded: judged %v, held %v; want holding, fault-free", k, got, m.View.Get(j).Status)
		}
	}
	if got := judged(told.step(t, m)); got != Confirmed || m.View.Get(j).Status != Faulty {
		t.Fatalf("silent %d intervals in a row, the others holding it degraded: judged %v, held %v; want confirmed, faulty (a degraded member that crashed)", degradedHold, got, m.View.Get(j).Status)
	}
}

// TestUnreachedFromHereAlone: a failure another agent refutes puts the
// node in Unreached, with the view unchanged; a test of it that answers
// takes it out at once, and so do 2·log2 N + 2 intervals without news.
func TestUnreachedFromHereAlone(t *testing.T) {
	cfg := &Config{N: 16, Algorithm: VCube, Rotate: true, Push: true, Vantage: 3}
	n := newTestNode(t, cfg, 0)
	rep := (&lossyWorld{fail: Faulty, seen: []Status{FaultFree}}).step(t, n)
	var tested []int
	for _, tr := range rep.Tests {
		tested = append(tested, tr.Target)
	}
	slices.Sort(tested)
	if got := n.Unreached(); !slices.Equal(got, tested) || n.View.Get(tested[0]).Status != FaultFree || len(rep.Updates) != 0 {
		t.Fatalf("refuted failures of %v: unreached %v, %d updates; want them all, none", tested, got, len(rep.Updates))
	}
	for range Levels(cfg.N) { // every cluster in turn: each node is tested, and answers
		(&lossyWorld{fail: FaultFree}).step(t, n)
	}
	if got := n.Unreached(); len(got) != 0 {
		t.Fatalf("unreached %v after tests that answered, want none", got)
	}
	(&lossyWorld{fail: Faulty, seen: []Status{FaultFree}}).step(t, n)
	hold := 2*Levels(cfg.N) + 2
	for k := 1; k < hold; k++ {
		n.afterTests(nil) // an interval with no news of them
	}
	if len(n.Unreached()) == 0 {
		t.Fatalf("nothing unreached after %d intervals without news, want them there for %d", hold-1, hold)
	}
	n.afterTests(nil)
	if got := n.Unreached(); len(got) != 0 {
		t.Fatalf("unreached %v after %d intervals without news, want none", got, hold)
	}
}

// TestLossNamedFromOutside: a node that answers a test's measurement
// (ConfirmRequests) but loses most of it is degraded when an agent asked
// measured the same, or the view holds it so; on the tester's word alone
// it stays fault-free, and the loss counts against the tester. A
// measurement of a node held degraded that lost less than trustLoss
// percent ends it; more, or an unmeasured test, keeps it. An agent that doubts its own link names nobody so, and answers no
// question with Degraded.
func TestLossNamedFromOutside(t *testing.T) {
	heavy, clean := ConfirmRequests+4, 1
	if !Heavy(heavy, heavy-5) || Heavy(heavy, heavy/3) || Heavy(4, 4) {
		t.Fatalf("Heavy: %v %v %v", Heavy(heavy, heavy-5), Heavy(heavy, heavy/3), Heavy(4, 4))
	}
	if Answer(FaultFree, FaultFree, heavy, heavy-5, true) != Degraded || Answer(FaultFree, Degraded, heavy, heavy-5, true) != Degraded ||
		Answer(FaultFree, FaultFree, heavy, heavy-5, false) != FaultFree ||
		Answer(Faulty, FaultFree, heavy, heavy, true) != Faulty || Answer(FaultFree, FaultFree, clean, 0, true) != FaultFree ||
		Answer(FaultFree, Unknown, heavy, heavy-5, true) != FaultFree || Answer(FaultFree, Partial, heavy, heavy-5, true) != FaultFree {
		t.Fatal("Answer: want degraded for a node held up with a heavy loss measured by an agent sure of its link and view, else the status")
	}
	cases := []struct {
		name             string
		held             Status
		sent, unanswered int
		seen             []Status
		doubting         bool
		stirred          int
		seesLoss         bool
		want             Status
	}{
		{"heavy, an agent asked found it degraded", FaultFree, heavy, heavy - 5, []Status{FaultFree, Degraded}, false, 0, false, Degraded},
		{"heavy, on the tester's word alone", FaultFree, heavy, heavy - 5, []Status{FaultFree}, false, 0, false, FaultFree},
		{"heavy, none answered", FaultFree, heavy, heavy - 5, nil, false, 0, false, FaultFree},
		{"heavy, held degraded", Degraded, heavy, heavy - 5, nil, false, 0, false, Degraded},
		{"light loss, held degraded", Degraded, heavy, 2, nil, false, 0, false, FaultFree},
		{"loss under Heavy's but over trustLoss, held degraded", Degraded, heavy, heavy * 3 / 10, nil, false, 0, false, Degraded},
		{"not measured, held degraded", Degraded, clean, 0, nil, false, 0, false, Degraded},
		{"heavy, confirmed, but the tester doubts itself", FaultFree, heavy, heavy - 5, []Status{Degraded}, true, 0, false, FaultFree},
		{"heavy, confirmed, but a status changed in the view lately", FaultFree, heavy, heavy - 5, []Status{Degraded}, false, 1, false, FaultFree},
		{"heavy, confirmed, but the tester sees loss on its own tests", FaultFree, heavy, heavy - 5, []Status{Degraded}, false, 0, true, FaultFree},
		{"heavy, confirmed, a first verdict (the node just started)", Unknown, heavy, heavy - 5, []Status{Degraded}, false, 0, false, FaultFree},
		{"heavy, confirmed, a return", Partial, heavy, heavy - 5, []Status{Degraded}, false, 0, false, FaultFree},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := newTestNode(t, &Config{N: 16, Algorithm: VCube, Rotate: true, Push: true, Vantage: 3}, 0)
			const j = 1
			n.View.Set(j, Entry{Status: c.held, Counter: 1})
			n.health, n.stirred = &health{doubting: c.doubting, seesLoss: c.seesLoss}, uint8(c.stirred)
			iv := &interval{node: n}
			a := testAnswer{status: FaultFree, sent: c.sent, unanswered: c.unanswered, seen: c.seen}
			if got := iv.measured(j, &a); got != c.want {
				t.Fatalf("measured: %v, want %v", got, c.want)
			}
			iv.evidence(j, &a, c.want, SecondNone)
			// A node named degraded, or not up before (a first verdict, a
			// return), counts nothing against the tester.
			count := c.want != Degraded && c.held.Up()
			if counted := iv.health.sent > 0; counted != count {
				t.Fatalf("judged %v, held %v: its requests counted against the tester: %v", c.want, c.held, counted)
			}
			// Heavy loss that every agent asked refuted (they reached j
			// cleanly) counts as a refuted failure: the tester's link lost them.
			refuted := count && Heavy(c.sent, c.unanswered) && len(c.seen) > 0 && !slices.Contains(c.seen, Degraded)
			if got := iv.health.refuted == 1 && iv.health.refutedOn[0] == j+1; got != refuted {
				t.Fatalf("measurement refuted: %v (refuted %d on %v), want %v", got, iv.health.refuted, iv.health.refutedOn, refuted)
			}
		})
	}
}

// TestReturnCountsNoLoss: a test that finds up a node the view held down,
// or never held at all, counts no request against the tester's own link,
// as what it lost may be from before the node came back (a switch
// healing) or started (agents starting one after the other); a node held
// up does.
func TestReturnCountsNoLoss(t *testing.T) {
	heavy := ConfirmRequests + 4
	for _, held := range []Status{Faulty, Partial, FaultFree, Unknown} {
		n := newTestNode(t, &Config{N: 16, Algorithm: VCube, Rotate: true, Push: true, Vantage: 3}, 0)
		const j = 1
		n.View.Set(j, Entry{Status: held, Counter: 1})
		iv := &interval{node: n}
		a := testAnswer{status: FaultFree, sent: heavy, unanswered: heavy - 5}
		iv.evidence(j, &a, FaultFree, SecondNone)
		want := held.Up()
		if counted := iv.health.sent == heavy && iv.health.unanswered == heavy-5 && iv.health.lossy[0] == j+1; counted != want {
			t.Errorf("held %v, found fault-free after losing %d of %d: counted %v (%+v), want %v", held, heavy-5, heavy, counted, iv.health, want)
		}
	}
}

// TestCalmAfterChanges: a status change stirs the view for stirIntervals
// intervals, a change to or from Degraded and a first verdict do not.
func TestCalmAfterChanges(t *testing.T) {
	n := newTestNode(t, &Config{N: 16, Algorithm: VCube, Rotate: true, Push: true, Vantage: 3}, 0)
	for _, c := range []struct {
		old, new Status
		stirs    bool
	}{{Unknown, FaultFree, false}, {FaultFree, Degraded, false}, {Degraded, FaultFree, false}, {FaultFree, Faulty, true}, {Faulty, FaultFree, true}} {
		n.noteReturn(3, Entry{Status: c.old}, Entry{Status: c.new, Counter: 1})
		if n.Calm() == c.stirs {
			t.Fatalf("%v to %v: calm %v", c.old, c.new, n.Calm())
		}
		for k := range stirIntervals {
			if n.Calm() != !c.stirs {
				t.Fatalf("%v to %v, %d intervals on: calm %v", c.old, c.new, k, n.Calm())
			}
			n.ageReturning()
		}
		if !n.Calm() {
			t.Fatalf("%v to %v: still stirred after %d intervals", c.old, c.new, stirIntervals)
		}
	}
}

// TestRefutedMeasurementSeesLoss: a node whose measurement of one node lost
// 48% of its requests sees loss on its own tests only when the agents it
// asked reached that node cleanly (a refuted measurement), and doubts itself
// once a second node's is refuted too.
func TestRefutedMeasurementSeesLoss(t *testing.T) {
	measured := evidence{sent: 50, unanswered: 24, lossy: [2]int{4}}
	var alone health
	if d := alone.add(measured); d.SeesLoss || d.Doubting {
		t.Fatalf("heavy loss to one node, not refuted: %+v", d)
	}
	refuted := measured
	refuted.refuted, refuted.refutedOn = 1, [2]int{4}
	var h health
	if d := h.add(refuted); !d.SeesLoss || d.Doubting || !d.Measure {
		t.Fatalf("heavy loss to one node, refuted: %+v; want it to see loss, and not doubt yet", d)
	}
	refuted.lossy, refuted.refutedOn = [2]int{6}, [2]int{6}
	if d := h.add(refuted); !d.Doubting {
		t.Fatalf("measurements of two nodes refuted: %+v; want it to doubt", d)
	}
}

// TestSettled: a measurement of 48 requests is settled once 20 are lost
// with 24 counted (Heavy whatever the rest do), or 39 answered (under 20%
// lost even if the rest are); not in between.
func TestSettled(t *testing.T) {
	n := ConfirmRequests
	for _, c := range []struct {
		answered, lost int
		want           bool
	}{
		{0, 0, false}, {4, 20, true}, {3, 20, false}, {0, 24, true}, {10, 19, false},
		{39, 0, true}, {38, 0, false}, {38, 10, false}, {20, 19, false}, {28, 20, true},
	} {
		if got := Settled(n, c.answered, c.lost); got != c.want {
			t.Errorf("Settled(%d, %d answered, %d lost) = %v", n, c.answered, c.lost, got)
		}
		// Settled means every way the rest could end gives the verdict the
		// counts give now.
		if !c.want {
			continue
		}
		now := Heavy(c.answered+c.lost, c.lost)
		for more := range n - c.answered - c.lost + 1 {
			if all := Heavy(n, c.lost+more); all != now {
				t.Errorf("Settled(%d, %d, %d), Heavy now %v, but %v with %d more lost and the rest answered", n, c.answered, c.lost, now, all, more)
			}
		}
	}
}

// TestUnsure: a measurement is measured again only between trustLoss and
// doubtLoss percent lost, once enough requests are counted.
func TestUnsure(t *testing.T) {
	for _, c := range []struct {
		sent, unanswered int
		want             bool
	}{
		{48, 19, true}, {48, 10, true}, {48, 9, false}, {48, 20, false}, {23, 9, false},
		{96, 38, true}, {96, 39, false}, {9, 1, false}, {0, 0, false},
	} {
		if got := Unsure(c.sent, c.unanswered); got != c.want {
			t.Errorf("Unsure(%d, %d) = %v", c.sent, c.unanswered, got)
		}
		if Unsure(c.sent, c.unanswered) && (Heavy(c.sent, c.unanswered) || Settled(c.sent, c.sent-c.unanswered, c.unanswered)) {
			t.Errorf("Unsure(%d, %d) and settled", c.sent, c.unanswered)
		}
	}
}

// TestDecided: the answers of the agents asked still matter only to a
// test that found the node down, or measured heavy loss that none of them
// measured too.
func TestDecided(t *testing.T) {
	n := ConfirmRequests
	for _, c := range []struct {
		st               Status
		sent, unanswered int
		seen             []Status
		want             bool
	}{
		{FaultFree, n, 0, nil, true},                      // a clean link: fault-free whatever they say
		{FaultFree, n, n / 2, nil, false},                 // heavy: a clean answer would refute it
		{FaultFree, n, n / 2, []Status{FaultFree}, false}, // one refutes so far: the rest may too, or not
		{FaultFree, n, n / 2, []Status{FaultFree, Degraded}, true},
		{Degraded, 2, 1, nil, true},             // held degraded, not measured
		{Faulty, 4, 4, []Status{Faulty}, false}, // down: every answer counts (second)
		{Partial, 4, 4, nil, false},
	} {
		if got := Decided(c.st, c.sent, c.unanswered, c.seen); got != c.want {
			t.Errorf("Decided(%v, %d sent, %d unanswered, %v) = %v", c.st, c.sent, c.unanswered, c.seen, got)
		}
	}
}

// TestCutCountsNoLoss: the interval that ends a cut, and the one after
// it, say nothing of a node's own link: its tests began while it was cut
// off, or as the links came back, and lost requests for that. A node cut
// off for two intervals whose tests then lose half their requests does not
// doubt itself; the same losses after those intervals make it doubt.
func TestCutCountsNoLoss(t *testing.T) {
	n := newTestNode(t, &Config{N: 16, Algorithm: VCube, Rotate: true, Push: true, Vantage: 3, Isolation: 2}, 0)
	for id := range 16 {
		n.View.Set(id, Entry{Status: FaultFree, Counter: 1})
	}
	run := func(answer func(op Op) Result) Report { t.Helper(); return runInterval(t, n, answer) }
	cut := func(op Op) Result { return Result{Status: Faulty, Sent: 4, Unanswered: 4, Seen: []Status{Unknown}} }
	// Half the requests lost, every node answering with a view like this
	// node's: what a link losing half its packets gives, or a heal.
	lossy := func(op Op) Result {
		if op.Kind == OpFetch {
			return Result{Err: errNoAnswer}
		}
		return Result{Status: FaultFree, Sent: 2 * ConfirmRequests, Unanswered: ConfirmRequests}
	}
	for k := range 3 {
		if rep := run(cut); rep.Isolated != k+1 {
			t.Fatalf("interval %d of the cut: isolated %d, want %d", k+1, rep.Isolated, k+1)
		}
	}
	for k := range afterCutIntervals {
		if rep := run(lossy); rep.Isolated != 0 || rep.Doubt.Sent != 0 || rep.Doubt.Doubting {
			t.Fatalf("interval %d after the cut: isolated %d, %+v; want no requests counted", k+1, rep.Isolated, rep.Doubt)
		}
	}
	doubted := false
	for range healthWindow {
		rep := run(lossy)
		doubted = doubted || rep.Doubt.Doubting
	}
	if !doubted {
		t.Fatal("half its requests lost once the cut was over: the node never doubted itself")
	}
}
