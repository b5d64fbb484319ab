package sim

import (
	"math"
	"slices"
	"time"

	"github.com/diagagent/diagagent/hiadsd"
)

// causes counts what a station would get under the daemon's owner rule,
// node by node and grouped into causes (Options.Group): each node groups
// the changes it owns with a hiadsd.Grouper, as each agent does.
type causes struct {
	groupers          []hiadsd.Grouper
	perNode, perCause int
}

// unit turns simulated time units into the Grouper's durations: one unit
// is one second, which only fixes the scale.
func unit(t float64) time.Duration { return time.Duration(t * float64(time.Second)) }

// take books one report of node id: the changes it owns, the entries that
// moved, and the causes then due.
func (c *causes) take(e *engine, id int, rep hiadsd.Report) {
	if e.opt.Group <= 0 {
		return
	}
	if c.groupers == nil {
		c.groupers = make([]hiadsd.Grouper, len(e.counts))
		for k := range c.groupers {
			c.groupers[k].Window = unit(e.opt.Group)
		}
	}
	g, at := &c.groupers[id], unit(e.now)
	for _, m := range rep.Moved {
		g.Moved(at, m)
	}
	for _, u := range rep.Updates {
		if u.Old.Status == hiadsd.Unknown || e.owner(id, u.ID) != id {
			continue // news to no one, or another node's to tell
		}
		c.perNode++
		if u.New.Status == hiadsd.FaultFree {
			g.Back(at, u.ID, u.New)
		} else {
			g.Lost(at, u.ID, u.New)
		}
	}
	if opened, in, ok := g.Unswept(); ok {
		g.Swept(opened, at, e.sweep(id, in))
	}
	c.perCause += len(g.Due(at, e.opt.N, nil))
}

// sweep returns the nodes that do not answer node id's sweep for the faults
// of the nodes in, made at once: those its view holds fault-free and a
// test now would not find so (agent/daemon/sweep.go). A sweep's answers
// come back within a round trip, which is no time at the simulator's scale.
func (e *engine) sweep(id int, in []int) []int {
	v := e.nw.View(id)
	var silent []int
	for k := range e.opt.N {
		if k != id && !slices.Contains(in, k) && v.Get(k).Status == hiadsd.FaultFree && e.nw.Finds(id, k) != hiadsd.FaultFree {
			silent = append(silent, k)
		}
	}
	return silent
}

// end counts every cause still waiting and returns the counts.
func (c *causes) end(e *engine) *Notifications {
	for k := range c.groupers {
		c.perCause += len(c.groupers[k].Due(unit(math.MaxInt32), e.opt.N, nil))
	}
	return &Notifications{PerNode: c.perNode, PerCause: c.perCause}
}

// owner returns the node that notifies about node x in node id's view: the
// lowest node but x that the view holds fault-free and that tests.
func (e *engine) owner(id, x int) int {
	v := e.nw.View(id)
	for k := range e.opt.N {
		if k != x && v.Get(k).Status == hiadsd.FaultFree && !e.nw.Config().IsTestedOnly(k) {
			return k
		}
	}
	return -1
}
