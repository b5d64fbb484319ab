package daemon

import (
	"context"
	"encoding/binary"
	"errors"
	"slices"
	"sync"

	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/hiadsd"
)

// ErrPushQueueFull is Receive's error when pushes arrive faster than the
// loop takes them; the peer's SET fails and the event comes by pull.
var ErrPushQueueFull = errors.New("daemon: push queue full")

// pushQueue is how many received pushes wait for the loop.
const pushQueue = 256

// pushing is the daemon's side of pushes (hiadsd push.go): the pushes
// peers write wait in the channel in until the loop takes them, between
// intervals; the ones this agent sends run in the background, counted in
// sends so that Run, and a test, can wait for them.
type pushing struct {
	in    chan board.Push
	sends sync.WaitGroup
	held  []heldPush // the entries of pushes taken during the interval under way that wait for its end; owned by the loop
}

// heldPush is what hiadsd.Interval.Take left of a push for the interval's end.
type heldPush struct {
	from int
	p    hiadsd.Push
	v    hiadsd.ListVersion
}

// Receive queues a push a peer wrote to diagPush for the loop, which
// merges it between two intervals (at once when idle) and passes it on.
// Safe from any goroutine (the responder's).
func (d *Daemon) Receive(p board.Push) error {
	select {
	case d.push.in <- p:
		if d.log.Logger.IsLevelEnabled(logrus.DebugLevel) { // the responder's path: no fields built for nothing
			d.log.WithFields(logrus.Fields{"from": p.From, "cluster": p.Cluster, "entries": len(p.Entries),
				"queued": len(d.push.in)}).Debug("push received")
		}
		return nil
	default:
		return ErrPushQueueFull
	}
}

// batchTakingPushes runs a batch of the interval's ops and, while it runs
// (a test of a peer that has just failed waits for its re-test, seconds),
// takes the pushes that arrive: it passes them on at once, so that an
// agent busy testing does not hold up its subtree, and merges at once what
// no test of this interval can contradict (hiadsd.Interval.Take). Entries
// about the peers it tests wait for the interval's end (mergeHeld): a test
// under way may have begun before the push came, and its verdict must not
// override the newer news as if it were newer itself. A push that brings a
// newer fault verdict about a peer this batch is testing is also handed to
// that test (corroborate), whose re-test of the same verdict it cuts short.
func (d *Daemon) batchTakingPushes(ctx context.Context, ops []hiadsd.Op, probes map[int]probe.Result) []hiadsd.Result {
	peers := map[int]chan hiadsd.Status{}
	views := map[int]probe.View{}
	lossy := d.lossy(ctx)
	for _, op := range ops {
		if op.Kind == hiadsd.OpTest {
			peers[op.Target] = make(chan hiadsd.Status, 1)
			views[op.Target] = probe.View{Held: d.node.View.Get(op.Target).Status, Peer: peers[op.Target], Second: d.second(op.Target, op.Via), Measure: d.measure(),
				Confirm: d.confirm(), Hinted: slices.Contains(d.hi.testing, op.Target), Lossy: lossy}
		}
	}
	done := make(chan []hiadsd.Result, 1)
	go func() { done <- d.batch(ctx, ops, probes, views) }()
	for {
		select {
		case res := <-done:
			return res
		case p := <-d.push.in:
			if d.removed {
				continue
			}
			hp, v := corePush(d.id, p)
			d.corroborate(hp, peers)
			rep, later, err := d.machine.Take(int(p.From)-1, hp, v)
			if err != nil {
				d.dropped(int(p.From)-1, hp.Cluster, err)
				continue
			}
			d.sendPushes(ctx, rep.Pushes) // first: recording waits for the disk
			d.refuse(rep, "push")
			d.record(rep)
			if len(later.Entries) > 0 {
				d.push.held = append(d.push.held, heldPush{from: int(p.From) - 1, p: later, v: v})
			}
		}
	}
}

// takeRepairs shows and pushes at once the repairs the interval's tests
// found so far, while it waits on its next batch (hiadsd.Interval.Repairs):
// the fetches that follow the tests read loaded peers and may take seconds.
func (d *Daemon) takeRepairs(ctx context.Context) {
	rep, err := d.machine.Repairs()
	if err != nil {
		d.log.WithError(err).Error("testing interval failed")
		return
	}
	if len(rep.Updates) == 0 {
		return
	}
	d.sendPushes(ctx, rep.Pushes) // first: recording waits for the disk
	d.record(rep)
}

// corroborate hands each entry of push p that is a fault verdict newer
// than this agent's own entry to the test of that peer under way, if any
// (probe.View.Peer). It never blocks: a test holds one verdict.
func (d *Daemon) corroborate(p hiadsd.Push, peers map[int]chan hiadsd.Status) {
	for _, ie := range p.Entries {
		ch, ok := peers[ie.ID]
		if !ok || ie.Entry.Status.Up() || !ie.Entry.Newer(d.node.View.Get(ie.ID)) {
			continue
		}
		select {
		case ch <- ie.Entry.Status:
		default:
		}
	}
}

