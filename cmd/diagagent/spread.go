package main

import (
	"context"
	"fmt"
	"io"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/probe"
)

// spread is what one survey of the agents found of a change: how many of
// those answering hold it, those that do not yet (lag), and those that
// did not answer (silent), each named for the operator.
type spread struct {
	held        int
	lag, silent []string
	surveyed    int    // the agents asked
	note        string // said after the count once every answering agent holds it
}

// spreadPoll is how often awaitSpread asks again.
const spreadPoll = 250 * time.Millisecond

// awaitSpread is the one "wait until the cluster holds it" of diagagent's
// commands (nodes, maintenance, keyring): it asks survey, each time within
// keyringTimeout, until every agent answering holds the change, then says
// how long that took and returns 0; after wait it names the agents that
// lag, and those that do not answer, and returns 1. A wait of 0 asks
// nothing. cmd prefixes the errors, what names the change in them.
func awaitSpread(cmd, what string, wait time.Duration, stdout, stderr io.Writer, survey func(context.Context) (spread, error)) int {
	if wait == 0 {
		return 0
	}
	start := time.Now()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), keyringTimeout)
		s, err := survey(ctx)
		cancel()
		if err != nil {
			fmt.Fprintf(stderr, "%s: %s\n", cmd, say(err))
			return 1
		}
		if len(s.lag) == 0 {
			fmt.Fprintf(stdout, "every answering agent (%d of %d) holds the change after %.1f s%s\n", s.held, s.surveyed,
				time.Since(start).Seconds(), s.note)
			if len(s.silent) > 0 {
				fmt.Fprintf(stdout, "not answering, so not asked: %s\n", strings.Join(s.silent, ", "))
			}
			return 0
		}
		if time.Since(start) > wait {
			fmt.Fprintf(stderr, "%s: after %v, %d of %d answering agents do not hold the change to %s yet: %s\n",
				cmd, wait, len(s.lag), s.held+len(s.lag), what, strings.Join(s.lag, ", "))
			if len(s.silent) > 0 {
				fmt.Fprintf(stderr, "not answering: %s\n", strings.Join(s.silent, ", "))
			}
			return 1
		}
		time.Sleep(spreadPoll)
	}
}

// surveyAgents asks every agent the agent asked lists (tested-only devices
// aside), all at once, whether it holds a change: holds answers for one
// agent, an error counting it silent.
func surveyAgents(ctx context.Context, v clusterView, holds func(context.Context, probe.Target) (bool, error)) (spread, error) {
	var s spread
	var mu sync.Mutex
	_, err := askAgents(ctx, v, func(a board.Row) {
		ok, err := holds(ctx, probe.Target{Addr: a.Addr, Port: a.Port})
		mu.Lock()
		defer mu.Unlock()
		s.surveyed++
		name := fmt.Sprintf("node %d (%s)", a.ID, netip.AddrPortFrom(a.Addr, a.Port))
		switch {
		case err != nil:
			s.silent = append(s.silent, name)
		case ok:
			s.held++
		default:
			s.lag = append(s.lag, name)
		}
	})
	return s, err
}

// askAgents calls ask for every agent the agent v asks lists (tested-only
// devices aside), all at once, and returns the list once every call is
// done.
func askAgents(ctx context.Context, v clusterView, ask func(a board.Row)) ([]board.Row, error) {
	nodes, err := v.prober.FetchNodes(ctx, v.target)
	if err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	for _, a := range nodes {
		if !a.TestedOnly {
			wg.Go(func() { ask(a) })
		}
	}
	wg.Wait()
	return nodes, nil
}
