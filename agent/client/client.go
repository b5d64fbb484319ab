// Package client is the operators' client: what diagagent's commands
// (members, check, nodes, maintenance, keyring, reachability) ask of the
// cluster. It opens one agent with the operator's credentials (the cluster
// key's users, else a community), reads that agent's node list, asks every
// agent it lists at once (Agents, Survey), and waits until every agent
// answering holds a change (Await), naming those that lag and those that
// do not answer. It speaks SNMP through probe's manager (probe.Prober),
// and tests nothing: the tester is the daemon's.
package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/agent/usm"
)

// Client asks the cluster through one agent.
type Client struct {
	// Agent is the agent asked first: its node list names the others.
	Agent probe.Target
	// Prober speaks SNMP to every agent asked, as Open chose.
	Prober *probe.Prober
}

// Credentials are what a command speaks with, the first set of: a
// community given on its command line (read and write), the cluster key's
// users (Users, the first tried first), the configuration's read and write
// communities.
type Credentials struct {
	Community            string
	Users                []usm.User
	ReadCommunity, Write string
}

// ErrNoCredentials says Open was given nothing to speak with.
var ErrNoCredentials = errors.New("no credentials: the configuration has neither a keyring nor snmp.communities.read; give -community")

// Open returns a Client of agent that speaks with c.
func Open(agent probe.Target, c Credentials) (*Client, error) {
	pc := probe.Default()
	pc.Community, pc.WriteCommunity = c.ReadCommunity, c.Write
	switch {
	case c.Community != "":
		pc.Community, pc.WriteCommunity = c.Community, c.Community
	case len(c.Users) > 0:
		pc.V3, pc.Others = &c.Users[0], c.Users[1:]
	case pc.Community == "":
		return nil, ErrNoCredentials
	}
	p, err := probe.New(pc, nil)
	if err != nil {
		return nil, err
	}
	return &Client{Agent: agent, Prober: p}, nil
}

// Agents calls ask for every agent the Agent lists (tested-only devices
// aside), all at once, and returns the list once every call is done.
func (c *Client) Agents(ctx context.Context, ask func(a board.Row)) ([]board.Row, error) {
	nodes, err := c.Prober.FetchNodes(ctx, c.Agent)
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

// Spread is what one survey of the agents found of a change: how many of
// those answering hold it, those that do not yet (Lag), and those that
// did not answer (Silent), each named for the operator.
type Spread struct {
	Held        int
	Lag, Silent []string
	Surveyed    int    // the agents asked
	Note        string // said after the count once every answering agent holds it
}

// Survey asks every agent the Agent lists (Agents) whether it holds a
// change: holds answers for one agent, an error counting it silent.
func (c *Client) Survey(ctx context.Context, holds func(context.Context, probe.Target) (bool, error)) (Spread, error) {
	var s Spread
	var mu sync.Mutex
	_, err := c.Agents(ctx, func(a board.Row) {
		ok, err := holds(ctx, probe.Target{Addr: a.Addr, Port: a.Port})
		mu.Lock()
		defer mu.Unlock()
		s.Surveyed++
		name := fmt.Sprintf("node %d (%s)", a.ID, netip.AddrPortFrom(a.Addr, a.Port))
		switch {
		case err != nil:
			s.Silent = append(s.Silent, name)
		case ok:
			s.Held++
		default:
			s.Lag = append(s.Lag, name)
		}
	})
	return s, err
}

// Poll is how often Await asks again, and Timeout how long one survey may take.
const (
	Poll    = 250 * time.Millisecond
	Timeout = 30 * time.Second
)

// Await is the one "wait until the cluster holds it" of the commands that
// change the cluster (nodes, maintenance, keyring): it asks survey, each
// time within Timeout, until every agent answering holds the change, then
// says how long that took and returns 0; after wait it names the agents
// that lag, and those that do not answer, and returns 1. A wait of 0 asks
// nothing. cmd prefixes the errors, what names the change in them.
func Await(cmd, what string, wait time.Duration, stdout, stderr io.Writer, survey func(context.Context) (Spread, error)) int {
	if wait == 0 {
		return 0
	}
	start := time.Now()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), Timeout)
		s, err := survey(ctx)
		cancel()
		if err != nil {
			fmt.Fprintf(stderr, "%s: %s\n", cmd, Say(err))
			return 1
		}
		if len(s.Lag) == 0 {
			fmt.Fprintf(stdout, "every answering agent (%d of %d) holds the change after %.1f s%s\n", s.Held, s.Surveyed,
				time.Since(start).Seconds(), s.Note)
			if len(s.Silent) > 0 {
				fmt.Fprintf(stdout, "not answering, so not asked: %s\n", strings.Join(s.Silent, ", "))
			}
			return 0
		}
		if time.Since(start) > wait {
			fmt.Fprintf(stderr, "%s: after %v, %d of %d answering agents do not hold the change to %s yet: %s\n",
				cmd, wait, len(s.Lag), s.Held+len(s.Lag), what, strings.Join(s.Lag, ", "))
			if len(s.Silent) > 0 {
				fmt.Fprintf(stderr, "not answering: %s\n", strings.Join(s.Silent, ", "))
			}
			return 1
		}
		time.Sleep(Poll)
	}
}

// Say words an error of a command that asks an agent as its reader would
// want it: a credential the agent refuses, or no answer, says what to do;
// anything else is said as it is.
func Say(err error) string {
	switch {
	case probe.KeyRefused(err):
		return "the agent refuses every cluster key this command holds (the configuration's keyring file, and the keys this host's agent keeps in its state_dir): " +
			"the keys were rotated since. Copy the cluster's current keyring file here (diagagent keyring -list at an up-to-date agent names the key in use), " +
			"or ask from an agent's host (-agent)"
	case errors.Is(err, context.DeadlineExceeded), err != nil && strings.Contains(err.Error(), "timeout"),
		err != nil && strings.Contains(err.Error(), "connection refused"):
		return "no answer: is the agent running, and does it listen at that address and port (snmp.listen; -agent host:port)? (" + err.Error() + ")"
	}
	return err.Error()
}
