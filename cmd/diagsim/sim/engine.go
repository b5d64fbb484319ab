package sim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/hiadsd/lab"
)

// engine is the state of one run.
type engine struct {
	opt      Options
	rng      *rand.Rand
	nw       *lab.Network
	agenda   agenda
	gen      []uint32 // node incarnations; a repair starts a new one
	counts   []int32  // intervals finished per node
	global   *rounds
	trackers []*tracker // one per event, in schedule order; nil until it happens
	pending  int        // events not yet applied

	tests, units         int // in the round in progress
	doneTests, doneUnits int // in completed rounds
	doneRounds           int // rounds completed
	roundsAfter          int // rounds completed once every event was applied
	closedAt             int // global round in which the last event closed
	now                  float64
	flights              []flight // pushes sent, by item.flight-1
	causes               causes   // with Options.Group
}

// flight is one push on its way: who sent it, and its hop from the root.
type flight struct {
	from, hops int
	p          hiadsd.Push
}

// Run simulates opt and returns what happened.
func Run(opt Options) (Result, error) {
	if err := opt.Validate(); err != nil {
		return Result{}, err
	}
	e, err := newEngine(opt)
	if err != nil {
		return Result{}, err
	}
	if err := e.loop(); err != nil {
		return Result{}, err
	}
	r := e.result()
	if opt.Group > 0 {
		r.Notifications = e.causes.end(e)
	}
	return r, nil
}

func newEngine(opt Options) (*engine, error) {
	cfg := &hiadsd.Config{N: opt.N, TestedOnly: opt.TestedOnly, Push: opt.Push, Rotate: opt.Rotate}
	nw, err := lab.New(opt.Algorithm, cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadOptions, err)
	}
	nw.Reseed(opt.Seed)
	size := opt.N // every id a node may have, joiners included
	for _, ev := range opt.Events {
		if ev.Kind == Join {
			size++
		}
	}
	e := &engine{opt: opt, rng: rand.New(rand.NewPCG(opt.Seed, 0x9e3779b97f4a7c15)), nw: nw,
		gen: make([]uint32, size), counts: make([]int32, size), trackers: make([]*tracker, len(opt.Events))}
	for i, ev := range opt.Events {
		e.agenda.push(item{at: ev.Time, node: int32(ev.Node), event: int32(i)})
	}
	e.pending = len(opt.Events)
	for id := 0; id < opt.N; id++ {
		if nw.Testing(id) {
			e.begin(id, 0, opt.Start)
		}
	}
	e.global = newRounds(size, nw.Testing)
	return e, nil
}

// begin schedules node id's first interval from time at.
func (e *engine) begin(id int, at float64, start Start) {
	first := e.nextInterval()
	if start == Random {
		e.nw.SetNext(id, 1+e.rng.IntN(hiadsd.Levels(e.opt.N)))
		first = e.rng.Float64() * e.opt.Interval
	}
	e.agenda.push(item{at: at + first, node: int32(id), gen: e.gen[id], event: -1})
}

// nextInterval draws one interval length: Interval +/- up to Jitter.
func (e *engine) nextInterval() float64 {
	return e.opt.Interval + (2*e.rng.Float64()-1)*e.opt.Jitter
}

// loop runs until the stop rule holds or an automatic run hits its cap.
func (e *engine) loop() error {
	limit := 4*lab.LatencyBound(e.opt.Algorithm, e.opt.N) + 16
	for !e.finished(limit) {
		it, ok := e.agenda.pop()
		if !ok {
			return nil // every node is down: nothing can happen any more
		}
		e.now = it.at
		if it.flight > 0 {
			if err := e.deliver(int(it.flight) - 1); err != nil {
				return err
			}
			continue
		}
		if it.event >= 0 {
			if err := e.apply(int(it.event)); err != nil {
				return err
			}
			continue
		}
		if err := e.interval(it); err != nil {
			return err
		}
	}
	return nil
}

// finished applies the stop rule; an automatic run stops one full round after
// the round in which the last event was diagnosed.
func (e *engine) finished(limit int) bool {
	if e.pending > 0 {
		return false
	}
	if e.opt.Rounds >= 0 {
		return e.roundsAfter >= e.opt.Rounds
	}
	if e.roundsAfter >= limit {
		return true
	}
	if e.closedAt == 0 {
		for _, t := range e.trackers {
			if t.open {
				return false
			}
		}
		e.closedAt = e.global.index
	}
	return e.global.index > e.closedAt+1
}

