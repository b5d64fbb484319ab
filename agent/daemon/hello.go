package daemon

import (
	"context"
	"slices"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/hiadsd"
)

// Repairs as fast as faults. An agent that restarted, or whose link came
// back, says hello to one of its testers (sayHello): it writes its NodeID
// to the tester's diagHello, and the tester starts an interval at once and
// tests it there (hiadsd.Node.Ask). An agent that cannot reach a node
// others reach writes that node's id to its other testers (tellTesters).
// A hello changes no status by itself: a forged or replayed one costs one
// test; each node is heard at most once an interval, and a tester starts
// at most one early interval a quarter interval.

// greeting is a Prober that can say hello (probe.Prober.Hello).
type greeting interface {
	Hello(ctx context.Context, t probe.Target, self uint32) error
}

// hello is the daemon's side of hellos: the nodes that asked, for the next
// interval, and when each was last heard (under mu); wake starts one early.
type hello struct {
	asked []int
	heard map[int]time.Time
	wake  chan struct{}
	early time.Time // when an interval last began early
	// unanswered counts the intervals in a row whose every test of an agent
	// went unanswered (faulty): this agent's link may be down (backAgain);
	// said is when it last said hello. Both the loop's.
	unanswered int
	said       time.Time
	// knock stops the knocking (knocking), nil when it is not on; the loop's.
	knock context.CancelFunc
	// testing is the nodes tested on their hellos this interval (takeAsked):
	// each test measures the node's link, as a lossy node asks. The loop's.
	testing []int
	// restarted: the agent started from an earlier run's state, and says
	// hello at start; a first start does not (no peer saw it up, and a test
	// begun before it listened would race the hello's with an older verdict).
	restarted bool
}

// Hello takes a hello written to diagHello naming node (a NodeID), by the
// node itself or by an agent that cannot reach it (tellTesters): the node
// is tested in an interval that starts at once. A node of another list, this
// agent itself, or one heard less than an interval ago is not taken.
func (d *Daemon) Hello(node uint32) error {
	id := int(node) - 1
	d.mu.Lock()
	defer d.mu.Unlock()
	if id < 0 || id >= len(d.list.Members) || id == d.id || d.list.Members[id].Removed {
		return nil
	}
	now := d.now()
	if last, ok := d.hi.heard[id]; ok && now.Sub(last) < d.cfg.Interval {
		return nil
	}
	d.hi.heard[id] = now
	if !slices.Contains(d.hi.asked, id) {
		d.hi.asked = append(d.hi.asked, id)
	}
	select {
	case d.hi.wake <- struct{}{}:
	default:
	}
	return nil
}

// takeAsked hands the core the nodes that asked to be tested, for the
// interval about to begin.
func (d *Daemon) takeAsked() {
	d.mu.Lock()
	asked := d.hi.asked
	d.hi.asked = nil
	d.mu.Unlock()
	d.hi.testing = asked
	for _, id := range asked {
		d.node.Ask(id)
		d.log.WithField("node", id+1).Info("hello: asked to test the node now, testing it")
	}
}

// earlyOK reports whether an interval may begin early now, and notes it.
func (d *Daemon) earlyOK() bool {
	now := d.now()
	if now.Sub(d.hi.early) < d.cfg.Interval/4 {
		return false
	}
	d.hi.early = now
	return true
}

// backAgain says hello once this agent is back after being away from its
// testers: after an interval far longer than it could last (stopped within
// it), and when a test of an agent is answered after intervals whose every
// one went unanswered (its link was down). While none is answered, Run
// starts the next interval after an eighth of one, so the hello leaves soon
// after the link comes back. One said for nothing costs a tester one test.
func (d *Daemon) backAgain(ctx context.Context, rep hiadsd.Report, began time.Time) {
	agents, answered := 0, 0
	for _, tr := range rep.Tests {
		if !d.list.Members[tr.Target].TestedOnly {
			agents++
			if tr.Status != hiadsd.Faulty {
				answered++
			}
		}
	}
	why := ""
	switch {
	case d.now().Sub(began) > 2*d.cfg.Interval+d.cfg.TestBudget:
		// Longer than two intervals and its tests: stopped within (a stall
		// between intervals is resume's). Testers hold a silent agent
		// partial within about one interval and a test (2.3 s at the defaults).
		why = "resumed after a stall"
	case agents > 0 && answered == 0:
		d.hi.unanswered++
	case answered > 0 && d.hi.unanswered > 0:
		why = "tests answered again"
	}
	if answered > 0 {
		d.hi.unanswered = 0
	}
	if why != "" {
		d.helloAt(ctx, began, why)
	}
}

