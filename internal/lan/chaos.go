//go:build linux

package lan

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/diagagent/diagagent/mib"
)

// maxRSS is the resident memory no agent may exceed during a chaos run.
const maxRSS = 30 << 20

// ChaosSpec says how long a chaos run lasts, the packet loss on every host
// throughout, and the seed of its random faults (the same seed, the same
// faults in the same order).
type ChaosSpec struct {
	Duration time.Duration
	Loss     int
	Seed     uint64
}

// ChaosResult is what a chaos run did and found. Violations lists every
// broken invariant; a sound run has none.
type ChaosResult struct {
	Spec            ChaosSpec
	Took            time.Duration
	Faults          map[string]int // faults injected, by kind
	Restarts        int            // agents killed with SIGKILL and started again
	Events          int            // status changes the agents logged (first verdicts "fault-free" aside)
	FalseSuspicions int            // of those, faulty or partial about a node no fault was on, outside any link fault
	HealSuspicions  int            // faulty or partial about a node no fault was on, learned while a cut-off host rejoined
	Expected        int            // status notifications the agents logged they sent
	Received        int            // distinct notifications the station received
	Duplicates      int            // notifications received more than once (an inform resent after a lost acknowledgement)
	TableRows       int            // event-table rows checked, over every agent
	MaxRSS          int64          // the largest resident memory of an agent, bytes
	Violations      []string
}

// fault is one kind of fault the run injects and repairs.
type fault struct {
	name   string
	status int // what a fault-free agent must come to hold of the target (1 faulty, 2 partial)
	inject func(c *Cluster, k int) error
	repair func(c *Cluster, k int) error
}

// faults are the kinds of fault, each on an agent's host; the station's
// own is handled apart (the harness reads the agents from its namespace).
var faults = []fault{
	{"SIGKILL and restart", 2, (*Cluster).KillAgent, (*Cluster).StartAgent},
	{"SIGSTOP and SIGCONT", 2,
		func(c *Cluster, k int) error { return c.agents[k].Freeze() },
		func(c *Cluster, k int) error { return c.agents[k].Thaw() }},
	{"link down and up", 1,
		func(c *Cluster, k int) error { return c.Net.LinkDown(k) },
		func(c *Cluster, k int) error { return c.Net.LinkUp(k) }},
}

// stationAway is the name of the fault that takes the station off the LAN.
const stationAway = "station away and back"

// chaosRun is the state of one run.
type chaosRun struct {
	c        *Cluster
	res      *ChaosResult
	log      io.Writer
	rng      *rand.Rand
	tables   []map[int]string // per agent: event seq -> "node/status", as first read
	underway []window         // when each fault was on, for false suspicions
}

// window is a fault on NodeID node from start until a repair was seen.
type window struct {
	node       int
	link       bool // the host was cut off: it held everyone else faulty
	start, end time.Time
}

// Chaos runs random faults on a started cluster (every agent up, every node
// fault-free) for s.Duration with s.Loss percent loss on every host, one
// fault at a time: inject, wait until every fault-free agent holds it
// (within the bound), repair, wait until every agent holds every node
// fault-free (within the bound and one round). Along the way it checks that
// no agent exits and none grows past 30 MB; at the end, that every agent's
// event table has no gap and never renames a row, that it holds every event
// the agent logged, and that the station got exactly one notification (once
// or more) for each event an agent detected itself, and none for anything
// else. Progress goes to log.
func (c *Cluster) Chaos(s ChaosSpec, log io.Writer) (ChaosResult, error) {
	res := ChaosResult{Spec: s, Faults: map[string]int{}}
	r := &chaosRun{c: c, res: &res, log: log, rng: rand.New(rand.NewPCG(s.Seed, 0x5eed)),
		tables: make([]map[int]string, c.Agents)}
	for k := range r.tables {
		r.tables[k] = map[int]string{}
	}
	evMark, start := c.Mark(), time.Now()
	if err := c.Net.SetLossAll(s.Loss); err != nil {
		return res, err
	}
	for time.Since(start) < s.Duration {
		if err := r.cycle(); err != nil {
			return res, err
		}
	}
	if err := c.Net.SetLossAll(0); err != nil {
		return res, err
	}
	res.Took = time.Since(start)
	r.checkAlive()
	for range 4 { // every row whole before the events are checked against them
		if r.readTables() == 0 {
			break
		}
	}
	for _, t := range r.tables {
		res.TableRows += len(t)
	}
	all := c.Events(0) // start-up's events (nodes not yet started are partial) are events too
	r.checkEvents(all, evMark)
	r.checkNotifications(all)
	return res, nil
}

