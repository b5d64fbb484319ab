package daemon

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/agent/questions"
	"github.com/diagagent/diagagent/hiadsd"
)

// seconding is a Prober that can ask other agents about a peer and answer
// their questions (probe.Prober): a second vantage point (hiadsd/vantage.go).
type seconding interface {
	ProbeInView(ctx context.Context, t probe.Target, v probe.View) probe.Result
	Vantage(ctx context.Context, t probe.Target, value []byte) error
	Stretch(on bool)
}

// ErrVantageBusy is OnVantage's error when more questions wait than it
// answers at once: the asker counts the question refused.
var ErrVantageBusy = errors.New("daemon: too many questions waiting")

// queued is how many peers' questions wait to be answered, and answering
// how many are answered at once.
const (
	queued    = 32
	answering = 4
)

// vantage is the daemon's side of second vantage points: the questions
// this agent asked that wait for an answer, and the questions peers asked
// it, waiting for the answering loop.
type vantage struct {
	asked questions.Book
	asks  chan asked
	doubt hiadsd.Doubt // the core's last, the loop's
	// unreached is the core's Unreached as last noted, the loop's.
	unreached []int
}

// asked is a peer's question and when it came: one that waited three test
// budgets here, answered a test later, comes after its asker's four (second).
type asked struct {
	board.Vantage
	at time.Time
}

// noAnswers is the answers to a question not asked: none.
var noAnswers = func() chan hiadsd.Status { c := make(chan hiadsd.Status); close(c); return c }()

// second returns the probe.View.Second of a test of target that asks via,
// nil when no other agent can be asked.
func (d *Daemon) second(target int, via []int) func(context.Context) <-chan hiadsd.Status {
	sp, ok := d.prober.(seconding)
	if len(via) == 0 || !ok || !d.pushes {
		return nil
	}
	via, members, made := slices.Clone(via), d.list.Members, d.now()
	return func(ctx context.Context) <-chan hiadsd.Status {
		if d.lag.StoppedSince(made) { // its failure is no evidence (hiadsd.Result.Stopped): asking would feed the storm a stall starts
			return noAnswers
		}
		now := d.now()
		keys, out := d.vantage.asked.Ask(target, via, now, now.Add(4*d.cfg.TestBudget))
		for _, k := range keys {
			b, err := board.MarshalVantage(board.Vantage{Kind: board.Ask, From: uint32(d.id + 1), Node: uint32(target + 1), Nonce: k.Nonce})
			if err != nil || k.To >= len(members) {
				d.vantage.asked.Answer(k, hiadsd.Unknown, false) // not asked: no answer
				continue
			}
			d.push.sends.Go(func() {
				err := sp.Vantage(ctx, members[k.To], b)
				if err == nil {
					return
				}
				// An agent that refuses (an older one, or a busy one) cannot be
				// asked: with every one so, the verdict stands alone; not if this
				// agent was starved or stalled (a tick 100 ms late) within the
				// test, when every helper is busy too.
				var se *probe.SetError
				busy := errors.As(err, &se) && se.Busy()
				refused := se != nil && !(busy && (d.lag.Starved() || d.lag.LateSince(made)))
				lvl := logrus.InfoLevel
				if busy {
					lvl = logrus.DebugLevel // thousands under a stall
				}
				d.log.WithFields(logrus.Fields{"to": k.To + 1, "node": target + 1}).WithError(err).Log(lvl, "question to another agent not taken")
				d.vantage.asked.Answer(k, hiadsd.Unknown, refused)
			})
		}
		return out
	}
}

// OnVantage takes a question or an answer a peer wrote to diagVantage.
// A question from a member about a member is queued for the answering
// loop; an answer is handed to the test that asked, if it still waits.
// Safe from any goroutine (the responder's).
func (d *Daemon) OnVantage(v board.Vantage) error {
	from, node := int(v.From)-1, int(v.Node)-1
	d.mu.Lock()
	members := d.list.Members
	d.mu.Unlock()
	if from >= len(members) || node >= len(members) || from == d.id || node == d.id ||
		members[from].Removed || members[from].TestedOnly || members[node].Removed {
		return nil // not a question a member of this list asks: ignored
	}
	if v.Kind == board.Answer {
		d.vantage.asked.Answer(questions.Key{To: from, Node: node, Nonce: v.Nonce}, v.Status, false)
		return nil
	}
	if d.refusesQuestions() {
		return ErrVantageBusy // its test would read the replies late: a busy refusal to the asker
	}
	select {
	case d.vantage.asks <- asked{v, d.now()}:
		return nil
	default:
		return ErrVantageBusy
	}
}