// answeredAgain reports whether a batch answered a test of an agent while
// this agent was cut off (no agent it tested answered in its last
// interval): its link is back, and it says hello at once rather than when
// the interval ends, after the fetches that follow (1.1 s after the link
// came back at N = 64 with the key).
func (d *Daemon) answeredAgain(ops []hiadsd.Op, res []hiadsd.Result) bool {
	if d.hi.unanswered == 0 && d.isolated == 0 {
		return false
	}
	for k, op := range ops {
		if op.Kind == hiadsd.OpTest && !d.list.Members[op.Target].TestedOnly && res[k].Status != hiadsd.Faulty {
			return true
		}
	}
	return false
}

// resume runs as an interval begins. The loop counts as alive from here,
// so hiADSDisUP turns 1 at once after a stall (else the testers the hello
// sent found the thawed agent stalled). An interval that begins long after
// the last one ended (stopped, or starved) says hello now, rather than
// after its tests and fetches (backAgain: 1.7 s later at N = 64).
func (d *Daemon) resume(ctx context.Context, began time.Time) {
	d.mu.Lock()
	last := d.lastDone
	d.lastBegan = began
	if d.cur != nil && d.cur.Up != d.upLocked() {
		d.publishLocked()
	}
	d.mu.Unlock()
	if began.Sub(last) > 2*d.cfg.Interval && !last.Equal(d.start) {
		d.helloAt(ctx, began, "resumed after a stall")
	}
}

// helloAt says hello for the interval that began at began, unless one
// was said in the last four intervals: one interval may find more than one
// reason (its link is back, and so its tests are answered again), and a
// hello costs each tester a test.
func (d *Daemon) helloAt(ctx context.Context, began time.Time, why string) {
	if began.Sub(d.hi.said) >= 4*d.cfg.Interval {
		d.hi.said = began
		d.sayHello(ctx, why)
	}
}

// testers returns this agent's likely testers: in each cluster s of its
// node, the first agent of c(i,s), the tester of the rotating plan while
// it is fault-free. They come in the order the agent asks them (sayHello,
// knocking): under the rotating plan the tester of the round under way
// first, then those of the clusters that follow; else cluster 1 first.
func (d *Daemon) testers() []int { return d.testersOf(d.id) }

// testersOf is testers for node id, this agent left out.
func (d *Daemon) testersOf(id int) []int {
	n := len(d.list.Members)
	l := hiadsd.Levels(n)
	first := 1
	if d.rotating() {
		r, _ := d.roundAt(d.now())
		first = clusterOf(r, n)
	}
	var to []int
	for k := range l {
		for _, j := range hiadsd.ClusterHiADSD(id, (first-1+k)%l+1, n) {
			if m := d.list.Members[j]; !m.Removed && !m.TestedOnly {
				if j != d.id {
					to = append(to, j)
				}
				break
			}
		}
	}
	return to
}

