package sim

import (
	"testing"

	"github.com/diagagent/diagagent/hiadsd/lab"
)

// TestCausesAtScale: k nodes of one block fail at once at N = 1,024
// (vCube, rotating plan, push), the window one interval; the station would
// get one notification for the cause where the owner rule alone sends k.
func TestCausesAtScale(t *testing.T) {
	if testing.Short() {
		t.Skip("N = 1,024 takes seconds")
	}
	for _, k := range []int{1, 8, 64} {
		opt := Default()
		opt.Algorithm, opt.N, opt.Push, opt.HopDelay, opt.Rotate = lab.VCube, 1024, true, 0.1, true
		opt.Group = opt.Interval + opt.Jitter
		for j := range k {
			opt.Events = append(opt.Events, Event{Kind: Fault, Node: 512 + j, Time: 100})
		}
		r, err := Run(opt)
		if err != nil {
			t.Fatal(err)
		}
		n := r.Notifications
		t.Logf("k = %d: %d notifications node by node, %d by cause", k, n.PerNode, n.PerCause)
		if n.PerNode != k || n.PerCause != 1 {
			t.Errorf("k = %d: %d node by node, %d by cause; want %d and 1", k, n.PerNode, n.PerCause, k)
		}
	}
}