// violate records a broken invariant.
func (r *chaosRun) violate(format string, args ...any) {
	v := fmt.Sprintf(format, args...)
	r.res.Violations = append(r.res.Violations, v)
	fmt.Fprintln(r.log, "chaos: VIOLATION:", v)
}

// cycle injects one random fault, waits for its diagnosis, repairs it and
// waits for every agent to hold the truth again.
func (r *chaosRun) cycle() error {
	c := r.c
	pick := r.rng.IntN(len(faults) + 1)
	if pick == len(faults) && r.res.Faults[stationAway] < r.agentFaults() {
		return r.stationCycle()
	}
	// The station away changes no status: a run made of it alone would
	// check nothing (one seed in 256 drew four of them in a row), so it
	// never outnumbers the agents' faults.
	if pick == len(faults) {
		pick = r.rng.IntN(len(faults))
	}
	f, k := faults[pick], r.rng.IntN(c.Agents)
	r.res.Faults[f.name]++
	w := window{node: k + 1, link: f.status == 1, start: time.Now()}
	fmt.Fprintf(r.log, "chaos: %s: %s on agent %d\n", w.start.Format("15:04:05.000"), f.name, k+1)
	if err := f.inject(c, k); err != nil {
		return fmt.Errorf("chaos: %s on agent %d: %w", f.name, k+1, err)
	}
	others := without(ids(c.Agents), k)
	took, err := c.Poll(c.Bound(), func() bool { return c.AllSee(others, []int{k + 1}, f.status) })
	if err != nil {
		r.violate("%s on agent %d: not every fault-free agent holds it at %d within the bound %v (%s)",
			f.name, k+1, f.status, c.Bound(), c.Stale())
	}
	if err := f.repair(c, k); err != nil {
		return fmt.Errorf("chaos: repair %s on agent %d: %w", f.name, k+1, err)
	}
	if f.name == faults[0].name {
		r.res.Restarts++
	}
	settled := r.settle()
	w.end = time.Now()
	r.underway = append(r.underway, w)
	fmt.Fprintf(r.log, "chaos: %s on agent %d: diagnosed in %v, all fault-free %v after the repair\n",
		f.name, k+1, took.Round(time.Millisecond), settled.Round(time.Millisecond))
	r.checkAlive()
	r.checkRSS()
	r.readTables()
	return nil
}

// agentFaults returns how many faults the run injected on agents.
func (r *chaosRun) agentFaults() int {
	n := 0
	for _, f := range faults {
		n += r.res.Faults[f.name]
	}
	return n
}

// stationCycle takes the station's link down for two rounds and back; the
// agents keep diagnosing and their informs wait to be acknowledged.
func (r *chaosRun) stationCycle() error {
	c := r.c
	r.res.Faults[stationAway]++
	st := len(c.Net.Hosts) - 1
	if err := c.Net.LinkDown(st); err != nil {
		return err
	}
	<-time.After(2 * c.RoundTime()) // the harness reads the agents from the station: nothing to poll
	if err := c.Net.LinkUp(st); err != nil {
		return err
	}
	settled := r.settle()
	fmt.Fprintf(r.log, "chaos: %s: all fault-free %v after\n", stationAway, settled.Round(time.Millisecond))
	r.checkAlive()
	r.checkRSS()
	r.readTables()
	return nil
}

// settle waits until every agent holds every node fault-free, for the
// bound and one round at most, and records a violation otherwise.
func (r *chaosRun) settle() time.Duration {
	c := r.c
	quiet := c.Bound() + c.RoundTime()
	took, err := c.Poll(quiet, func() bool { return c.AllSee(ids(c.Agents), nodeIDs(c.Nodes()), 0) })
	if err != nil {
		r.violate("not every agent holds every node fault-free %v after a repair (%s)", quiet, c.Stale())
	}
	return took
}

