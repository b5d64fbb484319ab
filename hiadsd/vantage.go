package hiadsd

import (
	"math"
	"slices"
)

// A second vantage point. The diagnosis trusts a fault-free tester's word,
// and a tester whose own link loses packets (a flaky NIC, cable or switch
// port) is still fault-free to its own tester most of the time: its failed
// tests would become the cluster's truth. SWIM answers with indirect
// probes, Rapid with alerts from several observers. Here, with
// Config.Vantage = k, a test that finds a node faulty or partial where the
// view holds it up (or unknown) names, in Op.Via, up to k other
// agents, from the node's largest clusters down (vantages). The caller asks them to test it while its
// own re-test runs, and hands back what they found (Result.Seen). The
// verdict (TestResult.Second) is then:
//
//   - Refuted when one of them reached the node fault-free: the view keeps
//     what it held, nothing is reported or pushed, and the test counts
//     against the tester's own health;
//   - Confirmed when none reached it and one found it faulty or partial
//     too: believed, as before;
//   - Unheard when none answered: not believed either, since a fault-free
//     agent that does not answer its tester is the tester's fault far more
//     often than a crash of every one of them (the node's other testers,
//     asking others, find a real crash); and whatever they said when the
//     tester itself stopped within the test (Result.Stopped: its host
//     stalled, and helpers that stalled with it confirm what none of them
//     could see);
//   - Holding when one of them found the node degraded, or holds it so
//     (the node said it doubts its own link: its loss explains the
//     failure, and the tester's health is not at stake); or when the view
//     holds it Degraded and it has not been silent to this tester for
//     degradedHold intervals in a row: a member that loses most of its
//     packets still answers now and then, and each answer would undo the
//     failure (a flap between faulty and degraded at every tester). The
//     tester tests it again in each interval of the hold (Node.Ask), so a
//     degraded member that crashes is known after degradedHold intervals;
//   - Alone when there is no other agent to ask (none held fault-free, or
//     every one asked refused the question: an older agent, or busy ones
//     while the tester itself did not stall: agent/daemon), or the tester
//     is cut off past Config.Isolation's hold (isolation.go) with no loss
//     seen on its tests of live nodes lately (a lossy link is cut off now
//     and then, a node that outlived the others for good): its word
//     stands, as the papers have it.
//
// A real crash is found by the other vantage points as by the tester, in
// about the time the tester's own re-test of a new verdict takes already,
// so the latency of the diagnosis stays within the interval (docs/design.md).

// Second is what other vantage points said of a failure a test found.
type Second uint8

// The outcomes; SecondNone for a test that needed none: it found the node
// fault-free, or a failure the view held already, or Config.Vantage is 0.
const (
	SecondNone Second = iota
	Confirmed
	Alone
	Refuted
	Unheard
	Holding
)

// Believed reports whether the verdict is applied to the view.
func (s Second) Believed() bool { return s != Refuted && s != Unheard && s != Holding }

// String names the outcome for logs.
func (s Second) String() string {
	return [...]string{"", "confirmed", "alone", "refuted", "unheard", "holding"}[min(int(s), 5)]
}

// vantages appends to *buf, and returns, the agents a test of j asks should
// it find a new failure: up to Config.Vantage agents this node holds
// fault-free, other than itself and j: the nearest one to this node
// (nearVantage), then one per cluster of j from the
// largest down (the farthest from j in the hypercube, so the least likely
// to share its switch port or subnet), each at a place in its cluster
// drawn from this node's and j's ids and the cluster, so that j's testers
// ask different agents and no place is tied to another cluster's; then a second per cluster, and so on. None without
// Config.Vantage.
func (n *Node) vantages(j int, buf *[]int) []int {
	k := n.Config.Vantage
	if k == 0 {
		return nil
	}
	lo := len(*buf)
	l := Levels(n.Config.N)
	if near := n.nearVantage(j); near >= 0 {
		*buf = append(*buf, near)
	}
	for from := 0; len(*buf)-lo < k; from++ {
		took := false
		for s := l; s >= 1 && len(*buf)-lo < k; s-- {
			size := 1 << (s - 1)
			if from >= size {
				continue
			}
			start := int(mix(uint64(n.ID)<<40|uint64(j)<<8|uint64(s)) % uint64(size)) // drawn apart for each cluster
			seen := 0
			for m := range size {
				t := j ^ size ^ (start+m)%size
				if t >= n.Config.N || t == n.ID || !n.isTester(t) || slices.Contains((*buf)[lo:], t) {
					continue
				}
				if seen == from {
					*buf = append(*buf, t)
					took = true
					break
				}
				seen++
			}
		}
		if !took {
			break
		}
	}
	return (*buf)[lo:len(*buf):len(*buf)]
}

