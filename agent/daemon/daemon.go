package daemon

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/flap"
	"github.com/diagagent/diagagent/agent/keyring"
	"github.com/diagagent/diagagent/agent/lag"
	"github.com/diagagent/diagagent/agent/membership"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/agent/notify"
	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/agent/state"
	"github.com/diagagent/diagagent/agent/viewmetrics"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
	"github.com/diagagent/diagagent/traps"
)

// maxEvents bounds the event table; the oldest rows are dropped first.
const maxEvents = 1024

// Notifier is what the daemon needs from traps.Notifier.
type Notifier interface {
	NodeStatusChange(mib.Event) error
	NMSChange(hiadsd.Station) error
	NodeListMismatch(traps.ListMismatch) error
	NodeListChange(traps.ListChange) error
	NodeKeyRefused(traps.KeyRefused) error
	NodeFlapping(traps.Flapping) error
	NodeMaintenanceEnded(traps.MaintenanceEnded) error
	NodeListConflict(traps.ListConflict) error
	CauseChange(traps.Cause) error
}

// Config is what a Daemon runs with.
type Config struct {
	// Nodes is the node list the file gives (ids are positions), each member
	// with its name, community and OID; Self is this node's index in it.
	Nodes []nodelist.Member
	Self  int
	// Algorithm is the diagnosis algorithm; Rotate asks vCube for the
	// rotating plan (one cluster an interval, taken in turn by the clock),
	// where the full plan runs all log2 N testers every interval.
	Algorithm hiadsd.Algorithm
	Rotate    bool
	// Interval is the testing interval.
	Interval time.Duration
	// TestBudget is the longest one test can take (probe.Config.TestBudget):
	// hiADSDisUP turns 0 when no interval began or ended for two intervals
	// and four budgets.
	TestBudget time.Duration
	// Station is the management station until nmsID is set (the station the
	// state kept wins); the zero Addr is none.
	Station netip.Addr
	// StartupGrace holds back, this long after start, a first faulty or
	// partial verdict about a node this agent has never seen up.
	StartupGrace time.Duration
	// Notify says which agents notify a node's status change: its owner
	// alone (the default), each agent that tested it, or every agent.
	Notify notify.Scope
	// RecoveryHold holds the notification that a node is fault-free again
	// until it has held this long (agent/notify/hold.go); 0 notifies it at once.
	RecoveryHold time.Duration
	// PartialHold holds the notification that a node is partial until it
	// has held this long (agent/notify/hold.go); 0 notifies it at once.
	PartialHold time.Duration
	// GroupWindow is how long after a node's fault others join it in one
	// notification (agent/notify/causes.go); 0 notifies each node on its own.
	GroupWindow time.Duration
	// StateDir holds what survives a restart.
	StateDir string
	// Keys are the keyring file's cluster keys, the one to send with first;
	// none without a keyring. The keys the agent runs are the node list's
	// (nodelist.List.Keys): these are its keys at version 0, and a change
	// of them since the last start is applied as a change of the list.
	Keys []keyring.Key
	// Flapping holds the thresholds a node flaps between (agent/flap).
	Flapping flap.Config
	// Vantage is how many other agents are asked to test a node this
	// agent's test finds newly faulty or partial (hiadsd.Config.Vantage,
	// vantage.go); 0 believes every test. It needs a prober that can write
	// to peers.
	Vantage int
}

// DefaultVantage is Config.Vantage's default: SWIM's k of indirect probes.
const DefaultVantage = 3

// Default returns the daemon's defaults, the configuration file's: vCube
// on the rotating plan every 2 s, a 30 s start-up grace, notifications of
// what this agent tested, state in state.DefaultDir (/var/lib/diagagent on
// Linux). It has no nodes.
func Default() Config {
	return Config{
		Algorithm:    hiadsd.VCube,
		Rotate:       true,
		Interval:     2 * time.Second,
		TestBudget:   probe.Default().TestBudget(),
		StartupGrace: 30 * time.Second,
		RecoveryHold: 10 * time.Second,
		PartialHold:  5 * time.Second,
		StateDir:     state.DefaultDir,
		Flapping:     flap.Default(),
		Vantage:      DefaultVantage,
	}
}