// checkAlive records every agent that exited without being stopped.
func (r *chaosRun) checkAlive() {
	for k, p := range r.c.agents {
		if p == nil {
			r.violate("agent %d is not running", k+1)
			continue
		}
		select {
		case <-p.Done():
			r.violate("agent %d exited on its own", k+1)
			r.c.agents[k] = nil
		default:
		}
	}
}

// checkRSS reads each agent's resident memory from /proc.
func (r *chaosRun) checkRSS() {
	for k, p := range r.c.agents {
		if p == nil {
			continue
		}
		rss, err := residentBytes(p.PID())
		if err != nil {
			continue // it exited between the check and the read; checkAlive says so
		}
		r.res.MaxRSS = max(r.res.MaxRSS, rss)
		if rss > maxRSS {
			r.violate("agent %d resident memory %d MB, over 30 MB", k+1, rss>>20)
		}
	}
}

// residentBytes reads VmRSS of a process.
func residentBytes(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			var kb int64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb); err != nil {
				return 0, err
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("lan: no VmRSS for pid %d", pid)
}

// eventColumn matches one row of the event table's NodeID (2) or status (3) column.
var eventColumn = regexp.MustCompile(`^\.1\.3\.6\.1\.4\.1\.200\.1\.8\.1\.([23])\.(\d+) (\d+)$`)

// readTables walks every agent's event table and checks it: sequence
// numbers consecutive, each row naming the same event as at its last read.
// The two columns are walked one after the other: a row only one of them
// saw (written, or dropped, between the walks) waits for the next read;
// it returns how many rows waited so.
func (r *chaosRun) readTables() (partial int) {
	for k := range r.c.Agents {
		rows := map[int][2]string{}
		for _, col := range []string{"2", "3"} {
			out, err := r.walk(k, ".1.3.6.1.4.1.200.1.8.1."+col)
			if err != nil {
				r.violate("agent %d: cannot walk its event table: %v", k+1, err)
				return partial
			}
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				m := eventColumn.FindStringSubmatch(strings.TrimSpace(l))
				if m == nil {
					continue
				}
				seq, _ := strconv.Atoi(m[2])
				row := rows[seq]
				row[m[1][0]-'2'] = m[3] // column 2 (NodeID) first, then 3 (status)
				rows[seq] = row
			}
		}
		for s, row := range rows {
			if row[0] == "" || row[1] == "" { // a row written, or dropped, between the two columns' walks
				delete(rows, s)
				partial++
			}
		}
		r.checkTable(k, rows)
	}
	return partial
}

// walk walks one column of agent k, trying three times (a lost datagram
// under loss is no violation).
func (r *chaosRun) walk(k int, oid string) (string, error) {
	var err error
	for try := 0; try < 3; try++ {
		var out string
		if out, err = r.c.snmp("snmpwalk", "public", r.c.AgentAddr(k), "-Oq", oid); err == nil {
			return out, nil
		}
	}
	return "", err
}

// checkTable checks one agent's rows against itself and its earlier read.
func (r *chaosRun) checkTable(k int, rows map[int][2]string) {
	seqs := make([]int, 0, len(rows))
	for s := range rows {
		seqs = append(seqs, s)
	}
	sort.Ints(seqs)
	for i, s := range seqs {
		if i > 0 && s != seqs[i-1]+1 {
			r.violate("agent %d: event table jumps from seq %d to %d", k+1, seqs[i-1], s)
		}
		ev := rows[s][0] + "/" + rows[s][1]
		if was, ok := r.tables[k][s]; ok && was != ev {
			r.violate("agent %d: seq %d named node/status %s, now %s", k+1, s, was, ev)
		}
		r.tables[k][s] = ev
	}
}