// nearVantage returns the first agent this node holds fault-free in its
// own smallest cluster that has one, other than j; -1 if none. It is the
// one vantage point asked from the tester's side rather than the
// target's: when a switch cuts the target off with its neighbours, the
// agents nearest the target cannot be reached to answer either, and a
// failure only agents beyond the cut could confirm would go unheard.
func (n *Node) nearVantage(j int) int {
	for s := 1; s <= Levels(n.Config.N); s++ {
		size := 1 << (s - 1)
		base := (n.ID ^ size) &^ (size - 1)
		for t := base; t < base+size && t < n.Config.N; t++ {
			if t != j && t != n.ID && n.isTester(t) {
				return t
			}
		}
	}
	return -1
}

// mix is SplitMix64's finalizer: a fixed, well-spread hash of x.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// second judges a real test answer a about j (see the comment above).
func (iv *interval) second(j int, a *testAnswer) Second {
	n := iv.node
	if n.Config.Vantage == 0 || (a.status != Faulty && a.status != Partial) {
		return SecondNone
	}
	held := n.View.Get(j).Status
	if !held.Up() && held != Unknown {
		return SecondNone
	}
	if a.stopped {
		return Unheard
	}
	confirmed, lossy := false, false
	for _, st := range a.seen {
		switch st {
		case FaultFree:
			return Refuted
		case Degraded:
			lossy = true
		case Faulty, Partial:
			confirmed = true
		}
	}
	switch {
	case (lossy || held == Degraded) && n.silent[j]+1 < degradedHold:
		return Holding // its own link explains the failure, not this tester's
	case confirmed || lossy: // silent to this tester degradedHold intervals running: down
		return Confirmed
	case n.Config.Isolation > 0 && n.isolated >= n.Config.Isolation && !n.Measuring():
		return Alone // cut off past the hold, with no sign of a lossy link: the last one standing
	case !n.Doubting() && (a.noneAsked || len(n.vantages(j, &iv.m.via)) == 0):
		return Alone
	}
	return Unheard
}

// A lossy member named from outside. A member whose link loses most of its
// packets may not doubt itself soon enough to say so (at 80% each way it
// answers one request in twenty-five, and its own tests find everything
// down, which is no evidence against its link): its testers must name it.
// The caller measures the link where it matters, spreading
// ConfirmRequests requests over the wait of the re-test of a new failure,
// over every test of a node held Degraded, of a node held fault-free that
// lost a request of the test (ended early when the link proves clean) or
// says it sees loss on its own tests, and over every test that answers
// another agent's question; one answer
// among them proves the node alive. A node that answers, but loses
// doubtLoss percent or more of them (Heavy), is Degraded when a second
// vantage point measured the same (an agent asked answered Degraded:
// Answer) or the view holds it so already; a measurement that lost less
// than trustLoss percent ends it. A lossy tester cannot make a healthy
// node degraded this way: the agents it asks reach that node cleanly, and
// the loss counts against the tester's own health. A crash is found as
// before: no request of the burst is answered.

// A measurement names nobody while the view is stirred (Calm): a link
// coming back, and the hosts catching up with the news of a heal, lose
// requests for a moment, as a lossy link does for good.

// stirIntervals is how many intervals a status change (neither to nor from
// Degraded, nor a first verdict) keeps the view stirred: the one it came
// in and two more.
const stirIntervals = 3

// Calm reports whether no status change (neither to nor from Degraded,
// nor a first verdict) came into the view in its last stirIntervals
// intervals: only then does a measurement of loss name a node degraded,
// here (measured) or as an answer to another agent (Answer).
func (n *Node) Calm() bool { return n.stirred == 0 }

