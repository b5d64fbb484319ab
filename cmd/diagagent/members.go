package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/client"
	"github.com/diagagent/diagagent/agent/config"
	"github.com/diagagent/diagagent/agent/parts"
	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// clusterView is what diagagent's commands ask the cluster with: the
// configuration (for credentials and node names) and the operators'
// client of the agent asked.
type clusterView struct {
	cfg config.Config
	*client.Client
}

// clusterFlags are the flags members and check share.
type clusterFlags struct {
	path, agent, community *string
}

func addClusterFlags(fs *flag.FlagSet) clusterFlags {
	return addClusterFlagsAs(fs, "community")
}

// addClusterFlagsAs is addClusterFlags with the community flag named
// community (diagagent nodes keeps -community for the node's own).
func addClusterFlagsAs(fs *flag.FlagSet, community string) clusterFlags {
	return clusterFlags{
		path:      fs.String("config", config.DefaultPath, "configuration file: the credentials (the keyring, else snmp.communities.read) and the nodes' names"),
		agent:     fs.String("agent", "", "the agent to ask, host:port (default: this host's agent)"),
		community: fs.String(community, "", "ask (and, for maintenance and nodes, set) with this SNMPv2c community instead of the configuration's credentials"),
	}
}

// open loads the configuration and builds the prober members and check
// ask with.
func (f clusterFlags) open(env []string) (clusterView, error) {
	cfg, err := config.Load(parts.Defaults(), *f.path, env, nil)
	if err != nil {
		return clusterView{}, err
	}
	v := clusterView{cfg: cfg}
	target, err := cliTarget(cfg, *f.agent)
	if err != nil {
		return clusterView{}, err
	}
	cred := client.Credentials{Community: *f.community, ReadCommunity: cfg.SNMP.Communities.Read, Write: cfg.SNMP.Communities.Write}
	if cred.Community == "" && cfg.Keyring != "" {
		ring, err := cliRing(cfg)
		if err != nil {
			return clusterView{}, err
		}
		cred.Users = ring.Users()
	}
	v.Client, err = client.Open(target, cred)
	return v, err
}

// member is one row of diagagent members.
type member struct {
	ID       uint32    `json:"id"`
	Name     string    `json:"name,omitempty"`
	Address  string    `json:"address"`
	Status   string    `json:"status"`
	Since    time.Time `json:"since"`
	Learned  string    `json:"learned"`
	Version  uint32    `json:"listVersion"`
	Tested   bool      `json:"testedOnly,omitempty"`
	Flapping bool      `json:"flapping"`
	// Maintenance is the end of the node's open maintenance window.
	Maintenance *time.Time `json:"maintenanceUntil,omitempty"`
	// Build is the agent's version as its sysDescr.0 says, with -versions:
	// "?" for an agent that did not answer; empty for a device.
	Build string `json:"version,omitempty"`
	// CauseGroup is nodeCauseGroup: the group the agent notified the node
	// lost with, 0 when it is out alone or not out.
	CauseGroup uint32 `json:"causeGroup,omitempty"`
	// status is Status as the core's value.
	status hiadsd.Status
}