// checkEvents checks each logged event against the agent's event table, and
// counts the events from index from on (the run's) and their false suspicions.
func (r *chaosRun) checkEvents(evs []Event, from int) {
	for i, e := range evs {
		if !e.Change() {
			r.violate("agent %d refused an entry about node %d: no correct agent sends one", e.Self, e.Node)
			continue
		}
		if i >= from {
			r.res.Events++
			if e.New == "faulty" || e.New == "partial" {
				r.suspicion(e)
			}
		}
		if e.Self < 1 || e.Self > r.c.Agents {
			continue
		}
		want := fmt.Sprintf("%d/%s", e.Node, statusCode[e.New])
		if got, ok := r.tables[e.Self-1][e.Seq]; !ok || got != want {
			r.violate("agent %d logged seq %d as %s; its event table holds %q", e.Self, e.Seq, want, got)
		}
	}
}

// suspicion classifies an event that holds a node faulty or partial: right
// when a fault was on that node (or the event comes from the host under the
// fault, which sees everyone else gone), learned from a cut-off host that
// rejoined with its stale view, or else false (lost datagrams).
func (r *chaosRun) suspicion(e Event) {
	heal := false
	for _, w := range r.underway {
		if e.At.Before(w.start) || e.At.After(w.end) {
			continue
		}
		if w.node == e.Node || w.node == e.Self {
			return
		}
		heal = heal || w.link
	}
	if heal {
		r.res.HealSuspicions++
		return
	}
	r.res.FalseSuspicions++
	fmt.Fprintf(r.log, "chaos: false suspicion at %s: agent %d holds node %d %s (%s, seq %d)\n",
		e.At.Format("15:04:05.000"), e.Self, e.Node, e.New, e.How, e.Seq)
}

// notifyPattern reads a diagNodeStatusChange line: source address, then the
// event's seq with its NodeID and its status.
var (
	notifySource = regexp.MustCompile(`UDP: \[([0-9.]+)\]:\d+->`)
	notifyNode   = regexp.MustCompile(`\.1\.3\.6\.1\.4\.1\.200\.1\.8\.1\.2\.(\d+) = INTEGER: (\d+)`)
	notifyStatus = regexp.MustCompile(`\.1\.3\.6\.1\.4\.1\.200\.1\.8\.1\.3\.\d+ = INTEGER: (\d+)`)
)

// checkNotifications waits (for the informs' whole retry budget at most)
// until the station holds every status notification an agent logged it
// sent ("status change notified": the owner's, traps.scope owner, some
// sent late: a repair once it held, a change handed over) and the last
// notification about each node says fault-free, as every node is now.
// Then it compares: none missing, none for an event no agent logged, each
// about an event its sender logged with that status, and the station's
// last word on each node true.
func (r *chaosRun) checkNotifications(evs []Event) {
	logged := map[[2]int]Event{}
	for _, e := range evs {
		if e.Change() {
			logged[[2]int{e.Self, e.Seq}] = e
		}
	}
	var want map[string]bool
	var got map[string]int
	var last map[string]string
	var unreadable []string
	ff := statusCode["fault-free"]
	_, _ = r.c.Poll(100*time.Second, func() bool {
		want = map[string]bool{}
		for _, s := range r.c.Notified() {
			want[fmt.Sprintf("agent %d seq %d: node %d %s", s.Self, s.Seq, s.Node, statusCode[s.Status])] = true
		}
		got, last, unreadable = r.received()
		for k := range want {
			if got[k] == 0 {
				return false
			}
		}
		for _, st := range last {
			if st != ff {
				return false
			}
		}
		return true
	})
	for _, s := range r.c.Notified() {
		if e, ok := logged[[2]int{s.Self, s.Seq}]; !ok || e.Node != s.Node || e.New != s.Status {
			r.violate("agent %d notified its event %d as node %d %s, which it did not log so", s.Self, s.Seq, s.Node, s.Status)
		}
	}
	for _, l := range unreadable {
		r.violate("unreadable notification: %q", l)
	}
	for k, n := range got {
		r.res.Received++
		r.res.Duplicates += n - 1
		if !want[k] {
			r.violate("notification for no logged event: %s", k)
		}
	}
	r.res.Expected = len(want)
	for k := range want {
		if got[k] == 0 {
			r.violate("lost notification: %s", k)
		}
	}
	for node, st := range last {
		if st != ff {
			r.violate("the station's last notification about node %s says status %s; every node is fault-free", node, st)
		}
	}
}

