package sim

import (
	"errors"
	"testing"

	"github.com/diagagent/diagagent/hiadsd/lab"
)

// TestJoinAndLeaveAt1024 runs a join and a leave on 1,024 nodes, for the
// algorithms whose fetches carry the list, and checks that each reached
// every testing node within hiadsd.MembershipBound, with the new node held
// up everywhere (the figure of docs/membership.md: go run -C cmd/diagsim . -algo vcube,hiadsd
// -n 1024 -event "join 5@100" -event "leave 700@2000").
func TestJoinAndLeaveAt1024(t *testing.T) {
	for _, algo := range []lab.Algorithm{lab.VCube, lab.HiADSD} {
		opt := Default()
		opt.Algorithm, opt.N = algo, 1024
		opt.Events = []Event{{Kind: Join, Node: 5, Time: 100}, {Kind: Leave, Node: 700, Time: 2000}}
		r := runOrFail(t, opt)
		for k, ev := range r.Events {
			if !ev.Complete || ev.LatencyRounds < 1 || ev.LatencyRounds > ev.BoundRounds {
				t.Errorf("%v %s: complete %v in %d rounds, bound %d", algo, opt.Events[k], ev.Complete, ev.LatencyRounds, ev.BoundRounds)
			}
			t.Logf("%v %s: %d rounds (bound %d)", algo, opt.Events[k], ev.LatencyRounds, ev.BoundRounds)
		}
		if got := r.Events[0].Subject; got == nil || *got != 1024 {
			t.Errorf("%v: the joiner got id %v, want the next id 1024", algo, r.Events[0].Subject)
		}
	}
}

// TestMembershipSchedule refuses a schedule that uses a node after it left.
func TestMembershipSchedule(t *testing.T) {
	opt := Default()
	opt.N = 8
	opt.Events = []Event{{Kind: Leave, Node: 3, Time: 10}, {Kind: Fault, Node: 3, Time: 20}}
	if err := opt.Validate(); !errors.Is(err, ErrBadEvent) {
		t.Errorf("fault after leave: %v, want ErrBadEvent", err)
	}
	opt.Events = []Event{{Kind: Join, Node: 3, Time: 10}, {Kind: Fault, Node: 8, Time: 20}}
	if err := opt.Validate(); err != nil {
		t.Errorf("a fault of the joiner (id 8): %v", err)
	}
	for _, s := range []string{"join 3@10", "leave 4@20"} {
		if e, err := ParseEvent(s); err != nil || e.String() != s {
			t.Errorf("ParseEvent(%q) = %v, %v", s, e, err)
		}
	}
}
