package notify

import (
	"context"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/metrics"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
	"github.com/diagagent/diagagent/traps"
)

// Notifier is what the policy needs from traps.Notifier.
type Notifier interface {
	NodeStatusChange(mib.Event) error
	NodeFlapping(traps.Flapping) error
	NodeMaintenanceEnded(traps.MaintenanceEnded) error
	CauseChange(traps.Cause) error
}

// View is what the policy reads of the agent's diagnosis. Its calls run
// on the daemon's loop, which owns the view and the list, except Self,
// which a sweep reads too.
type View interface {
	// Self is this agent's id; Size the ids the list gives.
	Self() int
	Size() int
	// Status is what the view holds of node id; Member is its entry.
	Status(id int) hiadsd.Status
	Member(id int) nodelist.Member
	// InMaintenance reports whether node id's window is open now.
	InMaintenance(id int) bool
	// Mute says why a change of node id is not notified now, "" if it is.
	Mute(id int) string
	// Withholds reports whether the agent withholds its view (cut off);
	// Isolated whether no peer answered its last interval.
	Withholds() bool
	Isolated() bool
}

// Host is what the policy asks of the agent from any goroutine.
type Host interface {
	// Now is the agent's clock.
	Now() time.Time
	// Snapshot is the view last published, nil before the first.
	Snapshot() *board.Snapshot
	// SavedSeq is the newest event sequence number on disk.
	SavedSeq() uint32
	// RepublishCauses serves the snapshot again: the groups out changed
	// (CauseGroups).
	RepublishCauses()
}

// Prober tests the nodes a sweep asks about (probe.Prober); one that can
// also Ask asks them apart from its tests.
type Prober interface {
	Probe(ctx context.Context, t probe.Target) probe.Result
}

// Config is the policy's part of the daemon's configuration.
type Config struct {
	// Scope says which agents notify a node's status change.
	Scope Scope
	// StartupGrace holds back, this long after start, a first faulty or
	// partial verdict about a node this agent has never seen up.
	StartupGrace time.Duration
	// RecoveryHold and PartialHold hold a repair and a partial verdict
	// until they have held this long (hold.go); 0 notifies at once.
	RecoveryHold, PartialHold time.Duration
	// GroupWindow is how long after a node's fault others join it in one
	// notification (causes.go); 0 notifies each node on its own.
	GroupWindow time.Duration
	// Interval and TestBudget are the testing interval and one test's
	// longest time; Algorithm and Rotate the diagnosis's: they set how long
	// a change left to an owner waits to be handed over.
	Interval, TestBudget time.Duration
	Algorithm            hiadsd.Algorithm
	Rotate               bool
}

// Options are what a Policy is built from.
type Options struct {
	Config   Config
	Notifier Notifier // nil notifies nothing
	View     View
	Host     Host
	Prober   Prober
	Log      *logrus.Entry // nil discards
	// Start is when the agent started: the grouper's clock counts from it.
	Start time.Time
	// RealClock lets timers run (a test's clock moves by hand, and its loop
	// sends what is due).
	RealClock bool
}

// Policy decides which of an agent's events reach the station, when and
// how grouped (package doc).
type Policy struct {
	cfg       Config
	notifier  Notifier
	view      View
	host      Host
	prober    Prober
	log       *logrus.Entry
	start     time.Time
	realClock bool
	met       policyMetrics

	grace      grace           // first verdicts held back during start-up
	left       map[int]unowned // per node, its last change left to its owner (handover); the loop's
	recoveries recoveries      // repairs and partial verdicts waiting until they hold, and what the station was told
	causes     causes          // status notifications waiting to be sent by cause
}

// New builds a Policy for n nodes; a nil Log discards.
func New(o Options, n int) *Policy {
	if o.Log == nil {
		l := logrus.New()
		l.SetLevel(logrus.PanicLevel)
		o.Log = logrus.NewEntry(l)
	}
	return &Policy{cfg: o.Config, notifier: o.Notifier, view: o.View, host: o.Host, prober: o.Prober, log: o.Log,
		start: o.Start, realClock: o.RealClock, met: newPolicyMetrics(),
		grace: grace{seenUp: make([]bool, n), held: map[int]Event{}}, left: map[int]unowned{},
		recoveries: recoveries{told: map[int]hiadsd.Status{}, waiting: map[int]waitingEvent{}}}
}