// read asks the agent for every node, with names from the configuration.
func (v clusterView) read(ctx context.Context, now time.Time) ([]member, error) {
	m, err := v.Prober.FetchMembers(ctx, v.Agent)
	if err != nil {
		return nil, err
	}
	out := make([]member, 0, len(m.Nodes))
	for _, n := range m.Nodes {
		r := member{ID: n.ID, Address: netip.AddrPortFrom(n.Addr, n.Port).String(), Status: n.Status.String(),
			Version: m.ListVersion, Tested: n.TestedOnly, Learned: learnedFrom(n), Flapping: n.Flapping,
			CauseGroup: n.CauseGroup, status: n.Status}
		if n.Maint.Active(now) {
			until := n.Maint.Until
			r.Maintenance = &until
		}
		if n.LastChange <= m.Uptime {
			r.Since = now.Add(-time.Duration(m.Uptime-n.LastChange) * 10 * time.Millisecond).Truncate(time.Second)
		}
		r.Name = n.Name // the agent's: its file's, else the one the node was added with
		for _, c := range v.cfg.Nodes {
			if c.Address == n.Addr && (c.Port == 0 || uint16(c.Port) == n.Port) && c.Name != "" {
				r.Name = c.Name
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// learnedFrom says how the agent asked knows a node's status: by its own
// test, or from which agent (and who detected it), as its newest event
// about the node says.
func learnedFrom(n probe.Member) string {
	switch {
	case n.How == mib.SourceDirect:
		return "tested here"
	case n.How == mib.SourceNone:
		return "-"
	case n.Source != 0 && n.Detector != 0 && n.Source != n.Detector:
		return fmt.Sprintf("node %d (detected by %d)", n.Source, n.Detector)
	case n.Source != 0:
		return fmt.Sprintf("node %d", n.Source)
	}
	return "learned"
}

// membersCmd answers diagagent members: one row per node, as any agent
// sees the cluster, like serf members and consul members.
func membersCmd(args, env []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diagagent members", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cf := addClusterFlags(fs)
	format := fs.String("format", "table", "table or json")
	watch := fs.Duration("watch", 0, "print the table again at this period until interrupted (0: once)")
	versions := fs.Bool("versions", false, "also ask every agent its version (sysDescr.0), as during a rolling upgrade: a VERSION column")
	byCause := fs.Bool("causes", false, "print one line per cause of the nodes down instead of the table (nodes down within the grouping window of each other together)")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if (*format != "table" && *format != "json") || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "diagagent members: -format is table or json")
		return 2
	}
	v, err := cf.open(env)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	for {
		rctx, cancel := context.WithTimeout(ctx, client.Timeout)
		rows, err := v.read(rctx, time.Now())
		if err == nil && *versions {
			err = v.builds(rctx, rows)
		}
		cancel()
		if err != nil {
			fmt.Fprintln(stderr, "members:", client.Say(err))
			return 1
		}
		if *byCause {
			printCauses(stdout, rows)
		} else {
			printMembers(stdout, rows, *format)
		}
		if *watch <= 0 {
			return 0
		}
		select {
		case <-ctx.Done():
			return 0
		case <-time.After(*watch):
		}
		fmt.Fprintln(stdout)
	}
}

// builds sets each agent's row's Build from its sysDescr.0, asking every
// agent at once.
func (v clusterView) builds(ctx context.Context, rows []member) error {
	var mu sync.Mutex
	got := map[uint32]string{}
	_, err := v.Agents(ctx, func(a board.Row) {
		b := "?"
		if pdus, err := v.Prober.Get(ctx, probe.Target{Addr: a.Addr, Port: a.Port}, mib.SysDescr0); err == nil {
			d, _ := pdus[0].Value.([]byte)
			b = buildOf(string(d))
		}
		mu.Lock()
		got[a.ID] = b
		mu.Unlock()
	})
	for k := range rows {
		rows[k].Build = got[rows[k].ID]
	}
	return err
}

// buildOf reads the version out of an agent's sysDescr ("diagagent 1.1.0:
// distributed ..."); "?" for a description of another form.
func buildOf(descr string) string {
	rest, ok := strings.CutPrefix(descr, "diagagent ")
	v, _, found := strings.Cut(rest, ":")
	if !ok || !found || v == "" {
		return "?"
	}
	return v
}

// printMembers writes rows as a table or as JSON; a VERSION column when
// any row has its agent's version (-versions).
func printMembers(w io.Writer, rows []member, format string) {
	if format == "json" {
		b, _ := json.MarshalIndent(rows, "", "  ")
		fmt.Fprintln(w, string(b))
		return
	}
	builds := slices.ContainsFunc(rows, func(r member) bool { return r.Build != "" })
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head := "ID\tNAME\tADDRESS\tSTATUS\tFLAPPING\tMAINTENANCE\tSINCE\tLEARNED\tLIST"
	if builds {
		head += "\tVERSION"
	}
	fmt.Fprintln(tw, head)
	for _, r := range rows {
		name := dash(r.Name)
		if r.Tested {
			name += " (tested only)"
		}
		since := "-"
		if !r.Since.IsZero() {
			since = r.Since.Format(time.DateTime)
		}
		maint := "-"
		if r.Maintenance != nil {
			maint = "until " + r.Maintenance.Local().Format(time.DateTime)
		}
		line := fmt.Sprintf("%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d", r.ID, name, r.Address, r.Status, map[bool]string{true: "yes", false: "no"}[r.Flapping],
			maint, since, r.Learned, r.Version)
		if builds {
			line += "\t" + dash(r.Build)
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
}

// printCauses prints the nodes out as causes, one line each, then the
// nodes degraded or unknown; "every node fault-free" when there is none.
func printCauses(w io.Writer, rows []member) {
	lines := describeCauses(rows)
	if len(lines) == 0 {
		fmt.Fprintln(w, "every node fault-free")
	}
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}

// Plugin exit codes (monitoring-plugins guidelines).
const (
	pluginOK       = 0
	pluginWarning  = 1
	pluginCritical = 2
	pluginUnknown  = 3
)

// checkCmd answers diagagent check, a monitoring plugin for Nagios,
// Icinga and their kin: one line of output with performance data, exit 0
// when every node (or -node) is fault-free, 1 (WARNING) when more than
// -warning nodes are degraded, partial or faulty, 2 (CRITICAL) when more than
// -critical are faulty, 3 (UNKNOWN) when the agent cannot be read or a
// node is unknown to it.
func checkCmd(args, env []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diagagent check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cf := addClusterFlags(fs)
	warn := fs.Int("warning", 0, "WARNING when more nodes than this are degraded, partial or faulty")
	crit := fs.Int("critical", 0, "CRITICAL when more nodes than this are faulty")
	node := fs.Int("node", 0, "check this NodeID alone: OK fault-free, WARNING degraded or partial, CRITICAL faulty, UNKNOWN unknown")
	timeout := fs.Duration("timeout", 10*time.Second, "give up (UNKNOWN) after this long")
	if code, ok := parse(fs, args); !ok {
		if code == 0 {
			return 0 // -h: the flags were printed
		}
		return pluginUnknown
	}
	unknown := func(format string, a ...any) int {
		fmt.Fprintf(stdout, "DIAGAGENT UNKNOWN - "+format+"\n", a...)
		return pluginUnknown
	}
	if fs.NArg() > 0 || *warn < 0 || *crit < 0 {
		return unknown("usage: diagagent check [-config F] [-agent host:port] [-warning N] [-critical N] [-node ID]")
	}
	v, err := cf.open(env)
	if err != nil {
		return unknown("%v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	rows, err := v.read(ctx, time.Now())
	if err != nil {
		return unknown("cannot read agent %s: %v", netip.AddrPortFrom(v.Agent.Addr, v.Agent.Port), err)
	}
	count := map[string]int{}
	var down, maint []string
	var checked []member
	for _, r := range rows {
		if *node != 0 && r.ID != uint32(*node) {
			continue
		}
		checked = append(checked, r)
		if r.Maintenance != nil { // Nagios's downtime: shown, never counted against the thresholds
			count["maintenance"]++
			maint = append(maint, fmt.Sprintf("%s %s (maintenance)", label(r), r.Status))
			continue
		}
		count[r.Status]++
		if r.Flapping {
			count["flapping"]++
		}
	}
	down = append(down, describeCauses(checked)...) // one entry per cause, then degraded and unknown nodes
	down = append(down, maint...)
	total := count["fault-free"] + count["degraded"] + count["partial"] + count["faulty"] + count["unknown"] + count["maintenance"]
	perf := fmt.Sprintf("fault_free=%d;;;0;%d degraded=%d;;;0;%d partial=%d;;;0;%d faulty=%d;;;0;%d unknown=%d;;;0;%d flapping=%d;;;0;%d maintenance=%d;;;0;%d",
		count["fault-free"], total, count["degraded"], total, count["partial"], total, count["faulty"], total, count["unknown"], total, count["flapping"], total, count["maintenance"], total)
	state, word := pluginOK, "OK"
	switch {
	case total == 0:
		return unknown("agent %s has no node %d", netip.AddrPortFrom(v.Agent.Addr, v.Agent.Port), *node)
	case count["unknown"] > 0 && *node != 0:
		state, word = pluginUnknown, "UNKNOWN"
	case count["faulty"] > *crit:
		state, word = pluginCritical, "CRITICAL"
	case count["degraded"]+count["partial"]+count["faulty"] > *warn:
		state, word = pluginWarning, "WARNING"
	}
	summary := fmt.Sprintf("%d of %d nodes fault-free", count["fault-free"], total)
	if len(down) > 0 {
		summary += ": " + strings.Join(down, ", ")
	}
	fmt.Fprintf(stdout, "DIAGAGENT %s - %s | %s\n", word, summary, perf)
	return state
}

// label names a node for a line: its name, else its id and address.
func label(r member) string {
	if r.Name != "" {
		return r.Name
	}
	return fmt.Sprintf("node %d (%s)", r.ID, r.Address)
}