// ConfirmRequests is how many requests the caller spreads over a re-test
// to measure a node's link: at 80% loss each way (one round trip in 25), a
// test, its re-test and these find a live node silent about once in nine,
// and the tester and all three agents asked together once in several
// thousand.
const ConfirmRequests = 48

// confirmMin is how many requests a test must have sent for its share of
// loss to say anything: only a test that measured (ConfirmRequests) has.
const confirmMin = ConfirmRequests / 2

// Heavy reports whether a test that sent sent requests, unanswered of
// them lost, measured a lossy link: confirmMin or more sent, doubtLoss
// percent or more of them lost.
func Heavy(sent, unanswered int) bool {
	return sent >= confirmMin && 100*unanswered >= doubtLoss*sent
}

// Settled reports whether a measurement of n requests, answered and lost
// of them so far (the rest under way or not sent yet), says what it will
// say however the rest end: Heavy already, with doubtLoss percent of all n
// lost; or less than trustLoss percent lost even if every other request
// is. The caller ends it then, and counts the rest as never sent: on a
// lossy link the verdict is known as soon as enough requests are lost,
// not once the last one's wait runs out, and on a clean one once enough
// are answered.
func Settled(n, answered, lost int) bool {
	return Heavy(answered+lost, lost) && 100*lost >= doubtLoss*n || 100*(n-answered) < trustLoss*n
}

// Unsure reports whether a measurement (sent requests, unanswered of them
// lost) is too close to call: enough counted (confirmMin), and less than
// doubtLoss but at least trustLoss percent lost. A link losing half its
// round trips measures under doubtLoss percent about one time in ten with
// ConfirmRequests requests (a binomial tail); the caller measures once
// more and judges the two together, about one time in fifty. A clean link
// is sure at once, and a link losing a tenth of its round trips is never
// Heavy over both (about one in a million at a fifth).
func Unsure(sent, unanswered int) bool {
	return sent >= confirmMin && !Heavy(sent, unanswered) && 100*unanswered >= trustLoss*sent
}

// CleanRequests is how many of the first requests of a measurement begun
// on a hint of loss (one request of a test lost: perhaps a reply late on a
// busy host) must be answered to end it: the link is clean. A link losing
// doubtLoss percent of its round trips answers all 8 about once in 60.
const CleanRequests = 8

// Answer is what an agent answers another agent's question with, given
// its own test of the node (status st, sent and unanswered requests, the
// ConfirmRequests included), what its view held of the node before it
// (held), and whether it may name a node degraded (sure: it neither
// doubts its own tests nor sees loss on them, and its view is Calm):
// Degraded for a node held up and alive with Heavy loss, measured by an
// agent that is sure; else what the test found. A node held unknown or
// down is not named so: what its requests lost may be from before it
// started or came back (measured).
func Answer(st, held Status, sent, unanswered int, sure bool) Status {
	if st.Up() && held.Up() && sure && Heavy(sent, unanswered) {
		return Degraded
	}
	return st
}

// Decided reports whether more answers from the agents a test asked can
// no longer change what a test of a live node (status st, sent and
// unanswered requests, its measurement included) comes to, given those
// seen so far: its loss is not Heavy, so it is fault-free (or stays
// degraded) whatever they say; or it is Heavy and one of them measured the
// node degraded too (measured). A test that found the node down needs them
// all (second).
func Decided(st Status, sent, unanswered int, seen []Status) bool {
	return st.Up() && (!Heavy(sent, unanswered) || slices.Contains(seen, Degraded))
}

// measured is the status a real test answer a about j gives once the
// loss it measured is judged (see "A lossy member named from outside").
func (iv *interval) measured(j int, a *testAnswer) Status {
	n := iv.node
	if n.Config.Vantage == 0 || a.status != FaultFree {
		return a.status
	}
	held := n.View.Get(j).Status
	heavy := Heavy(a.sent, a.unanswered)
	switch {
	case !held.Up():
		// A first verdict, or a return: the requests lost may be from before
		// the node's agent started or came back. Its next test measures it,
		// if it still loses them.
		return FaultFree
	case held == Degraded && (a.sent < confirmMin || 100*a.unanswered >= trustLoss*a.sent):
		return Degraded // not measured, or still losing trustLoss percent (no flap about doubtLoss)
	case heavy && !n.Doubting() && !n.SeesLoss() && n.Calm() && slices.Contains(a.seen, Degraded):
		return Degraded
	}
	return FaultFree
}