// Options are the parts a Daemon is built from; New checks them.
type Options struct {
	// Config is the daemon's configuration.
	Config Config
	// Prober tests peers and reads their diagTree.
	Prober Prober
	// Board receives every snapshot of the view; the responder, the notifier
	// and the page read it there.
	Board *board.Board
	// Notifier sends notifications; nil sends none.
	Notifier Notifier
	// State is what state.Load found under state_dir.
	State state.State
	// Log receives one line per event; nil discards.
	Log *logrus.Entry
	// Observe, if set, is called after every interval with what it did.
	Observe func(IntervalInfo)
	// OnKeys, if set, is called on the loop with the cluster keys the agent
	// runs each time they change (Ring gives the first ones).
	OnKeys func(keyring.Ring)
	// Lookup resolves the host name of a node a manager adds by name; nil
	// refuses such a node.
	Lookup nodelist.Lookup
	// Now is the clock; nil means time.Now, and only then do timers run
	// (the group window's: a test's clock moves by hand, and its loop sends
	// what is due). Rand draws the jitter; nil seeds one.
	Now  func() time.Time
	Rand *rand.Rand
}

// Daemon runs the diagnosis loop of one node. It is three parts, each of
// its own file: the loop that drives the core (this file, peers.go,
// push.go, rounds.go, isolation.go), the node list it runs (runList,
// members.go, with the room agent/membership) and what it says (journal,
// record.go, nms.go, with the room agent/notify).
type Daemon struct {
	cfg    Config
	id     int // this node's id in the list it runs
	log    *logrus.Entry
	board  *board.Board
	notify Notifier
	now    func() time.Time
	// realClock is set when now is time.Now: timers may then run on it.
	realClock bool
	start     time.Time
	observe   func(IntervalInfo)
	met       viewmetrics.Loop
	viewMet   *viewmetrics.Collector // the published snapshot's metrics

	loop
	runList
	journal
	hi  hello          // nodes that asked to be tested now (under mu, but early: the loop's)
	lag *lag.Watch     // the agent's own CPU health (starve.go)
	pol *notify.Policy // which events reach the station, when, and grouped how

	// mu guards what the responder's SET, the watchdog and the saves share
	// with the loop: the journal's state and snapshot, the list queued and
	// the nodes moved.
	mu sync.Mutex
	// changing makes the changes of the list one at a time, each with its
	// save (a manager's SET, a reload, a merge); saving writes one state
	// file at a time, each taken when its turn comes, so a later state is
	// never overwritten by an earlier one.
	changing   sync.Mutex
	saving     sync.Mutex
	stretching sync.Mutex // the prober's stretches, one at a time (restretch)
}

// loop is the diagnosis loop's own: the core's node and its machine, the
// prober and the pushes; owned by the loop goroutine.
type loop struct {
	node         *hiadsd.Node
	machine      hiadsd.Interval // the node's interval machine, reused from one interval to the next
	view         hiadsd.Dense
	prober       Prober
	rng          *rand.Rand
	push         pushing                 // pushes received, waiting for the loop, and sent
	vantage      vantage                 // questions asked of peers and asked by them (vantage.go)
	learning     atomic.Bool             // a pass of learnEngines runs (engines.go)
	enginesKnown bool                    // every other agent's engine was known at the last pass (engines.go); the loop's
	listSince    time.Time               // when the list run last changed
	pushes       bool                    // pushes are sent (the prober can write)
	told         map[int]bool            // peers whose partial verdict's likely cause was logged, until they test otherwise
	refusing     map[int]bool            // peers that refused every cluster key at this agent's last test of them
	lagging      bool                    // every agent tested last refused every key: this agent missed a rotation
	flaps        *flap.Detector          // which nodes flap, judged on the view every interval
	extra        bool                    // the interval under way is one more than the plan's (a hello, a link down): not a flapping sample
	sample       bool                    // the record under way is a planned interval's: the flapping detector samples the view
	isolated     int                     // the core's Report.Isolated of the last interval
	maintOpen    map[int]nodelist.Window // the maintenance windows open at the last interval's end, by node
	setNMS       *hiadsd.Station         // a station SET since the last interval began, for the core (under mu)
}