// Settle runs on the loop after each interval's record: the changes left
// to an owner that failed are handed over, the repairs and partial
// verdicts that held are notified, the grouper learns the entries that
// moved (hiadsd.Report.Moved), and the causes due are sent.
func (p *Policy) Settle(now time.Time, moved []int) {
	for _, l := range p.causes.takeHanded() {
		p.left[l.Update.ID] = l
	}
	p.handover(now)
	p.releaseRecoveries(now)
	p.movedEntries(moved)
	if p.grouping() {
		p.sendCauses()
	}
}

// Stop sends every cause still waiting, its window cut short, and ends the
// sweeps: the daemon is stopping, and a change it recorded is notified,
// not lost.
func (p *Policy) Stop() {
	if p.grouping() {
		p.endCauses()
	}
}

// Wait waits for the sweeps under way.
func (p *Policy) Wait() { p.causes.sweeps.Wait() }

// Grow makes room for n ids.
func (p *Policy) Grow(n int) {
	p.grace.mu.Lock()
	defer p.grace.mu.Unlock()
	for len(p.grace.seenUp) < n {
		p.grace.seenUp = append(p.grace.seenUp, false)
	}
}

// Forget drops what the policy knew of node id, which names another node
// now: its held verdicts, what the station was told of it, and the group
// it was out with. It runs on the loop.
func (p *Policy) Forget(id int) {
	delete(p.left, id)
	p.recoveries.mu.Lock()
	delete(p.recoveries.told, id)
	delete(p.recoveries.waiting, id)
	p.recoveries.mu.Unlock()
	p.grace.mu.Lock()
	delete(p.grace.held, id)
	if id < len(p.grace.seenUp) {
		p.grace.seenUp[id] = false
	}
	p.grace.mu.Unlock()
	p.causes.mu.Lock() // a group it was out with is another node's, and so is its return
	p.causes.g.Forget(id)
	delete(p.causes.waiting, id)
	p.causes.mu.Unlock()
}

// Reset forgets every node, for n ids: the agent started its core afresh
// on a list of another base. It runs on the loop.
func (p *Policy) Reset(n int) {
	clear(p.left)
	p.recoveries.mu.Lock()
	clear(p.recoveries.told)
	clear(p.recoveries.waiting)
	p.recoveries.mu.Unlock()
	p.grace.mu.Lock()
	clear(p.grace.held)
	p.grace.seenUp = make([]bool, n)
	p.grace.mu.Unlock()
}

// Collectors are the policy's counters.
func (p *Policy) Collectors() []metrics.Collector {
	return []metrics.Collector{p.met.flaps, p.met.causes, p.met.sweeps}
}

// policyMetrics count what the policy told and asked.
type policyMetrics struct {
	flaps  *metrics.CounterVec
	causes *metrics.CounterVec
	sweeps *metrics.CounterVec
}

// newPolicyMetrics makes the policy's counters, every label value at 0.
func newPolicyMetrics() policyMetrics {
	m := policyMetrics{
		flaps: metrics.NewCounterVec(metrics.CounterOpts{Name: "diagagent_flapping_total",
			Help: "Nodes that started or stopped flapping (Nagios's weighted percent state change over the view's last 21 samples), by what they did."}, []string{"change"}),
		causes: metrics.NewCounterVec(metrics.CounterOpts{Name: "diagagent_causes_notified_total",
			Help: "Groups of nodes this agent notified as one cause (diagCauseChange), by kind: lost (lost together), back-down (back, had been down), back-cut (back, had been cut off), back (back, not seen going)."}, []string{"kind"}),
		sweeps: metrics.NewCounterVec(metrics.CounterOpts{Name: "diagagent_cause_sweeps_total",
			Help: "Sweeps this agent made as the owner of faults collecting in the group window (one test of every node held up), by result: answered (every node did: a node alone, told at once), silent (some did not: the faults wait for them)."}, []string{"result"}),
	}
	for _, c := range []string{"started", "stopped"} {
		m.flaps.WithLabelValues(c)
	}
	for _, k := range causeKinds {
		m.causes.WithLabelValues(k)
	}
	for _, r := range []string{"answered", "silent"} {
		m.sweeps.WithLabelValues(r)
	}
	return m
}

// cause counts one cause notified.
func (m policyMetrics) cause(kind string) { m.causes.WithLabelValues(kind).Inc() }
