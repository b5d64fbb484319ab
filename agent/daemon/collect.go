package daemon

import (
	"bytes"
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/hiadsd"
)

// Collection of the node list (nodelist.List.Collect): once every agent of
// the list runs one list, the facts it holds that say nothing any more (a
// removed node's entries, a key removed or installed again) are dropped,
// and their ids given to the next adds. Every agent's word is needed: one
// agent asks each, and collects only when every one answers with the list
// it runs itself. That agent is the lowest id this agent holds fault-free,
// so the question is asked once, not N times; should two agents ask at
// once, they collect the same list at the same stamp, into one list.

// stater is a Prober that reads what list a peer runs
// (probe.Prober.ListState).
type stater interface {
	ListState(ctx context.Context, t probe.Target) (probe.ListState, error)
}

// collectEvery is how many intervals pass between two surveys for a
// collection, and how long a list must have run unchanged before one.
const collectEvery = 8

// collectAsking bounds the questions of a survey in flight at once.
const collectAsking = 8

// collection is the loop's record of surveys for a collection.
type collection struct {
	running atomic.Bool // a survey runs in the background
	next    time.Time   // no survey before
	nothing [8]byte     // the fingerprint of the last list found to hold nothing to collect
}

// maybeCollect starts, on the loop after an interval, a survey of every
// agent for a collection of the list run, when it holds something to
// collect, has run unchanged for collectEvery intervals, nothing is
// queued, and this agent is the one that asks.
func (d *Daemon) maybeCollect(ctx context.Context) {
	s, ok := d.prober.(stater)
	now := d.now()
	if !ok || now.Before(d.collect.next) || now.Sub(d.listSince) < collectEvery*d.cfg.Interval || d.removed {
		return
	}
	d.mu.Lock()
	queued := d.pending != nil
	d.mu.Unlock()
	l := d.list
	if queued || l.Hash == d.collect.nothing || !d.asksForCollection() {
		return
	}
	if l.Collectable() == 0 {
		d.collect.nothing = l.Hash // not asked again until the list changes
		return
	}
	if !d.collect.running.CompareAndSwap(false, true) {
		return
	}
	d.collect.next = now.Add(collectEvery * d.cfg.Interval)
	var targets []probe.Target
	for k, m := range l.Members {
		if k != d.id && !m.Removed && !m.TestedOnly {
			targets = append(targets, m)
		}
	}
	d.push.sends.Go(func() {
		defer d.collect.running.Store(false)
		if who, why := d.survey(ctx, s, targets, l); why != "" {
			d.log.WithFields(logrus.Fields{"agent": who, "version": l.Version}).Debug("node list not collected: " + why)
			return
		}
		d.collectList(l)
	})
}

// asksForCollection reports whether this agent is the one to ask: no
// agent of a lower id is held fault-free, and every other agent is held
// up (one held down would not answer: the survey waits, and sends
// nothing, until it is back or removed).
func (d *Daemon) asksForCollection() bool {
	for k, m := range d.list.Members {
		if m.Removed || m.TestedOnly || k == d.id {
			continue
		}
		switch st := d.view[k].Status; {
		case k < d.id && st == hiadsd.FaultFree:
			return false
		case !st.Up():
			return false
		}
	}
	return true
}

// survey asks every target what list it runs, a few at a time; it returns
// the first that does not run l (or does not answer, or cannot take a
// collected list), and why, or "" when every one runs l.
func (d *Daemon) survey(ctx context.Context, s stater, targets []probe.Target, l nodelist.List) (string, string) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	who, why := "", ""
	slots := make(chan struct{}, collectAsking)
	var wg sync.WaitGroup
	for _, t := range targets {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			st, err := s.ListState(ctx, t)
			reason := ""
			switch {
			case err != nil:
				reason = "an agent did not answer: " + err.Error()
			case !st.Collects:
				reason = "an agent runs a release that does not take a collected list"
			case st.Version != l.Version || !bytes.Equal(st.Hash, l.Hash[:]):
				reason = "an agent runs another list"
			}
			if reason == "" {
				return
			}
			mu.Lock()
			if why == "" {
				who, why = t.Addr.String(), reason
				cancel()
			}
			mu.Unlock()
		})
		mu.Lock()
		stop := why != ""
		mu.Unlock()
		if stop {
			break
		}
	}
	wg.Wait()
	return who, why
}

// collectList collects, on the latest list, what every agent of l had
// seen (l runs everywhere, so nothing made anywhere before its newest
// stamp is missing from it), and queues the result for the next interval
// as a change made here.
func (d *Daemon) collectList(l nodelist.List) {
	t := l.Newest()
	d.changing.Lock()
	defer d.changing.Unlock()
	d.mu.Lock()
	base := d.latest()
	next, ok := base.Collect(t)
	if !ok || next.Hash == base.Hash {
		d.mu.Unlock()
		return
	}
	d.pending = &next
	d.publishNextLocked()
	d.mu.Unlock()
	facts := next.Collected - base.Collected
	d.met.collected.Add(float64(facts))
	d.log.WithFields(logrus.Fields{"version": next.Version, "facts": facts, "stable": t.String(), "ids": len(next.Members),
		"next_id": next.NextID() + 1}).Info("node list collected: every agent runs one list, and what it had seen removed is dropped")
	if err := d.saveState(); err != nil {
		d.log.WithError(err).Error("cannot save the collected node list")
	}
}