// New builds a Daemon; the view starts unknown with the counters st kept.
func New(o Options) (*Daemon, error) {
	if o.Prober == nil || o.Board == nil {
		return nil, errors.New("daemon: Options need a Prober and a Board")
	}
	if o.Log == nil {
		l := logrus.New()
		l.SetLevel(logrus.PanicLevel)
		o.Log = logrus.NewEntry(l)
	}
	c := o.Config
	if _, ok := o.Prober.(seconding); !ok || !o.Prober.CanPush() {
		c.Vantage = 0 // no other agent can be asked: every test is believed
	}
	if c.Self < 0 || c.Self >= len(c.Nodes) {
		return nil, fmt.Errorf("node id %d outside the %d nodes of the file: %w", c.Self, len(c.Nodes), hiadsd.ErrBadConfig)
	}
	kept, err := state.LoadKeys(c.StateDir)
	if err != nil {
		return nil, err
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	host, met := &membersHost{}, viewmetrics.NewLoop()
	members, s, err := membership.New(membership.Options{Nodes: c.Nodes, Self: c.Self, Keys: c.Keys, Kept: kept, StateDir: c.StateDir,
		Interval: c.Interval, Prober: o.Prober, Notifier: o.Notifier, Host: host, Lookup: o.Lookup, OnKeys: o.OnKeys,
		Refused: met.Refused, Log: o.Log}, o.State, now())
	if err != nil {
		return nil, err
	}
	n := len(s.List.Members)
	view := hiadsd.NewDense(n)
	for k := range view {
		if k < len(o.State.Counters) {
			view[k].Counter = o.State.Counters[k]
		}
	}
	node, err := hiadsd.NewNode(c.core(s.List), s.ID, view)
	if err != nil {
		return nil, err
	}
	node.List = coreVersion(s.List)
	restarted := o.State.List != nil // a state from an earlier run: peers may hold this agent down
	o.State.List = &s.List
	for len(o.State.Counters) < n {
		o.State.Counters = append(o.State.Counters, 0)
	}
	d := &Daemon{cfg: c, id: s.ID, log: o.Log, board: o.Board, notify: o.Notifier, now: o.Now, observe: o.Observe, met: met,
		loop: loop{node: node, view: view, prober: o.Prober, rng: o.Rand, told: map[int]bool{}, refusing: map[int]bool{}, flaps: flap.New(c.Flapping),
			maintOpen: map[int]nodelist.Window{}},
		runList: runList{members: members, self: c.Nodes[c.Self], origin: nodelist.OriginOf(c.Nodes[c.Self]),
			list: s.List, moved: map[int]netip.Addr{}, listHash: s.List.Hash[:], lists: listCheck{other: map[int]bool{}}},
		journal: journal{st: o.State, savedSeq: o.State.LastSeq, how: make([]mib.Source, n), changed: make([]uint32, n),
			held: append([]hiadsd.Status(nil), o.State.Statuses...)}}
	host.d = d
	d.push.in = make(chan board.Push, pushQueue)
	d.vantage = vantage{asks: make(chan asked, queued)}
	d.hi = hello{heard: map[int]time.Time{}, wake: make(chan struct{}, 1), restarted: restarted}
	d.lag = lag.New(o.Log, d.restretch)
	d.pushes = o.Prober.CanPush()
	if d.now == nil {
		d.now, d.realClock = time.Now, true
	}
	if d.rng == nil {
		d.rng = rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(d.id)))
	}
	d.start = d.now()
	d.viewMet = viewmetrics.New(d.Snapshot, d.now)
	d.lastDone = d.start // the loop counts as alive from its start
	if !d.st.Station.Addr.IsValid() && c.Station.IsValid() {
		d.st.Station.Addr = c.Station
	}
	node.Station = d.st.Station
	d.pol = notify.New(notify.Options{Config: notify.Config{Scope: c.Notify, StartupGrace: c.StartupGrace, RecoveryHold: c.RecoveryHold,
		PartialHold: c.PartialHold, GroupWindow: c.GroupWindow, Interval: c.Interval, TestBudget: c.TestBudget, Algorithm: c.Algorithm,
		Rotate: c.Rotate && c.Algorithm == hiadsd.VCube}, Notifier: o.Notifier, View: policyView{d}, Host: policyHost{d}, Prober: o.Prober, Log: o.Log,
		Start: d.start, RealClock: d.realClock}, n)
	d.rows = d.buildRows()
	d.graph = d.testingGraph()
	d.publishLocked()
	return d, nil
}

