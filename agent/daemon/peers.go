package daemon

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"slices"
	"sync"

	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/traps"
)

// Prober is what the daemon needs from the practical test of a peer (probe.Prober).
type Prober interface {
	Probe(ctx context.Context, t probe.Target) probe.Result
	FetchDiagnosis(ctx context.Context, t probe.Target, lo, hi int) (probe.Fetched, error)
	FetchRows(ctx context.Context, t probe.Target, lo, hi int) ([]probe.Row, error)
	FetchList(ctx context.Context, t probe.Target) (probe.List, error)
	// Push writes a board.MarshalPush to the peer's diagPush.
	Push(ctx context.Context, t probe.Target, value []byte) error
	// CanPush reports whether it has credentials to write with.
	CanPush() bool
}

// viewing is a Prober whose tests take what the agent holds about the
// tested node and the verdicts peers push about it meanwhile
// (probe.Prober.ProbeInView).
type viewing interface {
	ProbeInView(ctx context.Context, t probe.Target, v probe.View) probe.Result
}

// batch runs one batch of the core's ops at once (the prober bounds the
// concurrency), so a batch costs about one test time, not the sum, and
// returns their results in order. Every probe is kept in probes by node id;
// the test of node id runs in views[id].
func (d *Daemon) batch(ctx context.Context, ops []hiadsd.Op, probes map[int]probe.Result, views map[int]probe.View) []hiadsd.Result {
	res := make([]hiadsd.Result, len(ops))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for k, op := range ops {
		t := d.list.Members[op.Target]
		wg.Go(func() {
			switch op.Kind {
			case hiadsd.OpTest:
				var r probe.Result
				began := d.now()
				if v, ok := d.prober.(viewing); ok {
					r = v.ProbeInView(ctx, t, views[op.Target])
				} else {
					r = d.prober.Probe(ctx, t)
				}
				sent, unanswered := d.lossSamples(r.Sent, r.Unanswered, began)
				res[k] = hiadsd.Result{Status: r.Status, Digest: r.Digest, Withheld: r.Withheld,
					Seen: r.Seen, NoneAsked: r.NoneAsked, Sent: sent, Unanswered: unanswered, Stopped: d.lag.StoppedSince(began)}
				if d.log.Logger.IsLevelEnabled(logrus.DebugLevel) {
					d.log.WithFields(logrus.Fields{"node": op.Target + 1, "status": r.Status.String(), "took": d.now().Sub(began).String(),
						"wait": r.Wait.String(), "retested": r.Retested, "corroborated": r.Corroborated, "seen": r.Seen,
						"sent": r.Sent, "unanswered": r.Unanswered, "sees_loss": r.SeesLoss, "starved": r.Starved}).WithError(r.SNMPErr).Debug("tested")
				}
				mu.Lock()
				probes[op.Target] = r
				mu.Unlock()
			case hiadsd.OpFetch:
				res[k] = d.fetch(ctx, op.Target, op.Ranges)
			}
		})
	}
	wg.Wait()
	return res
}

// explain logs, once per peer until a test of it finds anything else, why
// this agent holds it partial: a verdict the operator acts on, whose
// likely cause is otherwise only in the probe's error.
func (d *Daemon) explain(probes map[int]probe.Result) {
	for id, r := range probes {
		if r.Status != hiadsd.Partial {
			delete(d.told, id)
			continue
		}
		if d.told[id] {
			continue
		}
		d.told[id] = true
		cause := "it answers ping but not SNMP: its agent is not running, or it drops our requests " +
			"(a community it does not accept, a v3 user it does not know, or a firewall)"
		switch {
		case probe.KeyRefused(r.SNMPErr):
			cause = "its agent runs, but refuses every cluster key this agent holds: one of the two missed a rotation " +
				"of the keys (diagagent keyring -list shows which); give it the key in use (docs/security.md, rotation)"
		case errors.Is(r.SNMPErr, probe.ErrLoopStalled):
			cause = "its SNMP agent answers, but its diagnosis loop is stalled (hiADSDisUP is 0)"
		case !errors.Is(r.SNMPErr, probe.ErrUnexpectedValue) && !errors.Is(r.SNMPErr, probe.ErrMalformedReply):
		case d.list.Members[id].TestedOnly:
			cause = "it answers ping and SNMP, but not with a value of the object it is tested by (its oid)"
		default:
			cause = "it answers ping and SNMP, but not as a diagagent does: is it a device to mark tested_only?"
		}
		d.log.WithFields(logrus.Fields{"node": id + 1, "address": d.list.Members[id].Addr.String(), "cause": cause}).
			WithError(r.SNMPErr).Info("peer held partial")
	}
}

// errOwnLoss is a fetch's error while the agent sees loss on its own tests.
var errOwnLoss = errors.New("not read: this agent sees loss on its own tests")

