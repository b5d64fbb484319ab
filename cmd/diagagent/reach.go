package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/client"
	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/mib"
)

// reachRow is one node of diagagent reachability: the agents that cannot
// reach it while others do.
type reachRow struct {
	ID      uint32   `json:"id"`
	Name    string   `json:"name,omitempty"`
	Address string   `json:"address"`
	From    []uint32 `json:"unreachableFrom"`
}

// reachReport is what diagagent reachability found: the rows, and the
// agents asked that did not answer, or that serve no diagUnreached (a
// release before 1.1).
type reachReport struct {
	Rows   []reachRow `json:"nodes"`
	Asked  int        `json:"asked"`
	Silent []uint32   `json:"silent,omitempty"`
	Older  []uint32   `json:"older,omitempty"`
}

// reachabilityCmd answers diagagent reachability: every agent the agent
// asked lists is asked which nodes it cannot reach while other agents do
// (diagUnreached), and each such node is printed once, with those agents,
// as serf reachability does.
func reachabilityCmd(args, env []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diagagent reachability", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cf := addClusterFlags(fs)
	format := fs.String("format", "table", "table or json")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if (*format != "table" && *format != "json") || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "diagagent reachability: -format is table or json")
		return 2
	}
	v, err := cf.open(env)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), client.Timeout)
	defer cancel()
	r, err := v.reachability(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "reachability:", client.Say(err))
		return 1
	}
	printReach(stdout, r, *format)
	return 0
}

// reachability asks every agent, all at once, for its diagUnreached.
func (v clusterView) reachability(ctx context.Context) (reachReport, error) {
	var r reachReport
	from := map[uint32][]uint32{}
	var mu sync.Mutex
	nodes, err := v.Agents(ctx, func(a board.Row) {
		pdus, err := v.Prober.Get(ctx, probe.Target{Addr: a.Addr, Port: a.Port}, mib.DiagUnreached0)
		mu.Lock()
		defer mu.Unlock()
		r.Asked++
		switch {
		case err != nil:
			r.Silent = append(r.Silent, a.ID)
			return
		case pdus[0].Type == gosnmp.NoSuchObject || pdus[0].Type == gosnmp.NoSuchInstance:
			r.Older = append(r.Older, a.ID)
			return
		}
		b, _ := pdus[0].Value.([]byte)
		ids, err := mib.ParseNodeIDs(b)
		if err != nil {
			r.Silent = append(r.Silent, a.ID)
			return
		}
		for _, id := range ids {
			from[id] = append(from[id], a.ID)
		}
	})
	if err != nil {
		return reachReport{}, err
	}
	for _, n := range nodes {
		if agents, ok := from[n.ID]; ok {
			slices.Sort(agents)
			r.Rows = append(r.Rows, reachRow{ID: n.ID, Name: n.Name, Address: netip.AddrPortFrom(n.Addr, n.Port).String(), From: agents})
		}
	}
	slices.Sort(r.Silent)
	slices.Sort(r.Older)
	return r, nil
}

// printReach writes r as a table or as JSON.
func printReach(w io.Writer, r reachReport, format string) {
	if format == "json" {
		b, _ := json.MarshalIndent(r, "", "  ")
		fmt.Fprintln(w, string(b))
		return
	}
	answered := r.Asked - len(r.Silent) - len(r.Older)
	if len(r.Rows) == 0 {
		fmt.Fprintf(w, "every node is reachable from every agent that answered (%d of %d)\n", answered, r.Asked)
	} else {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tADDRESS\tUNREACHABLE FROM")
		for _, row := range r.Rows {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", row.ID, dash(row.Name), row.Address, joinIDs(row.From))
		}
		tw.Flush()
		fmt.Fprintf(w, "%d of %d agents answered\n", answered, r.Asked)
	}
	if len(r.Silent) > 0 {
		fmt.Fprintf(w, "not answering: %s\n", joinIDs(r.Silent))
	}
	if len(r.Older) > 0 {
		fmt.Fprintf(w, "older than 1.1 (no diagUnreached): %s\n", joinIDs(r.Older))
	}
}

// joinIDs writes NodeIDs as "1, 10, 11".
func joinIDs(ids []uint32) string {
	s := make([]string, len(ids))
	for k, id := range ids {
		s[k] = fmt.Sprint(id)
	}
	return strings.Join(s, ", ")
}

// dash is s, or "-" for an empty one.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