// Run publishes the view, then runs one testing interval after another until
// ctx ends; it saves the state before it returns.
func (d *Daemon) Run(ctx context.Context) error {
	d.mu.Lock()
	d.publishLocked()
	d.mu.Unlock()
	if !d.pushes {
		d.log.Info("no write community or v3 user: events are not pushed to peers, they learn them by reading this agent")
	}
	wd := make(chan struct{})
	go d.watchdog(ctx, wd)
	defer func() { <-wd }()
	answered := make(chan struct{})
	go func() { defer close(answered); d.answerQuestions(ctx) }()
	defer func() { <-answered }()
	if d.realClock {
		lagged := make(chan struct{})
		go func() { defer close(lagged); d.lag.Run(ctx) }()
		defer func() { <-lagged }()
	}
	timer := time.NewTimer(d.firstDelay())
	defer timer.Stop()
	defer d.push.sends.Wait()
	defer d.members.Wait()
	defer d.knocking(ctx, false)
	if d.hi.restarted {
		d.sayHello(ctx, "restarted")
	}
	for {
		select {
		case <-ctx.Done():
			err := d.save() // the events on disk first, then the notifications still waiting
			d.pol.Stop()
			return err
		case p := <-d.push.in: // between intervals: merged at once
			d.takePush(ctx, p)
			continue
		case <-d.hi.wake: // a node asked to be tested now
			if !d.earlyOK() {
				continue
			}
			d.extra = true
			d.interval(ctx)
			d.takePushes(ctx)
			continue
		case <-timer.C:
		}
		began := d.now()
		d.interval(ctx)
		d.takePushes(ctx) // those that came during the interval
		d.extra = d.hi.unanswered > 0
		d.knocking(ctx, d.extra)
		if d.extra {
			// No agent it tested answered: its link may be down. It tries
			// again soon, so that it says hello as soon as it is back.
			timer.Reset(d.cfg.Interval / 8)
			continue
		}
		if d.rotating() {
			timer.Reset(d.untilNextRound())
			continue
		}
		timer.Reset(max(d.nextDelay()-d.now().Sub(began), 0))
	}
}

// firstDelay spreads the first intervals of agents started together; under
// the rotating plan it waits for the next round.
func (d *Daemon) firstDelay() time.Duration {
	if d.rotating() {
		return d.untilNextRound()
	}
	return time.Duration(d.rng.Int64N(int64(d.cfg.Interval)/4 + 1))
}

// nextDelay is the testing interval plus or minus up to a tenth of it, so
// agents do not fall into step (seed 002 section 4 uses the same jitter idea).
func (d *Daemon) nextDelay() time.Duration {
	j := int64(d.cfg.Interval) / 10
	return d.cfg.Interval + time.Duration(d.rng.Int64N(2*j+1)-j)
}

// staleAfter is how long after its last interval the loop still counts as
// alive for hiADSDisUP: two intervals plus room for a slow one.
func (d *Daemon) staleAfter() time.Duration {
	return 2*d.cfg.Interval + 4*d.cfg.TestBudget
}