// apply makes scheduled event i happen now.
func (e *engine) apply(i int) error {
	ev := e.opt.Events[i]
	for _, t := range e.trackers {
		if t != nil && (ev.Kind == StationSet) == (t.ev.Kind == StationSet) && (ev.Kind == StationSet || t.subject == ev.Node) {
			t.open = false // superseded before everyone saw it
		}
	}
	var station hiadsd.Station
	subject := ev.Node
	switch ev.Kind {
	case Join:
		id, err := e.nw.Join(ev.Node)
		if err != nil {
			return fmt.Errorf("event %v: %w", ev, err)
		}
		subject = id
		e.begin(id, e.now, e.opt.Start)
	case Leave:
		if err := e.nw.Leave(ev.Node, e.lowestOther(ev.Node)); err != nil {
			return fmt.Errorf("event %v: %w", ev, err)
		}
	case StationSet:
		if !e.nw.Testing(ev.Node) {
			return fmt.Errorf("event %v: node %d is not testing, so no station can be set there: %w", ev, ev.Node, ErrBadEvent)
		}
		ch, err := e.nw.SetStation(ev.Node, ev.Station(i))
		if err != nil {
			return fmt.Errorf("event %v: %w", ev, err)
		}
		station = ch.New
	default:
		if err := e.nw.SetState(ev.Node, ev.Kind.Status()); err != nil {
			return fmt.Errorf("event %v: %w", ev, err)
		}
	}
	if ev.Kind == Repair && e.nw.Testing(ev.Node) {
		e.gen[ev.Node]++
		e.begin(ev.Node, e.now, e.opt.Start)
	}
	e.pending--
	e.trackers[i] = newTracker(ev, subject, station, e.counts, e.nw)
	for _, t := range e.trackers {
		if t != nil && t.open && t != e.trackers[i] {
			t.recount(e.nw)
		}
	}
	if e.global.recount(e.nw.Testing) {
		e.closeRound()
	}
	return nil
}

// lowestOther returns the lowest testing node other than id, the one a
// leave event is made through.
func (e *engine) lowestOther(id int) int {
	for k := range e.counts {
		if k != id && e.nw.Testing(k) {
			return k
		}
	}
	return -1
}

// interval runs the node's testing interval that ends now and schedules the next.
func (e *engine) interval(it item) error {
	id := int(it.node)
	if it.gen != e.gen[id] || !e.nw.Testing(id) {
		return nil // the node failed; a repair schedules a fresh interval
	}
	if e.opt.Rotate { // the cluster of the round the clock is in, as every node derives it
		l := hiadsd.Levels(e.opt.N)
		e.nw.SetNext(id, int(e.now/e.opt.Interval)%l+1)
	}
	rep, err := e.nw.Step(id)
	if err != nil {
		return fmt.Errorf("node %d at %v: %w", id, e.now, err)
	}
	e.counts[id]++
	e.tests += rep.TestCount()
	e.units += rep.Units
	for _, t := range e.trackers {
		if t != nil {
			t.stepped(id, e.counts, e.nw, e.now)
		}
	}
	if e.global.finished(id, e.nw.Testing) {
		e.closeRound()
	}
	e.agenda.push(item{at: e.now + e.nextInterval(), node: it.node, gen: it.gen, event: -1})
	e.send(id, rep.Pushes, 1)
	e.causes.take(e, id, rep.Report)
	return nil
}

// send puts pushes from node from on the wire: each arrives HopDelay later,
// as hop hops from the node that found the event.
func (e *engine) send(from int, pushes []hiadsd.Push, hops int) {
	for _, p := range pushes {
		p.Entries = slices.Clone(p.Entries)
		e.flights = append(e.flights, flight{from: from, hops: hops, p: p})
		e.agenda.push(item{at: e.now + e.opt.HopDelay, node: int32(p.To), event: -1, flight: int32(len(e.flights))})
	}
}

// deliver hands push k to its node, which merges it and passes it on; a
// node that is down (or cut off) does not take it, and the sender's next
// alternate gets it one hop delay later (the sender's wait for the answer
// that did not come).
func (e *engine) deliver(k int) error {
	f := e.flights[k]
	e.flights[k].p.Entries = nil
	rep, err := e.nw.Deliver(f.from, f.p)
	if errors.Is(err, lab.ErrNoAnswer) {
		if len(f.p.Alternates) > 0 {
			f.p.To, f.p.Alternates = f.p.Alternates[0], f.p.Alternates[1:]
			e.flights = append(e.flights, f)
			e.agenda.push(item{at: e.now + e.opt.HopDelay, node: int32(f.p.To), event: -1, flight: int32(len(e.flights))})
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("push from %d to %d at %v: %w", f.from, f.p.To, e.now, err)
	}
	for _, t := range e.trackers {
		if t != nil {
			t.pushed(f.p.To, f.hops, e.counts, e.nw, e.now)
		}
	}
	e.send(f.p.To, rep.Pushes, f.hops+1)
	e.causes.take(e, f.p.To, rep.Report)
	return nil
}

// closeRound books the round that just ended.
func (e *engine) closeRound() {
	e.doneTests += e.tests
	e.doneUnits += e.units
	e.tests, e.units = 0, 0
	e.doneRounds++
	if e.pending == 0 {
		e.roundsAfter++
	}
}

// result assembles the Result.
func (e *engine) result() Result {
	r := Result{Algo: e.opt.Algorithm.String(), N: e.opt.N, Start: e.opt.Start.String(), Seed: e.opt.Seed,
		Events: make([]EventResult, 0, len(e.trackers)), Rounds: e.doneRounds, EndTime: e.now, Pushes: len(e.flights)}
	if e.doneRounds > 0 {
		r.TestsPerRound = float64(e.doneTests) / float64(e.doneRounds)
		r.UnitsPerRound = float64(e.doneUnits) / float64(e.doneRounds)
	}
	for _, t := range e.trackers {
		if t != nil {
			ev := t.result()
			if t.ev.Kind == Join || t.ev.Kind == Leave {
				ev.BoundRounds = hiadsd.MembershipBound(e.nw.Config().Algorithm, e.nw.Config().N)
			}
			r.Events = append(r.Events, ev)
		}
	}
	return r
}
