package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/agent/client"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/mib"
)

// nodesCmd answers diagagent nodes: it adds a node to the list, or removes
// one, through any agent (a SET of a diagTree row, with the keyring's user,
// else the write community), then waits until every agent that answers
// holds the change, and names the agents that lag.
func nodesCmd(args, env []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diagagent nodes", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cf := addClusterFlagsAs(fs, "write-community")
	add := fs.String("add", "", "add the node at this address or host name")
	remove := fs.String("remove", "", "remove the node of this NodeID or name")
	name := fs.String("name", "", "with -add: the node's name")
	port := fs.Uint("port", nodelist.DefaultPort, "with -add: the UDP port of the node's SNMP agent")
	tested := fs.Bool("tested-only", false, "with -add: the node runs no agent (a printer): tested, never a tester")
	community := fs.String("community", "", "with -add -tested-only: the community the device is tested with (default: the agents' read community)")
	wait := fs.Duration("wait", 2*time.Minute, "how long to wait for every answering agent to hold the change (0: do not wait)")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 || (*add == "") == (*remove == "") || *port < 1 || *port > 65535 || *wait < 0 ||
		(*remove != "" && (*name != "" || *tested || *community != "")) {
		fmt.Fprintln(stderr, "usage: diagagent nodes (-add ADDRESS [-name N] [-port P] [-tested-only] [-community C] | -remove ID|NAME) [-wait D] [-config F] [-agent host:port] [-write-community C]")
		return 2
	}
	v, err := cf.open(env)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	if !v.Prober.CanPush() {
		fmt.Fprintln(stderr, "diagagent nodes: no credentials to set with: the configuration has neither a keyring nor snmp.communities.write; give -write-community")
		return 2
	}
	n := nodesRun{v: v, stdout: stdout, stderr: stderr, wait: *wait}
	if *add != "" {
		return n.add(*add, uint16(*port), *name, *tested, *community)
	}
	return n.remove(*remove)
}

// nodesRun is one run of diagagent nodes.
type nodesRun struct {
	v              clusterView
	stdout, stderr io.Writer
	wait           time.Duration
}

// addAttempts bounds the SETs an add makes when the id it read is taken by
// another manager's add at the same agent meanwhile.
const addAttempts = 3