// interval runs one testing interval and records what it found: it drives
// the core's interval machine, running each batch of ops it hands back at
// once, until the interval is done.
func (d *Daemon) interval(ctx context.Context) {
	began := d.now()
	d.resume(ctx, began)
	extra := d.extra // one more than the plan's: no flapping sample
	d.extra = false
	d.members.Unskew()
	d.applyPending()
	if d.removed { // answers as alive, so agents still on the old list do not suspect it
		d.members.Poll(ctx, d.id)
		d.mu.Lock()
		d.lastDone = d.now()
		d.mu.Unlock()
		return
	}
	d.applyStation()
	d.applyMoves()
	defer d.endGrace()
	if d.rotating() {
		d.setRound()
	}
	d.node.Digest = d.servedDigest()
	d.takeAsked()
	m := &d.machine
	if err := m.Begin(d.node); err != nil {
		d.log.WithError(err).Error("testing interval failed")
		return
	}
	probes := map[int]probe.Result{}
	for !m.Done() {
		ops := m.Ready()
		res := d.batchTakingPushes(ctx, ops, probes)
		if ctx.Err() != nil {
			return // stopping: tests were cut short, their verdicts mean nothing; the core undid the pass
		}
		back := d.answeredAgain(ops, res) // before Advance: ops are the machine's until then
		if err := m.Advance(res); err != nil {
			d.log.WithError(err).Error("testing interval failed")
			return
		}
		if back {
			d.knocking(ctx, false)
			d.helloAt(ctx, began, "link back")
		}
		if !m.Done() {
			d.takeRepairs(ctx)
		}
	}
	rep := m.Report()
	for _, f := range rep.Fetches {
		if f.Err != nil {
			d.log.WithFields(logrus.Fields{"from": f.From, "address": d.list.Members[f.From].Addr}).WithError(f.Err).Debug("fetch failed")
		}
	}
	d.keysRefused(probes)
	d.explain(probes)
	d.refuse(rep, "fetch")
	d.selfSuspicion(ctx, rep, began)
	d.noteDoubt(ctx, rep.Doubt)
	d.noteUnreached(ctx)
	d.learnEngines(ctx)
	d.noteSeconds(rep, probes)
	d.backAgain(ctx, rep, began)
	d.learnStation(rep.Station)
	d.sendPushes(ctx, rep.Pushes) // before record, which waits for the disk
	d.sample = !extra             // a push merged between intervals records too, but is no sample
	d.record(rep)
	d.watchMaintenance()
	d.mergeHeld(ctx)
	d.members.Merge(ctx, rep.Lists)
	d.members.MaybeCollect(ctx, d.id, func(id int) hiadsd.Status { return d.view[id].Status }, d.listSince, d.removed)
	d.mu.Lock()
	unsaved := len(d.unsaved)
	d.mu.Unlock()
	took := d.now().Sub(began)
	d.met.Observe(rep, took, unsaved)
	if d.observe != nil {
		d.observe(IntervalInfo{Report: rep, Probes: probes, Started: began, Took: took, Unsaved: unsaved})
	}
}

// servedDigest is the digest testers read from this agent now, 0 while it
// withholds its view or has published none.
func (d *Daemon) servedDigest() uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cur == nil || d.cur.Withheld {
		return 0
	}
	return d.cur.Digest
}

// watchdog republishes when hiADSDisUP must turn to "0" because the loop stalled.
func (d *Daemon) watchdog(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(max(d.staleAfter()/4, 100*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		d.mu.Lock()
		if d.cur != nil && d.cur.Up != d.upLocked() {
			d.publishLocked()
		}
		d.mu.Unlock()
	}
}

// upLocked says whether the loop began or finished an interval recently.
func (d *Daemon) upLocked() bool {
	last := d.lastDone
	if d.lastBegan.After(last) {
		last = d.lastBegan
	}
	return d.now().Sub(last) < d.staleAfter()
}

// Changed returns a channel closed when the next snapshot is published.
func (d *Daemon) Changed() <-chan struct{} { return d.board.Changed() }

// Snapshot returns the view last published.
func (d *Daemon) Snapshot() *board.Snapshot {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.cur
}

// SetAddress tells the daemon that node id (given by host name) resolves
// to a now; from the next interval on it is tested there and its row and
// events carry the new address. Safe from any goroutine.
func (d *Daemon) SetAddress(id int, a netip.Addr) {
	if id < 0 || !a.IsValid() {
		return
	}
	d.mu.Lock()
	d.moved[id] = a
	d.mu.Unlock()
}

// applyMoves moves the nodes SetAddress reported, logging each change, and
// publishes the rows with their new addresses.
func (d *Daemon) applyMoves() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.moved) == 0 {
		return
	}
	d.list.Members = slices.Clone(d.list.Members) // the list as kept and as queued stays as it was
	for id, a := range d.moved {
		if id >= len(d.list.Members) {
			continue
		}
		m := &d.list.Members[id]
		old := m.Addr
		if old == a {
			continue
		}
		m.Addr = a
		d.log.WithFields(logrus.Fields{"node": id + 1, "host": m.Host, "old": old.String(), "new": a.String()}).
			Warn("node address changed")
	}
	clear(d.moved)
	d.members.SetRunning(d.list)
	d.rows = d.buildRows()
	d.publishLocked()
}
