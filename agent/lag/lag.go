// Package lag is an agent's own CPU health: how late its timers fire, and
// whether it is starved. On a host whose CPU is starved (192 agents on two
// cores, load 290), every reply is read late: a test finds live peers
// silent, a measurement finds healthy links lossy, and each of those makes
// more work (a re-test, three questions, bursts of requests) that starves
// the host further. Lifeguard (Dadgar et al. 2018) has a member that misses
// its own deadlines trust its timeouts less and do less; so does the agent
// (agent/daemon says what it stops doing). A Watch sets a timer every
// lagTick and notes how late each fires. Over a window, the ticks' mean
// lateness is the share of lagRef lost: a timer that fired every 100 ms,
// late by that much each time, would have lost that share of its time.
// Once a quarter is lost so (starvedEnter), the agent is starved until
// calm windows in a row lose under a tenth (starvedLeave); from a tenth
// lost it is lagging. A tick every lagRef judged the same, but its ten
// wakeups a second cost an idle agent 0.11 CPU seconds a minute on a
// 2-core host with page-table isolation (0.09 before it, 0.20 with it, at
// N = 64); two cost 0.02.
//
// A starved agent whose last window was calm again is recovering: its
// timers keep time, and only the calm windows that end starvation are
// left. It answers other agents' questions then (agent/daemon): a stall of
// the host leaves every agent starved for 15 to 45 s after it, and a real
// failure found meanwhile, with no agent to confirm it, went unbelieved
// for that long (a freeze at N = 64 known after 13 to 30 s:
// docs/data/versus/make-versus-n64-2026-12-01.md).
//
// A tick's lateness counts as lagRef at most, and a tick later than a
// whole window starts a new one: a process stopped and resumed (a freeze)
// lost one stretch of time, and its hello says so; it is not starved.
package lag

import (
	"context"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/agent/metrics"
)

const (
	lagTick      = 500 * time.Millisecond
	lagRef       = 100 * time.Millisecond
	lagWindow    = 5 * time.Second
	starvedEnter = 4  // a window losing 1/starvedEnter of lagRef or more starts starvation
	starvedLeave = 10 // calm windows in a row losing under 1/starvedLeave of lagRef end it
	// lagCalm is the fewest calm windows in a row that end starvation; each
	// time the agent is starved it draws how many, from lagCalm to
	// 3·lagCalm (15 to 45 s). Agents on one loaded host catch up together,
	// and each then resumes its bursts, questions and engine discoveries,
	// which starve the host again: left after one calm window, 64 agents of
	// 192 on two cores went in and out of starvation six times each in three
	// minutes; after three, all at once, five times. Drawn apart, they come
	// back one by one, and each that comes back while the host cannot bear
	// it holds the others starved.
	lagCalm = 3
	// lateTick is how late one tick must fire for LateSince: a stall that
	// long is a fifth of test.timeout at its lowest (500 ms), and a
	// five-second window's mean takes seconds to see it.
	lateTick = lagRef
	// stopTick is how late one tick must fire for StoppedSince: the agent
	// did not run for a second, longer than any test waits for one reply;
	// a loaded host's scheduler keeps none of its processes off that long,
	// a stall of the whole host (or SIGSTOP) does.
	stopTick = 10 * lagRef
)

// meter judges starvation from how late a periodic timer fires, one
// window at a time. Its zero value is a meter at rest, not starved.
type meter struct {
	begun   time.Time     // the window's start; zero before the first tick
	lost    time.Duration // the ticks' lateness in the window, each at most lagRef
	ticks   int           // the ticks in the window
	starved bool
	calm    int     // calm windows in a row while starved
	need    int     // calm windows in a row that end this starvation (at least lagCalm)
	share   float64 // the share of lagRef the last whole window's ticks lost, on average
	// lagging says the last whole window lost 1/starvedLeave of lagRef or
	// more: not starved yet, but late enough that a reply read late may
	// look lost.
	lagging bool
}

// tick notes a tick that fired at now, late by late, and reports whether
// the meter's judgement changed with it (only at the end of a window).
func (m *meter) tick(now time.Time, late time.Duration) bool {
	if m.begun.IsZero() {
		m.begun = now
		return false
	}
	if late >= lagWindow { // stopped and resumed: judged from here on
		m.begun, m.lost, m.ticks = now, 0, 0
		return false
	}
	m.lost += min(max(late, 0), lagRef)
	m.ticks++
	if now.Sub(m.begun) < lagWindow {
		return false
	}
	m.share = float64(m.lost) / float64(time.Duration(m.ticks)*lagRef)
	m.begun, m.lost, m.ticks = now, 0, 0
	m.lagging = m.share >= 1.0/starvedLeave
	was := m.starved
	switch {
	case !m.starved && m.share >= 1.0/starvedEnter:
		m.starved = true
	case m.starved && m.share < 1.0/starvedLeave:
		if m.calm++; m.calm >= max(m.need, lagCalm) {
			m.starved, m.calm = false, 0
		}
	case m.starved:
		m.calm = 0
	}
	return m.starved != was
}

// recovering reports whether the meter is starved but its last whole
// window was calm: it waits out the calm windows that end starvation.
func (m *meter) recovering() bool { return m.starved && m.calm > 0 }