// add adds the node at address (text, or a host name the agent resolves)
// at the id the agent gives next, then waits for every agent to list it.
func (n nodesRun) add(address string, port uint16, name string, tested bool, community string) int {
	want := nodeKey{host: address, port: port}
	if a, err := netip.ParseAddr(address); err == nil {
		want.host = a.Unmap().String()
	} else if strings.ContainsAny(address, " _/:") {
		fmt.Fprintf(n.stderr, "diagagent nodes: -add %q is neither an address nor a host name\n", address)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), client.Timeout)
	defer cancel()
	if id, err := n.listed(ctx, n.v.Agent, want); err != nil {
		fmt.Fprintln(n.stderr, "nodes:", client.Say(err))
		return 1
	} else if id > 0 {
		fmt.Fprintf(n.stdout, "%s is node %d already\n", want, id)
		return n.await(fmt.Sprintf("node %d", id), want, true)
	}
	for range addAttempts {
		next, err := n.nextID(ctx)
		if err != nil {
			fmt.Fprintln(n.stderr, "nodes:", client.Say(err))
			return 1
		}
		vbs := []gosnmp.SnmpPDU{
			{Name: mib.TreeCell(mib.ColNodeHost, next), Type: gosnmp.OctetString, Value: address},
			{Name: mib.TreeCell(mib.ColNodePort, next), Type: gosnmp.Gauge32, Value: uint(port)},
			{Name: mib.TreeCell(mib.ColNodeTestedOnly, next), Type: gosnmp.Integer, Value: truthValue(tested)},
		}
		if name != "" {
			vbs = append(vbs, gosnmp.SnmpPDU{Name: mib.TreeCell(mib.ColNodeName, next), Type: gosnmp.OctetString, Value: name})
		}
		if community != "" {
			vbs = append(vbs, gosnmp.SnmpPDU{Name: mib.TreeCell(mib.ColNodeCommunity, next), Type: gosnmp.OctetString, Value: community})
		}
		vbs = append(vbs, gosnmp.SnmpPDU{Name: mib.TreeCell(mib.ColNodeRowStatus, next), Type: gosnmp.Integer, Value: mib.RowCreateAndGo})
		err = n.v.Prober.Set(ctx, n.v.Agent, vbs...)
		var se *probe.SetError
		switch {
		case err == nil:
			fmt.Fprintf(n.stdout, "%s added as node %d at agent %s\n", want, next, n.agent())
			return n.await(fmt.Sprintf("node %d", next), want, true)
		case errors.As(err, &se) && se.Status == gosnmp.InconsistentValue:
			id, lerr := n.listed(ctx, n.v.Agent, want)
			if lerr == nil && id > 0 {
				fmt.Fprintf(n.stdout, "%s is node %d: added meanwhile by another manager\n", want, id)
				return n.await(fmt.Sprintf("node %d", id), want, true)
			}
			continue // the id was taken meanwhile (or the name does not resolve): read the next id again
		default:
			fmt.Fprintf(n.stderr, "nodes: add %s at agent %s: %s\n", want, n.agent(), refusal(err))
			return 1
		}
	}
	fmt.Fprintf(n.stderr, "nodes: add %s at agent %s: refused %d times (inconsistentValue): the id was taken each time by another change, or the agent cannot resolve %s\n",
		want, n.agent(), addAttempts, address)
	return 1
}

// remove removes the node of NodeID or name which, then waits for every
// agent to drop it.
func (n nodesRun) remove(which string) int {
	ctx, cancel := context.WithTimeout(context.Background(), client.Timeout)
	defer cancel()
	m, err := n.v.Prober.FetchMembers(ctx, n.v.Agent)
	if err != nil {
		fmt.Fprintln(n.stderr, "nodes:", client.Say(err))
		return 1
	}
	node, ok := n.pick(m, which)
	if !ok {
		fmt.Fprintf(n.stderr, "nodes: agent %s lists no node %q (give its NodeID or name, as diagagent members shows them)\n", n.agent(), which)
		return 1
	}
	key := keyOf(node.Member)
	if netip.AddrPortFrom(node.Addr, node.Port) == netip.AddrPortFrom(n.v.Agent.Addr, n.v.Agent.Port) {
		fmt.Fprintf(n.stderr, "nodes: node %d is the agent asked, which does not remove itself: ask another agent (-agent)\n", node.ID)
		return 1
	}
	err = n.v.Prober.Set(ctx, n.v.Agent, gosnmp.SnmpPDU{Name: mib.TreeCell(mib.ColNodeRowStatus, int(node.ID)), Type: gosnmp.Integer, Value: mib.RowDestroy})
	if err != nil {
		fmt.Fprintf(n.stderr, "nodes: remove node %d (%s) at agent %s: %s\n", node.ID, key, n.agent(), refusal(err))
		return 1
	}
	fmt.Fprintf(n.stdout, "node %d (%s) removed at agent %s\n", node.ID, key, n.agent())
	return n.await(fmt.Sprintf("node %d", node.ID), key, false)
}

// pick finds the node which names: a NodeID, or a name the agent serves
// or the configuration gives.
func (n nodesRun) pick(m probe.Members, which string) (probe.Member, bool) {
	id, err := strconv.Atoi(which)
	for _, node := range m.Nodes {
		if err == nil && int(node.ID) == id || err != nil && node.Name == which {
			return node, true
		}
		for _, c := range n.v.cfg.Nodes {
			if err != nil && c.Name == which && c.Address == node.Addr && (c.Port == 0 || uint16(c.Port) == node.Port) {
				return node, true
			}
		}
	}
	return probe.Member{}, false
}