// tellTesters asks node id's other testers to test it now: this agent's
// test of it failed, and another agent reached it (hiadsd's Unreached). A
// host firewall or a switch ACL that keeps some agents from a node keeps
// each of its testers from it in that tester's turn of the rotating plan,
// up to log2 N intervals after the first; told, each tests it at once, and
// finds it out of its own reach too, or reaches it. The hello names the
// node, not this agent: a tester takes a hello about any member from any
// agent (Hello), and a hello, forged or not, costs it one test at most
// once an interval per node.
func (d *Daemon) tellTesters(ctx context.Context, id int) {
	g, ok := d.prober.(greeting)
	if !ok || !d.pushes || d.removed {
		return
	}
	to := d.testersOf(id)
	d.log.WithFields(logrus.Fields{"node": id + 1, "to": ids(to)}).Info("asking the node's other testers to test it now")
	for _, t := range to {
		target := d.list.Members[t]
		d.push.sends.Go(func() {
			if err := g.Hello(ctx, target, uint32(id+1)); err != nil {
				d.log.WithFields(logrus.Fields{"to": t + 1, "node": id + 1}).WithError(err).Debug("hello not taken")
			}
		})
	}
}

// testerTargets returns testers and, for each, its target, read by the
// loop for the goroutines that greet them.
func (d *Daemon) testerTargets() ([]int, []probe.Target) {
	to := d.testers()
	targets := make([]probe.Target, len(to))
	for k, id := range to {
		targets[k] = d.list.Members[id]
	}
	return to, targets
}

// sayHello asks one of this agent's likely testers to test it now: the
// first in testers' order that takes the hello, each tried in turn when
// the one before did not answer. One is enough: the tester pushes the
// repair down a tree that reaches every agent, and each further tester
// asked would root a tree of its own at the same moment. At N = 256 the
// eight testers of a thawed agent each did, every agent took the same
// push five times over (fourteen at most), and a hop took 76 ms at the
// median (41 ms for a repair one tester found). It runs in the
// background.
func (d *Daemon) sayHello(ctx context.Context, why string) {
	if !d.pushes || d.removed {
		return
	}
	to, targets := d.testerTargets()
	d.greet(ctx, why, to, targets)
}

// greet is sayHello to testers to, whose targets are targets, from any
// goroutine.
func (d *Daemon) greet(ctx context.Context, why string, to []int, targets []probe.Target) {
	g, ok := d.prober.(greeting)
	if !ok {
		return
	}
	d.log.WithFields(logrus.Fields{"to": ids(to), "why": why}).Info("asking a tester to test this agent now, the first of these that answers")
	self := uint32(d.id + 1)
	d.push.sends.Go(func() {
		for k, t := range targets {
			err := g.Hello(ctx, t, self)
			if err == nil {
				return
			}
			d.log.WithField("to", to[k]+1).WithError(err).Debug("hello not taken")
		}
	})
}

// knocker is a Prober that can knock (probe.Prober.Knock): a hello sent
// once, without waiting behind the tests.
type knocker interface {
	Knock(ctx context.Context, t probe.Target, self uint32) error
}

// knocksPerInterval is how often an agent cut off knocks on its testers.
const knocksPerInterval = 16

// knocking starts, with on, knocking on this agent's testers: while none
// of the agents it tested answered in its last interval (its link may be
// down), it sends a hello every sixteenth of an interval to one tester
// after another, until on is false. The first knock that passes once the
// link is back reaches a tester, which tests this agent at once (left to
// its own tests, the agent said hello 0.62 s after the link came back at N
// = 64 with the key). A tester takes one hello per node an interval, so a
// truly cut-off agent costs a live tester at most one test an interval; a
// knock is not logged, since self-suspicion's warning says the link may be down.
func (d *Daemon) knocking(ctx context.Context, on bool) {
	if !on {
		if d.hi.knock != nil {
			d.hi.knock()
			d.hi.knock = nil
		}
		return
	}
	k, ok := d.prober.(knocker)
	if d.hi.knock != nil || !ok || !d.pushes || d.removed {
		return
	}
	_, to := d.testerTargets()
	if len(to) == 0 {
		return
	}
	kctx, stop := context.WithCancel(ctx)
	d.hi.knock = stop
	self, every := uint32(d.id+1), d.cfg.Interval/knocksPerInterval
	d.push.sends.Add(1)
	go func() {
		defer d.push.sends.Done()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for next := 0; ; next = (next + 1) % len(to) {
			t := to[next]
			d.push.sends.Go(func() {
				_ = k.Knock(kctx, t, self) // unanswered while the link is down
			})
			select {
			case <-kctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
}