// mergeHeld merges the pushes passed on during the interval that just
// ended, without passing them on again.
func (d *Daemon) mergeHeld(ctx context.Context) {
	held := d.push.held
	d.push.held = nil
	for _, h := range held {
		d.mergeCore(ctx, h.from, h.p, h.v, false) // passed on when taken
	}
}

// takePushes merges every queued push, without waiting for more.
func (d *Daemon) takePushes(ctx context.Context) {
	for {
		select {
		case p := <-d.push.in:
			d.takePush(ctx, p)
		default:
			return
		}
	}
}

// takePush merges one push into the core's view, passes it on down this
// agent's part of the tree, and records what changed as learned events.
func (d *Daemon) takePush(ctx context.Context, p board.Push) {
	if d.removed {
		return
	}
	hp, v := corePush(d.id, p)
	d.mergeCore(ctx, int(p.From)-1, hp, v, true)
}

// mergeCore merges a push in the core's form, from core id from, and
// records what changed as learned events. With pass it passes the push on
// first: recording saves the state, and each hop of the tree would wait for
// the disk.
func (d *Daemon) mergeCore(ctx context.Context, from int, p hiadsd.Push, v hiadsd.ListVersion, pass bool) {
	rep, err := d.node.Receive(from, p, v)
	if err != nil {
		d.dropped(from, p.Cluster, err)
		return
	}
	if pass {
		d.sendPushes(ctx, rep.Pushes)
	}
	d.refuse(rep, "push")
	d.record(rep)
}

// refuse counts and logs what the core refused of a fetch or a push (how):
// entries and a station whose counter led the one held further than a
// correct peer's can. One line per entry, at warning level: a correct
// agent never sends one.
func (d *Daemon) refuse(rep hiadsd.Report, how string) {
	d.met.Refused.Add(float64(len(rep.Refused) + rep.StationRefused))
	for _, u := range rep.Refused {
		d.log.WithFields(logrus.Fields{"node": u.ID + 1, "status": u.New.Status.String(), "counter": u.New.Counter,
			"held": u.Old.Counter, "from": u.From + 1, "how": how,
			"why": "its counter leads the one held further than a correct agent's can: a forged or corrupt message"}).
			Warn("entry refused")
	}
	if rep.StationRefused > 0 {
		d.log.WithFields(logrus.Fields{"how": how}).Warn("station refused: its counter leads the one held further than a correct agent's can")
	}
}

// dropped logs a push the core refused (another node list, a bad cluster).
func (d *Daemon) dropped(from, cluster int, err error) {
	d.log.WithFields(logrus.Fields{"from": from + 1, "cluster": cluster}).WithError(err).Debug("push dropped")
}

// corePush is the core's form of a push written to agent id.
func corePush(id int, p board.Push) (hiadsd.Push, hiadsd.ListVersion) {
	hp := hiadsd.Push{To: id, Cluster: int(p.Cluster)}
	for _, e := range p.Entries {
		hp.Entries = append(hp.Entries, hiadsd.IDEntry{ID: int(e.NodeID) - 1, Entry: hiadsd.Entry{Status: e.Status, Counter: e.Counter}})
	}
	return hp, hiadsd.ListVersion{Counter: p.ListVersion, Hash: binary.BigEndian.Uint64(p.ListHash[:])}
}

// sendPushes writes each push to its receiver in the background, in
// datagrams of at most board.MaxPushEntries rows; a push that fails is only
// logged, since pull still carries the event.
func (d *Daemon) sendPushes(ctx context.Context, pushes []hiadsd.Push) {
	if len(pushes) == 0 || !d.pushes {
		return
	}
	l := d.list
	for _, p := range pushes {
		m := board.Push{From: uint32(d.id + 1), Cluster: uint8(p.Cluster), ListVersion: l.Version, ListHash: l.Hash}
		for _, e := range p.Entries {
			m.Entries = append(m.Entries, board.PushEntry{NodeID: uint32(e.ID + 1), Status: e.Entry.Status, Counter: e.Entry.Counter})
		}
		for len(m.Entries) > 0 {
			part := m
			part.Entries = m.Entries[:min(len(m.Entries), board.MaxPushEntries)]
			m.Entries = m.Entries[len(part.Entries):]
			b, err := board.MarshalPush(part)
			if err != nil {
				d.log.WithError(err).Error("cannot encode a push")
				break
			}
			began := d.now()
			d.push.sends.Go(func() {
				for _, to := range append([]int{p.To}, p.Alternates...) { // the next of the cluster when one fails
					t := d.list.Members[to]
					err := d.prober.Push(ctx, t, b)
					if err == nil {
						if d.log.Logger.IsLevelEnabled(logrus.DebugLevel) {
							d.log.WithFields(logrus.Fields{"to": to + 1, "cluster": part.Cluster, "entries": len(part.Entries),
								"took": d.now().Sub(began).String()}).Debug("push taken by the peer")
						}
						return
					}
					d.log.WithFields(logrus.Fields{"to": to + 1, "address": t.Addr.String()}).WithError(err).Debug("push not taken")
				}
			})
		}
	}
}
