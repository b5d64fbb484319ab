package membership

import (
	"bytes"
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/sirupsen/logrus"
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

// CollectEvery is how many intervals pass between two surveys for a
// collection, and how long a list must have run unchanged before one.
const CollectEvery = 8

// collectAsking bounds the questions of a survey in flight at once.
const collectAsking = 8

// collection is the loop's record of surveys for a collection.
type collection struct {
	running atomic.Bool // a survey runs in the background
	next    time.Time   // no survey before
	nothing [8]byte     // the fingerprint of the last list found to hold nothing to collect
}

// MaybeCollect starts, on the loop after an interval, a survey of every
// agent for a collection of the list run, when it holds something to
// collect, has run unchanged for CollectEvery intervals, nothing is
// queued, and this agent is the one that asks.
func (m *Membership) MaybeCollect(ctx context.Context, self int, status func(id int) hiadsd.Status, since time.Time, removed bool) {
	s, ok := m.prober.(stater)
	now := m.host.Now()
	if !ok || now.Before(m.collect.next) || now.Sub(since) < CollectEvery*m.interval || removed {
		return
	}
	m.mu.Lock()
	queued := m.pending != nil
	m.mu.Unlock()
	l := m.running
	if queued || l.Hash == m.collect.nothing || !asksForCollection(l, self, status) {
		return
	}
	if l.Collectable() == 0 {
		m.collect.nothing = l.Hash // not asked again until the list changes
		return
	}
	if !m.collect.running.CompareAndSwap(false, true) {
		return
	}
	m.collect.next = now.Add(CollectEvery * m.interval)
	var targets []probe.Target
	for k, n := range l.Members {
		if k != self && !n.Removed && !n.TestedOnly {
			targets = append(targets, n)
		}
	}
	m.surveys.Go(func() {
		defer m.collect.running.Store(false)
		if who, why := m.survey(ctx, s, targets, l); why != "" {
			m.log.WithFields(logrus.Fields{"agent": who, "version": l.Version}).Debug("node list not collected: " + why)
			return
		}
		m.collectList(l)
	})
}

// asksForCollection reports whether this agent is the one to ask: no
// agent of a lower id is held fault-free, and every other agent is held
// up (one held down would not answer: the survey waits, and sends
// nothing, until it is back or removed).
func asksForCollection(l nodelist.List, self int, status func(id int) hiadsd.Status) bool {
	for k, m := range l.Members {
		if m.Removed || m.TestedOnly || k == self {
			continue
		}
		switch st := status(k); {
		case k < self && st == hiadsd.FaultFree:
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
func (m *Membership) survey(ctx context.Context, s stater, targets []probe.Target, l nodelist.List) (string, string) {
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