// answerQuestions tests, at most answering at once, each node a peer asked
// about, and writes what it found back to the asker, until ctx ends. The
// test is a whole one (a new fault is re-tested), so that one spurious
// failure of a helper does not confirm the asker's; a refused one is not
// spurious, and is answered at once (probe.View.Asked).
func (d *Daemon) answerQuestions(ctx context.Context) {
	sp, ok := d.prober.(seconding)
	if !ok {
		return
	}
	slots := make(chan struct{}, answering)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		select {
		case <-ctx.Done():
			return
		case q := <-d.vantage.asks:
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			d.mu.Lock()
			members := d.list.Members
			d.mu.Unlock()
			if int(q.Node) > len(members) || int(q.From) > len(members) || d.refusesQuestions() || d.now().Sub(q.at) > 3*d.cfg.TestBudget {
				<-slots
				continue
			}
			wg.Go(func() {
				defer func() { <-slots }()
				held := hiadsd.Unknown
				if snap := d.Snapshot(); snap != nil {
					if k := slices.IndexFunc(snap.Nodes, func(r board.Row) bool { return r.ID == q.Node }); k >= 0 {
						held = snap.Nodes[k].Status
					}
				}
				confirm := hiadsd.ConfirmRequests
				if d.lag.Lagging() {
					confirm = 0 // a plain test: its late reads would measure this host, not the link (confirm)
				}
				began := d.now()
				r := sp.ProbeInView(ctx, members[q.Node-1], probe.View{Held: held, Confirm: confirm, Asked: true})
				took := d.now().Sub(began)
				if r.Status == hiadsd.Unknown {
					return
				}
				refused := r.Refused()
				d.mu.Lock()
				sure := !d.doubting && !d.seesLoss && d.calm
				d.mu.Unlock()
				r.Status = hiadsd.Answer(r.Status, held, r.Sent, r.Unanswered, sure)
				switch {
				case held == hiadsd.Degraded && !r.Status.Up():
					// It said it loses packets: a failed test is what it gives now
					// and then. The asker may not know it yet; told so, it does
					// not take the failure from a test of its own.
					r.Status = hiadsd.Degraded
				case !r.Status.Up() && !refused && (d.refusesQuestions() || d.lag.LateSince(began)):
					// A failure found while this agent stalled may be its own
					// lateness: no word rather than a false one. Under a stall
					// of the whole host (192 agents on two cores) each such
					// answer confirmed a false failure every agent learned. A
					// refusal of the port is the host's word, stall or not. A
					// helper recovering from starvation, on time since its
					// test began, gives what it found.
					return
				}
				b, err := board.MarshalVantage(board.Vantage{Kind: board.Answer, From: uint32(d.id + 1), Node: q.Node, Nonce: q.Nonce, Status: r.Status})
				if err != nil {
					return
				}
				f := d.log.WithFields(logrus.Fields{"to": q.From, "node": q.Node, "found": r.Status.String(),
					"tested_in": took.String(), "answered_in": d.now().Sub(began).String()})
				if err := sp.Vantage(ctx, members[q.From-1], b); err != nil {
					f.WithError(err).Info("answer to another agent not taken")
					return
				}
				f.Info("answered another agent's question")
			})
		}
	}
}

// noteDoubt tells the operator when the agent starts or stops doubting its
// own tests (hiadsd.Doubt), stretches the prober's waits meanwhile, and
// asks its testers to test it now, so that they find it degraded, or
// fault-free again, without waiting for their turn. While it sees loss on
// its tests (Doubt.SeesLoss) it says so in diagViewDigest, and asks its
// testers to test it now too, so that they measure its link.
func (d *Daemon) noteDoubt(ctx context.Context, doubt hiadsd.Doubt) {
	was, saw := d.vantage.doubt.Doubting, d.vantage.doubt.SeesLoss
	d.vantage.doubt = doubt
	if doubt.Sent > 0 && d.log.Logger.IsLevelEnabled(logrus.DebugLevel) {
		d.log.WithFields(logrus.Fields{"refuted": doubt.Refuted, "sent": doubt.Sent, "unanswered": doubt.Unanswered,
			"targets": doubt.Targets, "sees_loss": doubt.SeesLoss, "doubting": doubt.Doubting}).Debug("own tests over the window")
	}
	d.mu.Lock()
	d.calm = d.node.Calm()
	d.mu.Unlock()
	if doubt.SeesLoss != saw {
		d.mu.Lock()
		d.seesLoss = doubt.SeesLoss
		d.mu.Unlock()
		if doubt.SeesLoss && !doubt.Doubting {
			d.sayHello(ctx, "loss") // its testers measure its link now, not at their turn
		}
	}
	if doubt.Doubting == was {
		return
	}
	d.mu.Lock()
	d.doubting = doubt.Doubting
	d.mu.Unlock()
	d.restretch()
	f := d.log.WithFields(logrus.Fields{"refuted": doubt.Refuted, "sent": doubt.Sent, "unanswered": doubt.Unanswered})
	d.sayHello(ctx, "doubt") // a tester reads the change at once: degraded, or fault-free again
	if doubt.Doubting {
		f.Warn("this agent doubts its own tests: other agents reach nodes its tests found down, or its requests go unanswered; " +
			"its link (NIC, cable, switch port) is the likely fault. Its verdicts need another agent's confirmation, and it waits twice as long")
	} else {
		f.Info("this agent trusts its own tests again")
	}
}

