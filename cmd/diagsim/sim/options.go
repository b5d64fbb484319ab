package sim

import (
	"errors"
	"fmt"
	"slices"

	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/hiadsd/lab"
)

// ErrBadOptions means Options failed validation.
var ErrBadOptions = errors.New("invalid simulation options")

// Start selects how the nodes' first intervals line up.
type Start int

// The start modes.
const (
	// Sync: every node's first interval begins at time 0 with cluster 1 and its
	// tests run when that interval ends, as in the SMPL runs of seed 002.
	Sync Start = iota
	// Random: each node begins at a random cluster and a random phase of its interval.
	Random
)

// String returns "sync" or "random".
func (s Start) String() string {
	if s == Random {
		return "random"
	}
	return "sync"
}

// ParseStart maps "sync" or "random" to a Start.
func ParseStart(s string) (Start, error) {
	switch s {
	case "sync":
		return Sync, nil
	case "random":
		return Random, nil
	}
	return 0, fmt.Errorf("start %q (want sync or random): %w", s, ErrBadOptions)
}

// Options describe one simulation run.
type Options struct {
	// Algorithm is the diagnosis algorithm every node runs.
	Algorithm lab.Algorithm
	// N is the number of nodes.
	N int
	// TestedOnly lists tested-only node ids in increasing order.
	TestedOnly []int
	// Start is sync or random.
	Start Start
	// Seed feeds the one random source of the run.
	Seed uint64
	// Interval is the mean testing interval in time units (seed 002: 30).
	Interval float64
	// Jitter bounds the uniform deviation of each interval (seed 002: 3).
	Jitter float64
	// Events is the schedule; each must change its node's status.
	Events []Event
	// Rounds is how many testing rounds to run after the last event; negative
	// means until every event is diagnosed by every fault-free node, plus one.
	Rounds int
	// Push makes every node push what its own tests find down its vCube
	// tree (hiadsd.Config.Push); each hop takes HopDelay time units.
	Push     bool
	HopDelay float64
	// Rotate makes vCube test one cluster per interval, the cluster of
	// the round the simulated clock is in (hiadsd.Config.Rotate), as the
	// daemon's test.plan rotate does with the wall clock.
	Rotate bool
	// Group, when positive, counts the notifications a station would get
	// under the daemon's owner rule (the lowest node other than the one
	// changed that the notifying node's view holds fault-free), node by
	// node and grouped into causes by a hiadsd.Grouper of this window, in
	// time units (Result.Notifications).
	Group float64
}

// Default returns the options of seed 002's runs: Hi-ADSD, 64 nodes, sync
// start, interval 30, jitter 3, seed 1, automatic length, no events.
func Default() Options {
	return Options{Algorithm: lab.HiADSD, N: 64, Start: Sync, Seed: 1, Interval: 30, Jitter: 3, Rounds: -1}
}

// Validate names the first option that is wrong.
func (o *Options) Validate() error {
	if err := o.Algorithm.Validate(hiadsd.Config{N: o.N, TestedOnly: o.TestedOnly, Rotate: o.Rotate, Push: o.Push}); err != nil {
		return fmt.Errorf("%w: %w", ErrBadOptions, err)
	}
	if !(o.Interval > 0) {
		return fmt.Errorf("interval %v must be positive: %w", o.Interval, ErrBadOptions)
	}
	if !(o.HopDelay >= 0 && o.HopDelay < o.Interval) {
		return fmt.Errorf("hop delay %v must be in [0, interval): %w", o.HopDelay, ErrBadOptions)
	}
	if !(o.Jitter >= 0 && o.Jitter < o.Interval) {
		return fmt.Errorf("jitter %v must be in [0, interval): %w", o.Jitter, ErrBadOptions)
	}
	if o.Algorithm.Research() {
		for _, ev := range o.Events {
			if ev.Kind == StationSet || ev.Kind == Join || ev.Kind == Leave {
				return fmt.Errorf("event %v with %v: %w: %w", ev, o.Algorithm, lab.ErrResearch, ErrBadOptions)
			}
		}
	}
	return checkSchedule(o.N, o.Events)
}

// checkSchedule verifies every event names a node and changes its status;
// a station change needs a fault-free node to be set at.
func checkSchedule(n int, events []Event) error {
	evs := slices.Clone(events)
	slices.SortStableFunc(evs, func(a, b Event) int { return cmpFloat(a.Time, b.Time) })
	state := make(map[int]hiadsd.Status)
	left := make(map[int]bool)
	for _, e := range evs {
		if e.Node < 0 || e.Node >= n {
			return fmt.Errorf("event %v: node outside 0..%d: %w", e, n-1, ErrBadEvent)
		}
		if left[e.Node] {
			return fmt.Errorf("event %v: node %d has left: %w", e, e.Node, ErrBadEvent)
		}
		was, ok := state[e.Node]
		if !ok {
			was = hiadsd.FaultFree
		}
		switch e.Kind {
		case Join:
			if was != hiadsd.FaultFree {
				return fmt.Errorf("event %v: node %d is %v then, so no node can join through it: %w", e, e.Node, was, ErrBadEvent)
			}
			n++ // the new node takes the next id
			continue
		case Leave:
			left[e.Node] = true
			continue
		}
		if e.Kind == StationSet {
			if was != hiadsd.FaultFree {
				return fmt.Errorf("event %v: node %d is %v then, so no station can be set there: %w", e, e.Node, was, ErrBadEvent)
			}
			continue
		}
		if was == e.Kind.Status() {
			return fmt.Errorf("event %v: node %d is already %v then: %w", e, e.Node, was, ErrBadEvent)
		}
		state[e.Node] = e.Kind.Status()
	}
	return nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
