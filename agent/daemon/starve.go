package daemon

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// Starvation: the agent's own CPU health. On a host whose CPU is starved
// (192 agents on two cores, load 290), every reply is read late: a test
// finds live peers silent, a measurement finds healthy links lossy, and
// each of those makes more work (a re-test, three questions, bursts of
// requests) that starves the host further. Lifeguard (Dadgar et al. 2018)
// has a member that misses its own deadlines trust its timeouts less and
// do less; so does this agent. It sets a timer every lagTick and notes how
// late each fires; once a quarter of a window's time is lost so
// (starvedEnter), it is starved until lagCalm windows in a row lose under a
// tenth (starvedLeave):
//
//   - its tests wait twice as long (as while it doubts itself);
//   - they carry no measurement of a link (no burst, no added request),
//     and their lost requests are no loss samples for its own health: a
//     reply read late is no packet lost;
//   - it refuses other agents' questions (ErrVantageBusy): an asker whose
//     every helper refuses believes its own re-tested verdict, as 1.0
//     did, rather than waiting for answers a starved helper cannot give
//     in time.
//
// A gap longer than lagGapCap counts as lagGapCap: a process stopped and
// resumed (a freeze) lost one stretch of time, and its hello says so; it
// is not starved.
const (
	lagTick      = 100 * time.Millisecond
	lagWindow    = 5 * time.Second
	lagGapCap    = time.Second
	starvedEnter = 4  // a window losing 1/starvedEnter of its time or more starts starvation
	starvedLeave = 10 // calm windows in a row losing under 1/starvedLeave of their time end it
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
)

// lagMeter judges starvation from how late a periodic timer fires, one
// window at a time. Its zero value is a meter at rest, not starved.
type lagMeter struct {
	begun   time.Time     // the window's start; zero before the first tick
	lost    time.Duration // time lost to late ticks in the window
	starved bool
	calm    int     // calm windows in a row while starved
	need    int     // calm windows in a row that end this starvation (at least lagCalm)
	share   float64 // the share of the last whole window lost
	// lagging says the last whole window lost 1/starvedLeave of its time or
	// more: not starved yet, but late enough that a reply read late may
	// look lost.
	lagging bool
}

// tick notes a tick that fired at now, late by late, and reports whether
// the meter's judgement changed with it (only at the end of a window).
func (m *lagMeter) tick(now time.Time, late time.Duration) bool {
	if m.begun.IsZero() {
		m.begun = now
		return false
	}
	m.lost += min(max(late, 0), lagGapCap)
	span := now.Sub(m.begun)
	if span < lagWindow {
		return false
	}
	m.share = float64(m.lost) / float64(span)
	m.begun, m.lost = now, 0
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

// starvation is the daemon's side of the meter: the judgement the loop,
// the tests and the responder read.
type starvation struct {
	on      atomic.Bool
	lagging atomic.Bool // starved, or the last window lost a tenth of its time
	mu      sync.Mutex  // one restretch at a time, so the last judgement read is the one applied
}

// starved reports whether the agent is starved of CPU now.
func (d *Daemon) starved() bool { return d.starve.on.Load() }

// watchLag runs the lag meter until ctx ends, and tells the operator, the
// prober and the metrics when the agent starts or stops being starved.
func (d *Daemon) watchLag(ctx context.Context) {
	var m lagMeter
	t := time.NewTimer(lagTick)
	defer t.Stop()
	last := time.Now()
	m.tick(last, 0)
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
		changed := m.tick(now, late)
		d.starve.lagging.Store(m.starved || m.lagging)
		if !changed {
			continue
		}
		m.need = lagCalm + rand.IntN(2*lagCalm+1)
		d.starve.on.Store(m.starved)
		d.restretch()
		f := d.log.WithField("lost", int(100*m.share+0.5))
		if m.starved {
			d.met.starved.Set(1)
			f.Warn("this agent is starved of CPU: its timers fire late (lost: the share of the last five seconds, in percent). " +
				"Until it catches up its tests wait twice as long, measure no link and count no loss, and it refuses other agents' questions")
		} else {
			d.met.starved.Set(0)
			f.Info("this agent has the CPU it needs again")
		}
	}
}

// restretch doubles the prober's waits while the agent doubts its own
// tests or is starved of CPU, and undoes it once neither holds.
func (d *Daemon) restretch() {
	sp, ok := d.prober.(seconding)
	if !ok {
		return
	}
	d.starve.mu.Lock()
	defer d.starve.mu.Unlock()
	d.mu.Lock()
	on := d.doubting
	d.mu.Unlock()
	sp.Stretch(on || d.starved())
}

// lossSamples is the requests a test sent and lost, as the core counts them
// into the agent's own health: none while it is starved of CPU, or its last
// window lost a tenth of its time, as its replies are read late rather than
// lost. Counted until a quarter was, the agents of a loaded host (192
// processes on two cores, load 57) saw loss on their own tests, said so,
// and each was measured by its testers' bursts: a storm of false verdicts
// across the cluster about once a minute.
func (d *Daemon) lossSamples(sent, unanswered int) (int, int) {
	if d.starved() || d.starve.lagging.Load() {
		return 0, 0
	}
	return sent, unanswered
}
