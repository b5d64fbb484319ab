package flap

import (
	"math"
	"testing"

	"github.com/diagagent/diagagent/hiadsd"
)

// TestPercent: Nagios's weights run from 0.8 for the oldest change to 1.2
// for the newest, over 20 changes: a status that alternates every sample
// is 100%, one change at the newest end 6%, at the oldest 4%.
func TestPercent(t *testing.T) {
	run := func(seq []hiadsd.Status) float64 {
		d := New(Default())
		for _, s := range seq {
			d.Observe([]hiadsd.Status{s})
		}
		return d.Percent(0)
	}
	alternate := make([]hiadsd.Status, Window)
	for i := range alternate {
		alternate[i] = []hiadsd.Status{hiadsd.FaultFree, hiadsd.Partial}[i%2]
	}
	if p := run(alternate); math.Abs(p-100) > 1e-9 {
		t.Errorf("a status alternating every sample: %.2f%%, want 100", p)
	}
	newest := still(hiadsd.FaultFree)
	newest[Window-1] = hiadsd.Faulty
	if p := run(newest); math.Abs(p-6) > 1e-9 {
		t.Errorf("one change, the newest: %.2f%%, want 6", p)
	}
	oldest := still(hiadsd.Faulty)
	oldest[0] = hiadsd.FaultFree
	if p := run(oldest); math.Abs(p-4) > 1e-9 {
		t.Errorf("one change, the oldest: %.2f%%, want 4", p)
	}
}

// TestStartStop: a node that goes down and back up once (a crash and its
// repair), or twice in a few samples, does not flap; one that changes every few samples starts flapping
// once, above 20%, and stops once, below 5%, when it holds still; unknown
// samples count no change.
func TestStartStop(t *testing.T) {
	d := New(Default())
	var changes []Change
	feed := func(s hiadsd.Status, n int) {
		for range n {
			changes = append(changes, d.Observe([]hiadsd.Status{s})...)
		}
	}
	feed(hiadsd.Unknown, 3)
	feed(hiadsd.FaultFree, 10)
	feed(hiadsd.Faulty, 5)
	feed(hiadsd.FaultFree, 30)
	for range 2 { // down and up twice in a few samples: above 20%, but not yet three times
		feed(hiadsd.Faulty, 1)
		feed(hiadsd.FaultFree, 1)
	}
	if len(changes) != 0 || d.Percent(0) <= 20 {
		t.Fatalf("a crash and its repair, then two quick ones: %+v at %.0f%%, want no flapping above 20%%", changes, d.Percent(0))
	}
	feed(hiadsd.FaultFree, Window)
	for range 6 {
		feed(hiadsd.Partial, 2)
		feed(hiadsd.FaultFree, 1)
	}
	if len(changes) != 1 || !changes[0].Flapping || changes[0].Percent <= 20 || !d.Flapping(0) {
		t.Fatalf("a node partial two samples of every three: %+v, want one start above 20%%", changes)
	}
	feed(hiadsd.FaultFree, Window)
	if len(changes) != 2 || changes[1].Flapping || changes[1].Percent >= 5 || d.Flapping(0) {
		t.Fatalf("then still: %+v, want one stop below 5%%", changes)
	}
}

// still is Window samples of s.
func still(s hiadsd.Status) []hiadsd.Status {
	out := make([]hiadsd.Status, Window)
	for i := range out {
		out[i] = s
	}
	return out
}

// TestMovedBetweenSamples: a node that goes partial and back between two
// samples shows fault-free in both, and the second counts the fall and the
// rise. Six moves before one sample count two, so a burst does not start
// flapping; a node partial for a moment every six samples (every 12 s at
// the 2 s interval) flaps by its third time, and only once.
func TestMovedBetweenSamples(t *testing.T) {
	d := New(Default())
	for range Window {
		d.Observe([]hiadsd.Status{hiadsd.FaultFree})
	}
	for range 6 {
		d.Moved(0)
	}
	if c := d.Observe([]hiadsd.Status{hiadsd.FaultFree}); len(c) != 0 || d.Percent(0) > 12+1e-9 {
		t.Fatalf("six moves before one sample: %+v at %.0f%%, want two changes (at most 12%%)", c, d.Percent(0))
	}
	for range Window {
		d.Observe([]hiadsd.Status{hiadsd.FaultFree})
	}
	var changes []Change
	first := -1
	for k := range 4 * 6 {
		if k%6 == 0 {
			d.Moved(0) // partial,
			d.Moved(0) // and fault-free again, before the sample
		}
		changes = append(changes, d.Observe([]hiadsd.Status{hiadsd.FaultFree})...)
		if first < 0 && len(changes) > 0 {
			first = k / 6
		}
	}
	if len(changes) != 1 || !changes[0].Flapping || first > 2 {
		t.Fatalf("partial for a moment every six samples: %+v, first in cycle %d, want one start by the third", changes, first+1)
	}
}