// received reads the station's diagNodeStatusChange notifications, keyed
// like checkNotifications' expectations, with how often each came; the
// status the last one about each node carried (by NodeID); and the lines
// it could not read.
func (r *chaosRun) received() (map[string]int, map[string]string, []string) {
	agentOf := map[string]int{}
	for k := range r.c.Agents {
		agentOf[r.c.Net.Addrs[k].String()] = k + 1
	}
	out, last, unreadable := map[string]int{}, map[string]string{}, []string(nil)
	for _, l := range r.c.Station.Notifications(0) {
		if !strings.Contains(l, ".1.3.6.1.4.1.200.2.0.1") {
			continue
		}
		src, node, st := notifySource.FindStringSubmatch(l), notifyNode.FindStringSubmatch(l), notifyStatus.FindStringSubmatch(l)
		if src == nil || node == nil || st == nil {
			unreadable = append(unreadable, l)
			continue
		}
		out[fmt.Sprintf("agent %d seq %s: node %s %s", agentOf[src[1]], node[1], node[2], st[1])]++
		last[node[2]] = st[1]
	}
	return out, last, unreadable
}

// statusCode is the MIB's number of each status name an agent logs, from
// the one place the names are spelled.
var statusCode = func() map[string]string {
	m := map[string]string{}
	for _, st := range mib.DiagStatuses() {
		m[st.String()] = strconv.Itoa(mib.DiagStatus(st))
	}
	return m
}()

// nodeIDs0 turns 0-based agents into NodeIDs, for a log line.
func nodeIDs0(ks []int) []int {
	out := make([]int, len(ks))
	for i, k := range ks {
		out[i] = k + 1
	}
	return out
}

// ids returns 0..n-1; nodeIDs returns 1..n.
func ids(n int) []int {
	out := make([]int, n)
	for k := range out {
		out[k] = k
	}
	return out
}

func nodeIDs(n int) []int {
	out := make([]int, n)
	for k := range out {
		out[k] = k + 1
	}
	return out
}

// without returns xs minus the values in skip.
func without(xs []int, skip ...int) []int {
	var out []int
	for _, x := range xs {
		keep := true
		for _, s := range skip {
			keep = keep && x != s
		}
		if keep {
			out = append(out, x)
		}
	}
	return out
}

// ChaosTable formats a chaos result as markdown for docs/reliability.md.
func ChaosTable(setting string, r ChaosResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| setting | %s |\n| --- | --- |\n", setting)
	kinds := make([]string, 0, len(r.Faults))
	total := 0
	for k, n := range r.Faults {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
		total += n
	}
	sort.Strings(kinds)
	rows := [][2]string{
		{"duration, loss, seed", fmt.Sprintf("%v, %d%% on every host, seed %d", r.Took.Round(time.Second), r.Spec.Loss, r.Spec.Seed)},
		{"faults injected", fmt.Sprintf("%d (%s)", total, strings.Join(kinds, ", "))},
		{"restarts (SIGKILL)", strconv.Itoa(r.Restarts)},
		{"status changes logged", strconv.Itoa(r.Events)},
		{"false suspicions (lost datagrams)", strconv.Itoa(r.FalseSuspicions)},
		{"false suspicions learned from a rejoining cut-off host", strconv.Itoa(r.HealSuspicions)},
		{"status notifications sent / received", fmt.Sprintf("%d / %d (%d duplicates of acknowledged informs)", r.Expected, r.Received, r.Duplicates)},
		{"event-table rows checked", strconv.Itoa(r.TableRows)},
		{"max agent RSS", fmt.Sprintf("%.1f MB", float64(r.MaxRSS)/(1<<20))},
		{"invariant violations", strconv.Itoa(len(r.Violations))},
	}
	for _, row := range rows {
		fmt.Fprintf(&b, "| %s | %s |\n", row[0], row[1])
	}
	return b.String()
}