// Watch runs the meter on the wall clock and holds its judgement for the
// agent's other goroutines.
type Watch struct {
	starved, lagging, recovering atomic.Bool
	lateAt                       atomic.Int64 // UnixNano of the last tick lateTick late or more
	stopAt                       atomic.Int64 // UnixNano of the last tick stopTick late or more
	// due is the UnixNano the next tick is due at, 0 when Run is not running:
	// a tick a second overdue is a stop not yet measured, which the goroutine
	// asking may have resumed from before the timer's.
	due      atomic.Int64
	log      *logrus.Entry
	gauge    metrics.Gauge
	onChange func()
}

// New returns a Watch that logs to log and, each time the agent starts or
// stops being starved, calls onChange (nil for none) once its judgement
// reads so.
func New(log *logrus.Entry, onChange func()) *Watch {
	return &Watch{log: log, onChange: onChange, gauge: metrics.NewGauge(metrics.GaugeOpts{Name: "diagagent_cpu_starved",
		Help: "1 while this agent is starved of CPU: its timers fire late, by 25 ms or more on average; its tests wait twice as long, measure no link and count no loss, and it refuses other agents' questions until its timers keep time again."})}
}

// Starved reports whether the agent is starved of CPU now; false for a nil
// Watch.
func (w *Watch) Starved() bool { return w != nil && w.starved.Load() }

// Recovering reports whether the agent is starved but its last window was
// calm: its timers keep time again, and it waits out the calm windows that
// end starvation. False for a nil Watch.
func (w *Watch) Recovering() bool { return w != nil && w.recovering.Load() }

// Lagging reports whether the agent is starved, or its last window's ticks
// were late by a tenth of lagRef or more on average: a reply read late may
// look lost. False for a
// nil Watch.
func (w *Watch) Lagging() bool { return w != nil && w.lagging.Load() }

// LateSince reports whether a tick fired lateTick late or more at t or
// after: the agent stalled since t, and a test begun at t may have read its
// replies late, before the window's judgement says so. A tick overdue by
// lateTick does not count: on a loaded host one often is, and a helper
// that gives no failure then holds a real cut back. False for a nil Watch.
func (w *Watch) LateSince(t time.Time) bool { return w != nil && w.lateAt.Load() >= t.UnixNano() }

// StoppedSince reports whether a tick fired stopTick late or more at t or
// after, or is overdue by that much since t: the agent did not run for a
// second since t, and no reply awaited since says anything of its peer.
// False for a nil Watch.
func (w *Watch) StoppedSince(t time.Time) bool {
	if w == nil {
		return false
	}
	if w.stopAt.Load() >= t.UnixNano() {
		return true
	}
	due := w.due.Load() // overdue since t, if it fell due before
	return due != 0 && time.Now().UnixNano()-max(due, t.UnixNano()) >= int64(stopTick)
}

// Stalled notes a tick lateTick late at t, as a test's fake host would.
func (w *Watch) Stalled(t time.Time) { w.lateAt.Store(t.UnixNano()) }

// Stopped notes a tick stopTick late at t, as a test's fake host would.
func (w *Watch) Stopped(t time.Time) { w.Stalled(t); w.stopAt.Store(t.UnixNano()) }

// Set makes the judgement starved, as a test's fake host would be.
func (w *Watch) Set(starved bool) {
	w.starved.Store(starved)
	w.lagging.Store(starved)
	w.recovering.Store(false)
}

// Recover makes the judgement starved and recovering, as a test's fake
// host's would be after a calm window.
func (w *Watch) Recover() { w.Set(true); w.recovering.Store(true) }

// SetLagging makes the judgement lagging but not starved, as a test's
// fake host would be.
func (w *Watch) SetLagging(on bool) { w.starved.Store(false); w.lagging.Store(on) }

// Collector is the Watch's gauge, diagagent_cpu_starved.
func (w *Watch) Collector() metrics.Collector { return w.gauge }

// Run meters the timer until ctx ends, and says when the agent starts or
// stops being starved: in the log, in the gauge and to onChange.
func (w *Watch) Run(ctx context.Context) {
	var m meter
	t := time.NewTimer(lagTick)
	defer t.Stop()
	last := time.Now()
	m.tick(last, 0)
	w.due.Store(last.Add(lagTick).UnixNano())
	defer w.due.Store(0)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := time.Now()
		late := now.Sub(last) - lagTick
		last = now
		t.Reset(lagTick)
		w.due.Store(now.Add(lagTick).UnixNano())
		if late >= lateTick {
			w.lateAt.Store(now.UnixNano())
		}
		if late >= stopTick {
			w.stopAt.Store(now.UnixNano())
		}
		changed := m.tick(now, late)
		w.lagging.Store(m.starved || m.lagging)
		w.recovering.Store(m.recovering())
		if !changed {
			continue
		}
		m.need = lagCalm + rand.IntN(2*lagCalm+1)
		w.starved.Store(m.starved)
		if w.onChange != nil {
			w.onChange()
		}
		f := w.log.WithField("lost", int(100*m.share+0.5))
		if m.starved {
			w.gauge.Set(1)
			f.Warn("this agent is starved of CPU: its timers fire late (lost: their mean lateness over the last five seconds, in percent of 100 ms). " +
				"Until it catches up its tests wait twice as long, measure no link and count no loss, and it refuses other agents' questions until its timers keep time again")
		} else {
			w.gauge.Set(0)
			f.Info("this agent has the CPU it needs again")
		}
	}
}