// A tester's own health (Lifeguard's local health, seen from the tester).
// A node whose failures other vantage points refute, or whose requests go
// unanswered by nodes that prove alive, doubts itself.
// Over the last healthWindow intervals: two such failures, of two nodes or
// more, with some request lost to a node that did answer (a host behind a
// firewall that blocks a few agents loses nothing to the others, and its
// testers that the firewall blocks are refuted about it alone); or, of at least
// doubtRequests requests, doubtLoss percent or more unanswered, on the
// tests of two nodes or more (a tester of one lossy node is not at fault:
// it loses requests to that node only, a small share of all it sends; a
// lossy tester loses them to whichever node it tests). One test an
// interval is too few samples to tell a 10% link from a 30% one in a few
// intervals, so while the window holds a refuted failure, or loss of
// measureLoss percent over two nodes or more, or two requests lost or more
// and half of all it sent (a link losing half its packets shows that in
// one test, a reply late now and then on a loaded host does not), or a
// measurement of heavy loss that every agent asked refuted (they reached
// the node cleanly: counted as a refuted failure, on that node), the
// caller adds MeasureRequests requests to each test of a live node (Doubt.Measure):
// none at steady state, where a reply late now and then on a loaded host
// is the only loss. While it doubts, its word is never taken alone
// (Second Alone is not given), and the caller stretches its waits and
// says so. It stops doubting once the window holds no refuted failure and
// less than trustLoss percent of its requests lost. Tests of a node that
// stays down (a confirmed failure, or one held already) are no evidence
// either way: a tester of a dead node is not at fault.
const (
	healthWindow  = 8
	doubtRefuted  = 2
	doubtRequests = 24
	doubtLoss     = 40
	doubtTargets  = 2
	trustLoss     = 20
	measureLoss   = 20
	measureHalf   = 50
	// MeasureRequests is how many requests the caller adds to a test of
	// a live node while Doubt.Measure is set.
	MeasureRequests = 24
	// degradedHold is how many intervals in a row a node held Degraded
	// must be silent to a tester before its failure is believed (Holding).
	// At 80% loss each way a member answers one test in five or so, with
	// its vantage points about two in five: silent eight intervals running
	// about once in a thousand.
	degradedHold = healthWindow
)

// Doubt is a node's own health over its last intervals.
type Doubt struct {
	// Doubting says the node doubts its own tests.
	Doubting bool
	// Measure asks the caller to add MeasureRequests requests to each
	// test of a live node: the window holds a refuted failure or loss over
	// two nodes, or the node doubts.
	Measure bool
	// SeesLoss says the window holds loss on the tests of live nodes (two
	// requests lost and half of all sent, or measureLoss percent over two
	// nodes or more): the node says so to its testers, which measure its
	// link (diagViewDigest's ninth octet 2).
	SeesLoss bool
	// Refuted counts its failures other vantage points refuted; Sent and
	// Unanswered its requests to nodes that answered; Targets the nodes
	// whose tests lost requests or were refuted.
	Refuted, Sent, Unanswered, Targets int
}

// health is the window Doubt is computed over. One is kept for every
// node that has second vantage points, so it stays small (80 octets): at
// 65,536 nodes the simulator's time goes to reading nodes from memory.
type health struct {
	counts   [healthWindow]counts                      // each interval's requests and refutations
	names    *[healthWindow][2][2]int32                // the nodes each interval named (lossy, refutedOn); nil until one did
	sum      struct{ refuted, sent, unanswered int32 } // counts summed
	at       uint8                                     // the slot the next interval takes
	naming   uint8                                     // intervals of the window that name a node
	doubting bool
	measure  bool
	seesLoss bool
}

