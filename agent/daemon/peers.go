package daemon

import (
	"context"
	"net/netip"
	"sync"

	"github.com/diagagent/diagagent/agent"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// Prober is what the daemon needs from the practical test of a peer (agent.Prober).
type Prober interface {
	Probe(ctx context.Context, t agent.Target) agent.ProbeResult
	FetchRows(ctx context.Context, t agent.Target, lo, hi int) ([]agent.Row, error)
	FetchNMS(ctx context.Context, t agent.Target) (nms netip.Addr, counter uint32, err error)
}

// peerTester is the hiadsd.Tester of one testing interval: tests go to the
// prober, planned ones in parallel before Step asks for them.
type peerTester struct {
	ctx     context.Context
	prober  Prober
	targets []agent.Target
	results map[int]agent.ProbeResult // every probe of this interval, by node id
	planned map[int]agent.ProbeResult // probed ahead and not yet asked for
	sources []int                     // nodes a fetch succeeded from, in order
}

func newPeerTester(ctx context.Context, p Prober, targets []agent.Target) *peerTester {
	return &peerTester{ctx: ctx, prober: p, targets: targets,
		results: map[int]agent.ProbeResult{}, planned: map[int]agent.ProbeResult{}}
}

// probeAhead tests the nodes of plan at once (the prober bounds the
// concurrency), so an interval costs about one test time, not the sum.
func (p *peerTester) probeAhead(plan []int) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, j := range plan {
		wg.Go(func() {
			r := p.prober.Probe(p.ctx, p.targets[j])
			mu.Lock()
			p.planned[j] = r
			mu.Unlock()
		})
	}
	wg.Wait()
}

// Test returns the planned result for j if there is one, else probes j now.
func (p *peerTester) Test(j int) hiadsd.Status {
	r, ok := p.planned[j]
	if ok {
		delete(p.planned, j)
	} else {
		r = p.prober.Probe(p.ctx, p.targets[j])
	}
	p.results[j] = r
	return coreStatus(r.Status)
}

// Fetch reads j's diagTree rows for ranges with one GETBULK walk per range.
func (p *peerTester) Fetch(j int, ranges []hiadsd.Range) ([]hiadsd.IDEntry, error) {
	var out []hiadsd.IDEntry
	for _, r := range ranges {
		if r.Len() == 0 {
			continue
		}
		rows, err := p.prober.FetchRows(p.ctx, p.targets[j], r.Lo+1, r.Hi)
		if err != nil {
			return nil, err
		}
		for _, row := range rows {
			out = append(out, hiadsd.IDEntry{ID: int(row.ID) - 1,
				Entry: hiadsd.Entry{Status: coreStatus(row.Status), Counter: row.Counter}})
		}
	}
	p.sources = append(p.sources, j)
	return out, nil
}

// coreStatus maps a MIB status to the core's.
func coreStatus(s mib.Status) hiadsd.Status {
	st, err := hiadsd.StatusFromMIB(int(s))
	if err != nil {
		return hiadsd.Unknown
	}
	return st
}