// noteUnreached tells the operator, once, each node this agent starts or
// stops being unable to reach while other agents reach it (hiadsd's
// Unreached), and the node's other testers as it starts (tellTesters),
// and serves the set (diagUnreached). It runs on the loop.
func (d *Daemon) noteUnreached(ctx context.Context) {
	now := d.node.Unreached()
	was := d.vantage.unreached
	if slices.Equal(now, was) {
		return
	}
	for _, id := range now {
		if !slices.Contains(was, id) {
			d.log.WithFields(logrus.Fields{"node": id + 1, "address": d.list.Members[id].Addr.String()}).
				Warn("this agent cannot reach the node, which other agents reach: a firewall or ACL between them " +
					"(the node stays fault-free; diagagent reachability lists every agent in this case)")
			d.tellTesters(ctx, id)
		}
	}
	for _, id := range was {
		if !slices.Contains(now, id) && id < len(d.list.Members) {
			d.log.WithFields(logrus.Fields{"node": id + 1, "address": d.list.Members[id].Addr.String()}).
				Info("this agent reaches the node again, or has had no news of it for a while")
		}
	}
	d.vantage.unreached = now
	ids := make([]uint32, len(now))
	for k, id := range now {
		ids[k] = uint32(id + 1)
	}
	d.mu.Lock()
	d.unreached = ids
	d.mu.Unlock()
	d.met.Unreached.Set(float64(len(now)))
}

// measure is probe.View.Measure for this interval's tests: the requests
// the core asks added while it has seen loss (hiadsd.Doubt.Measure); none
// while its reads run late (confirm).
func (d *Daemon) measure() int {
	if d.node.Measuring() && !d.lag.Lagging() {
		return hiadsd.MeasureRequests
	}
	return 0
}

// confirm is probe.View.Confirm for this interval's tests: with second
// vantage points, the requests that measure a node's link where a verdict
// depends on it (hiadsd.ConfirmRequests); none without; none while this
// agent sees loss on its own tests or doubts them (its link is the suspect);
// none while its reads run late (starve.go): a burst then measures this
// host's lateness and adds to the load that makes it (at N = 64 on two
// cores, each request read late drew a burst, whose late answers made false
// failures: docs/data/versus/make-versus-n64-2026-11-30.md). On the loop.
func (d *Daemon) confirm() int {
	if d.cfg.Vantage == 0 || d.vantage.doubt.SeesLoss || d.vantage.doubt.Doubting || d.lag.Lagging() {
		return 0
	}
	return hiadsd.ConfirmRequests
}

// lossy is probe.View.Lossy for this interval's tests: a measurement of a
// node held fault-free found heavy loss, which may be this agent's own
// link's. One of its testers is asked to test it now (sayHello), and
// measures its link (probe.View.Hinted) while the agents this one asks
// measure the node's: a lossy agent is named seconds sooner than once its
// own tests' judgement is in (noteDoubt), and a clean one costs its tester
// hiadsd.CleanRequests requests. None while it already sees loss. It runs
// on the loop; what it returns, in the tests.
func (d *Daemon) lossy(ctx context.Context) func() {
	if !d.pushes || d.removed {
		return nil
	}
	to, targets := d.testerTargets()
	return func() {
		d.mu.Lock()
		said := d.seesLoss || d.doubting
		d.mu.Unlock()
		if !said {
			d.greet(ctx, "loss measured", to, targets)
		}
	}
}

// noteSeconds logs each new failure this interval's tests found, with
// what the agents asked found of it and whether it is believed.
func (d *Daemon) noteSeconds(rep hiadsd.Report, probes map[int]probe.Result) {
	for _, t := range rep.Tests {
		if t.Second == hiadsd.SecondNone {
			continue
		}
		seen := make([]string, 0, len(probes[t.Target].Seen))
		for _, st := range probes[t.Target].Seen {
			seen = append(seen, st.String())
		}
		d.log.WithFields(logrus.Fields{"node": t.Target + 1, "found": t.Status.String(), "second": t.Second.String(),
			"others": seen}).Info(secondWhy[t.Second])
	}
}

// secondWhy says what each outcome of a second vantage point means.
var secondWhy = map[hiadsd.Second]string{
	hiadsd.Confirmed: "a test found the node down, another agent found it down too: believed",
	hiadsd.Refuted:   "a test found the node down, another agent reached it: not believed",
	hiadsd.Unheard:   "a test found the node down, no agent asked answered: not believed",
	hiadsd.Alone:     "a test found the node down, no other agent could be asked: believed",
	hiadsd.Holding:   "a test found a degraded node down (held so here or by an agent asked), silent for fewer intervals than the hold: not believed yet",
}