// counts is an interval's evidence without the nodes it names, each count
// held at 65,535 at most (an interval's tests send a few hundred requests
// at most: 72 each, measured).
type counts struct{ refuted, sent, unanswered uint16 }

// count16 is n held within a counts field.
func count16(n int) uint16 { return uint16(min(max(n, 0), math.MaxUint16)) }

// evidence is one interval's; lossy lists (as id+1, 0 for none) up to two
// nodes whose tests lost requests, refutedOn up to two whose failures
// were refuted.
type evidence struct {
	refuted, sent, unanswered int
	lossy, refutedOn          [2]int
}

// add takes an interval's evidence and returns the health that follows.
func (h *health) add(e evidence) Doubt {
	old, now := h.counts[h.at], counts{count16(e.refuted), count16(e.sent), count16(e.unanswered)}
	h.counts[h.at] = now
	h.sum.refuted += int32(now.refuted) - int32(old.refuted)
	h.sum.sent += int32(now.sent) - int32(old.sent)
	h.sum.unanswered += int32(now.unanswered) - int32(old.unanswered)
	named := e.lossy != [2]int{} || e.refutedOn != [2]int{}
	if named && h.names == nil {
		h.names = new([healthWindow][2][2]int32)
	}
	if h.names != nil {
		was := h.names[h.at] != [2][2]int32{}
		h.names[h.at] = [2][2]int32{{int32(e.lossy[0]), int32(e.lossy[1])}, {int32(e.refutedOn[0]), int32(e.refutedOn[1])}}
		h.naming = uint8(int(h.naming) + b2i(named) - b2i(was))
	}
	h.at = (h.at + 1) % healthWindow
	d := Doubt{Refuted: int(h.sum.refuted), Sent: int(h.sum.sent), Unanswered: int(h.sum.unanswered)}
	var targets, refutedOn []int32
	distinct := func(to *[]int32, ids [2]int32) {
		for _, id := range ids {
			if id != 0 && !slices.Contains(*to, id) {
				*to = append(*to, id)
			}
		}
	}
	for k := 0; h.naming > 0 && k < healthWindow; k++ { // the common case names none: no walk
		distinct(&targets, h.names[k][0])
		distinct(&refutedOn, h.names[k][1])
	}
	d.Targets = len(targets)
	lossy := func(pct int) bool { return 100*d.Unanswered >= pct*d.Sent }
	if h.doubting {
		h.doubting = d.Refuted > 0 || d.Sent == 0 || lossy(trustLoss)
	} else {
		refuted := d.Refuted >= doubtRefuted && len(refutedOn) >= 2 && d.Unanswered > 0
		h.doubting = refuted || d.Sent >= doubtRequests && lossy(doubtLoss) && d.Targets >= doubtTargets
	}
	d.Doubting = h.doubting
	d.SeesLoss = d.Targets >= doubtTargets && lossy(measureLoss) || d.Unanswered >= 2 && lossy(measureHalf) ||
		d.Refuted > 0 && d.Unanswered >= 2 && lossy(measureLoss) // a measurement refuted: its testers measure it now
	d.Measure = h.doubting || d.Refuted > 0 || d.SeesLoss
	h.measure, h.seesLoss = d.Measure, d.SeesLoss
	return d
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Doubting reports whether the node doubts its own tests.
func (n *Node) Doubting() bool { return n.health != nil && n.health.doubting }

// Measuring reports whether the caller adds MeasureRequests requests to
// each test of a live node (Doubt.Measure).
func (n *Node) Measuring() bool { return n.health != nil && n.health.measure }

// SeesLoss reports whether the node sees loss on its tests of live nodes
// (Doubt.SeesLoss).
func (n *Node) SeesLoss() bool { return n.health != nil && n.health.seesLoss }

// evidence notes what a real test answer a of j, judged got and second,
// says of this node's own link.
func (iv *interval) evidence(j int, a *testAnswer, got Status, second Second) {
	if iv.node.Config.Vantage == 0 {
		return
	}
	e := &iv.health
	held := iv.node.View.Get(j).Status // before this test: record follows
	switch {
	case got == Degraded: // the node's own link explains what it lost
		return
	case a.status.Up() && !held.Up():
		// A return, or a first verdict: its requests lost may be from
		// before the node came back or started (a test that began while a
		// cut still held lost every first try, and after a switch heals
		// that was every node beyond it).
		return
	case a.status.Up():
		e.sent += a.sent
		e.unanswered += a.unanswered
		if Heavy(a.sent, a.unanswered) && cleanElsewhere(a.seen) { // its measurement refuted: the loss is this node's
			e.refuted++
			note(&e.refutedOn, j)
		}
	case second == Refuted: // its requests do not count: a firewall may block this node alone
		e.refuted++
		note(&e.refutedOn, j)
	default:
		return // down, or unheard: in a partition a tester's questions go unanswered through no fault of its own
	}
	if a.unanswered > 0 {
		note(&e.lossy, j)
	}
}

// afterCutIntervals is how many intervals, the one that ends a cut
// included, say nothing of a node's own link: the requests its tests lost
// then are the cut's, and at a heal links coming back and peers catching
// up lose some more for a moment.
const afterCutIntervals = 2

// ownEvidence returns what the interval's tests say of this node's own
// link: nothing in the interval that ends a cut (wasCut: the node was cut
// off as it began, isolation.go) and the one after it; else iv.health.
func (iv *interval) ownEvidence(wasCut bool) evidence {
	n := iv.node
	if wasCut && n.isolated == 0 {
		n.afterCut = afterCutIntervals
	}
	if n.afterCut > 0 {
		n.afterCut--
		return evidence{}
	}
	return iv.health
}

// cleanElsewhere reports whether the agents asked about a node this node
// measured heavy loss to all reached it cleanly (at least one answered,
// every answer fault-free): the loss is on this node's side, as a failure
// they refute would be.
func cleanElsewhere(seen []Status) bool {
	for _, s := range seen {
		if s != FaultFree {
			return false
		}
	}
	return len(seen) > 0
}

// note keeps j (as j+1) in ids, if there is room and it is not there yet.
func note(ids *[2]int, j int) {
	for k := range ids {
		if ids[k] == 0 || ids[k] == j+1 {
			ids[k] = j + 1
			return
		}
	}
}

// isDoubted reports whether j's failure, tested now, was not believed.
func (iv *interval) isDoubted(j int) bool { return slices.Contains(iv.doubted, j) }

// afterTests carries, once a pass is the interval, what its tests say
// beyond the view: of a degraded node's silence (Holding), one more
// interval for a failure held, and a new test the next interval, and an
// end to it for any other outcome; of the nodes out of this node's reach
// alone (Unreached).
func (n *Node) afterTests(tests []TestResult) {
	if n.Config.Vantage == 0 { // no test is Refuted or Holding
		return
	}
	for id, left := range n.unreached {
		if left <= 1 || n.Doubting() {
			delete(n.unreached, id)
		} else {
			n.unreached[id] = left - 1
		}
	}
	for _, t := range tests {
		switch {
		case t.Second == Refuted && !n.Doubting():
			if n.unreached == nil {
				n.unreached = map[int]int{}
			}
			n.unreached[t.Target] = 2*Levels(n.Config.N) + 2
		case t.Status.Up():
			delete(n.unreached, t.Target)
		}
		if t.Second != Holding {
			delete(n.silent, t.Target)
			continue
		}
		if n.silent == nil {
			n.silent = map[int]int{}
		}
		n.silent[t.Target]++
		n.Ask(t.Target)
	}
}

// Unreached returns, in order, the nodes this node cannot reach though
// other agents do: reachable from some, not from others (a host firewall
// that allows one subnet, an ACL on one switch port). A failure of such a
// node that another agent refuted, at a node that does not doubt its own
// link, puts it here; the view keeps it up, so its status does not change
// as the rotating plan turns its testers. It stays until this node's own
// test reaches it, or 2·log2 N + 2 intervals pass without another refuted
// failure (the rotating plan tests a node from here once every log2 N
// intervals), or this node doubts its own link.
func (n *Node) Unreached() []int {
	out := make([]int, 0, len(n.unreached))
	for id := range n.unreached {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}