// nodeKey names a node as an agent's diagTree shows it: its host name or
// address (nodeHost) and its port.
type nodeKey struct {
	host string
	port uint16
}

func (k nodeKey) String() string {
	if a, err := netip.ParseAddr(k.host); err == nil {
		return netip.AddrPortFrom(a, k.port).String()
	}
	return fmt.Sprintf("%s port %d", k.host, k.port)
}

func keyOf(m nodelist.Member) nodeKey {
	if m.Host != "" {
		return nodeKey{m.Host, m.Port}
	}
	return nodeKey{m.Addr.String(), m.Port}
}

// listed returns the NodeID the agent at t lists node k at, 0 for none.
func (n nodesRun) listed(ctx context.Context, t probe.Target, k nodeKey) (uint32, error) {
	nodes, err := n.v.Prober.FetchNodes(ctx, t)
	if err != nil {
		return 0, err
	}
	for _, node := range nodes {
		if keyOf(node.Member) == k || (node.Addr.String() == k.host && node.Port == k.port) {
			return node.ID, nil
		}
	}
	return 0, nil
}

// nextID reads diagNodeNextID.0 of the agent asked.
func (n nodesRun) nextID(ctx context.Context) (int, error) {
	vbs, err := n.v.Prober.Get(ctx, n.v.Agent, mib.DiagNodeNextID0)
	if err != nil {
		return 0, fmt.Errorf("read diagNodeNextID.0 of agent %s (an agent of an older format has none): %w", n.agent(), err)
	}
	next, ok := vbs[0].Value.(uint)
	if !ok || next < 1 || next > mib.MaxNodeID {
		return 0, fmt.Errorf("agent %s: diagNodeNextID.0 is %v", n.agent(), vbs[0].Value)
	}
	return int(next), nil
}

// await waits until every agent the agent asked lists, and answers, holds
// node k (present) or no longer lists it (!present) (awaitSpread).
func (n nodesRun) await(what string, k nodeKey, present bool) int {
	return client.Await("nodes", what, n.wait, n.stdout, n.stderr, func(ctx context.Context) (client.Spread, error) {
		var mu sync.Mutex
		var ids []uint32 // the NodeIDs the node is listed at
		s, err := n.v.Survey(ctx, func(ctx context.Context, t probe.Target) (bool, error) {
			id, err := n.listed(ctx, t, k)
			if err == nil && id > 0 {
				mu.Lock()
				if !slices.Contains(ids, id) {
					ids = append(ids, id)
				}
				mu.Unlock()
			}
			return (id > 0) == present, err
		})
		if present && len(ids) == 1 && fmt.Sprintf("node %d", ids[0]) != what {
			s.Note = fmt.Sprintf("; it is node %d there: its id was given at once to another node, and it took the next", ids[0])
		}
		return s, err
	})
}

// agent names the agent asked.
func (n nodesRun) agent() string {
	return netip.AddrPortFrom(n.v.Agent.Addr, n.v.Agent.Port).String()
}

// refusal says in words why an agent refused a SET of the list.
func refusal(err error) string {
	var se *probe.SetError
	if !errors.As(err, &se) {
		return client.Say(err)
	}
	switch se.Status {
	case gosnmp.NoAccess:
		return "noAccess: with a keyring only the agents' own user (the keyring file) changes the list; without, the write community"
	case gosnmp.NoCreation:
		return "noCreation: the id is not the next one (diagNodeNextID)"
	case gosnmp.InconsistentValue:
		return "inconsistentValue: the node is not a member, is the agent asked, or its address is listed already"
	case gosnmp.WrongValue:
		return "wrongValue: not an address nor a host name"
	}
	return se.Error()
}

// truthValue is b as a TruthValue.
func truthValue(b bool) int {
	if b {
		return mib.TruthTrue
	}
	return mib.TruthFalse
}