// fetch reads a peer's station and its rows for ranges: the first range in
// the same GETBULK as the station, any other with a walk of its own. None
// is read while the agent sees loss on its own tests or doubts them: each
// read lost waited test.timeout for every try, and one after each test of
// the interval held a lossy agent's loop 15 to 50 s at 50 to 80% loss
// each way, its own doubt and its hellos with it; the core reads the rows
// again once a read succeeds.
func (d *Daemon) fetch(ctx context.Context, id int, ranges []hiadsd.Range) hiadsd.Result {
	d.mu.Lock()
	lossy := d.seesLoss || d.doubting
	d.mu.Unlock()
	if lossy {
		return hiadsd.Result{Err: errOwnLoss}
	}
	t := d.list.Members[id]
	var res hiadsd.Result
	first := true
	for _, r := range ranges {
		if r.Len() == 0 {
			continue
		}
		var rows []probe.Row
		if first {
			f, err := d.prober.FetchDiagnosis(ctx, t, r.Lo+1, r.Hi)
			if err != nil {
				return hiadsd.Result{Err: err}
			}
			res.List = d.checkList(id, f.NodeListHash, f.ListVersion)
			rows, first = f.Rows, false
			if board.StationAddr(f.Station.Addr) {
				res.Station = f.Station
			}
		} else {
			var err error
			if rows, err = d.prober.FetchRows(ctx, t, r.Lo+1, r.Hi); err != nil {
				return hiadsd.Result{Err: err}
			}
		}
		for _, row := range rows {
			res.Entries = append(res.Entries, hiadsd.IDEntry{ID: int(row.ID) - 1,
				Entry: hiadsd.Entry{Status: row.Status, Counter: row.Counter}})
		}
	}
	return res
}

// listCheck remembers the peers last read with a list that does not merge
// with this agent's; fetches run in parallel, so it has a lock of its own.
type listCheck struct {
	mu    sync.Mutex
	other map[int]bool // core id -> its list conflicts
	held  map[int]bool // conflicts found within the start-up grace, not notified yet
}

// heldStill returns the held conflicts that still hold, and forgets them all.
func (l *listCheck) heldStill() []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []int
	for id := range l.held {
		if l.other[id] {
			out = append(out, id)
		}
	}
	l.held = nil
	slices.Sort(out)
	return out
}

// peers lists the NodeIDs of the peers whose list conflicts, ascending.
func (l *listCheck) peers() []uint32 {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []uint32
	for id := range l.other {
		out = append(out, uint32(id+1))
	}
	slices.Sort(out)
	return out
}

// checkList returns a peer's list version for the core, which merges
// nothing from a peer running another list and reports it (Membership.Merge
// reads it). A peer running this agent's list again no longer conflicts
// with it. A peer that serves no fingerprint is taken as it is.
func (d *Daemon) checkList(id int, hash []byte, version uint32) hiadsd.ListVersion {
	if len(hash) != 8 {
		return hiadsd.ListVersion{}
	}
	theirs := hiadsd.ListVersion{Counter: version, Hash: binary.BigEndian.Uint64(hash)}
	if theirs == coreVersion(d.list) {
		d.conflict(id, "")
	}
	return theirs
}

// conflict records whether peer id runs a list that does not merge with
// this agent's, and why (two files that differ, or an older format's
// change; "" when it merges): logged once until it ends, counted, shown
// and notified. Within the start-up grace the notification waits, and is
// sent if the conflict outlasts it: an agent started from a file that
// lists it, just before the others add it.
func (d *Daemon) conflict(id int, why string) {
	conflict := why != ""
	d.lists.mu.Lock()
	was := d.lists.other[id]
	if conflict {
		d.lists.other[id] = true
	} else {
		delete(d.lists.other, id)
	}
	d.lists.mu.Unlock()
	if conflict == was { // nothing to say: the common case of every fetch
		return
	}
	d.mu.Lock()
	d.publishLocked() // the snapshot names the peers that conflict
	d.mu.Unlock()
	f := d.log.WithFields(logrus.Fields{"node": id + 1, "address": d.list.Members[id].Addr.String(), "ours": hex.EncodeToString(d.listHash)})
	if !conflict {
		f.Info("peer's node list merges with this agent's again")
		return
	}
	f.Warn(why + ": not used as a source until the lists agree")
	if d.now().Sub(d.start) < d.cfg.StartupGrace {
		d.lists.mu.Lock()
		if d.lists.held == nil {
			d.lists.held = map[int]bool{}
		}
		d.lists.held[id] = true
		d.lists.mu.Unlock()
		return
	}
	d.notifyMismatch(id)
}

// forget drops peer id: its id names another node now.
func (l *listCheck) forget(id int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.other, id)
	delete(l.held, id)
}

// notifyMismatch sends diagNodeListMismatch about peer id.
func (d *Daemon) notifyMismatch(id int) {
	if d.notify == nil {
		return
	}
	m := traps.ListMismatch{Peer: uint32(id + 1), PeerAddr: d.list.Members[id].Addr, Ours: d.listHash}
	if err := d.notify.NodeListMismatch(m); err != nil {
		d.log.WithError(err).Warn("notification not queued")
	}
}
