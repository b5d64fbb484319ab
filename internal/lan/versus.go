//go:build linux

package lan

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/diagagent/diagagent/agent/config"
	"github.com/diagagent/diagagent/agent/keyring"
	"github.com/diagagent/diagagent/agent/parts"
)

// A member group is one system under comparison: one member per host.
type group interface {
	Label() string
	Start(k int) error
	Kill(k int) error
	Proc(k int) *Proc
	Mark() int
	Events(from int) []Event
	Latest() map[[2]int]string
	// Down says a status is a verdict that the node does not work; Alarm
	// that it is a suspicion or a verdict; Up that it works.
	Down(status string) bool
	Alarm(status string) bool
	Up(status string) bool
}

// diagGroup is a diagagent cluster as a member group.
type diagGroup struct {
	*Cluster
	label string
}

func (g diagGroup) Label() string       { return g.label }
func (g diagGroup) Start(k int) error   { return g.StartAgent(k) }
func (g diagGroup) Kill(k int) error    { return g.KillAgent(k) }
func (g diagGroup) Proc(k int) *Proc    { return g.Agent(k) }
func (g diagGroup) Down(s string) bool  { return s == "faulty" || s == "partial" }
func (g diagGroup) Alarm(s string) bool { return g.Down(s) }
func (g diagGroup) Up(s string) bool    { return s == "fault-free" }
func (s *Swim) Label() string {
	if s.Probe > 0 && s.Probe != time.Second {
		return fmt.Sprintf("memberlist %v", s.Probe)
	}
	return "memberlist"
}
func (s *Swim) Down(status string) bool  { return status == "dead" }
func (s *Swim) Alarm(status string) bool { return status == "dead" || status == "suspect" }
func (s *Swim) Up(status string) bool    { return status == "alive" }

// Setting is one way of running diagagent in a comparison.
type Setting struct {
	Label       string
	Interval    time.Duration
	Timeout     time.Duration
	Retries     int
	PingTimeout time.Duration
	PingCount   int
	Plan        string // test.plan; "" for the default
	Keyring     bool   // agents speak SNMPv3 with a cluster key (authPriv)
}

// Duty is a busy member's starvation: stopped Stop out of every Period.
type Duty struct{ Stop, Period time.Duration }

// VersusSpec is one side-by-side run: memberlist and each diagagent setting
// run together on one LAN of N hosts, a member of each on every host, and
// every fault hits all of them on that host at the same moment.
type VersusSpec struct {
	N                int
	Dir              string // logs, one directory per system
	DiagBin, SwimBin string
	SwimProbe        time.Duration // memberlist's probe interval, its timers scaled with it; 0: no memberlist
	SwimKey          bool          // memberlist encrypts with a SecretKey (AES-GCM), as a keyring's agents do
	SwimWave         int           // memberlist members started at a time (Swim.Wave); 0: all at once
	Algorithm        string
	Settings         []Setting
	Steady           time.Duration // the window cost is measured over
	Freeze           time.Duration // how long the frozen member stays stopped
	Cap              time.Duration // longest wait for knowledge everywhere, per event
	Soak             time.Duration // how long each loss, and the reach kind's rules, last
	Losses           []int         // percent: on every host (soak), on one member's link each way (lossy)
	Busy             time.Duration // how long each duty cycle lasts
	Duties           []Duty
	Kinds            []string // of versusKinds; empty: all
	Startup          time.Duration
	// Apart runs each system in a phase of its own, one after the other,
	// each on a fresh LAN with the whole machine, and merges the results:
	// for an N at which the systems together starve the machine.
	Apart bool
}

// Knowledge is how long the fault-free members took to learn one event.
type Knowledge struct {
	First, Median, Last time.Duration // Last is 0 unless Knew == Of
	Knew, Of            int           // members that learned it within the wait, of those that should
	// LastRead is Last by the time the harness read the members' lines
	// (Event.Read) instead of the time their views took the change.
	LastRead time.Duration
}

// Cost is one system's steady state, as the mean over its members.
type Cost struct {
	PacketsPerSec, BytesPerSec float64 // sent by a member's host for its system
	CPUPerMin                  float64 // CPU seconds per minute
	RSSMB, MaxRSSMB            float64
}

// Noise is what a fault-free stretch (loss, a busy member) cost one system
// in false alarms: episodes of a live member held suspect, dead, faulty or
// partial by another, from the alarm until that member saw it up again.
type Noise struct {
	Episodes  int // (observer, node) alarms
	AboutBusy int // of them about the busy member
	Nodes     int // distinct nodes alarmed about
	Verdicts  int // episodes that reached a verdict (dead, faulty, partial)
	// OtherVerdicts are the verdicts about members other than the busy
	// one: false verdicts about healthy members.
	OtherVerdicts int
	// Named is, for diagagent, how long after the disturbance began every
	// other member held the busy one degraded; 0 if they never all did.
	Named  time.Duration
	Median time.Duration // episode length
	Max    time.Duration
	Open   int // episodes still open when the settling wait ended
	Raised int // memberlist: suspicions its probers raised
	// Station is set for a system with a station (diagagent): Notified
	// counts the diagNodeStatusChange notifications it got about the busy
	// member, NotifiedOther its diagNodeFlapping and the like.
	Station                 bool
	Notified, NotifiedOther int
	Refuted                 int // memberlist: refutations by the suspected
	Settled                 time.Duration
	// During is what the system's members sent and spent while the
	// disturbance lasted (RSS at its end).
	During Cost
}

// VersusResult is one run's measurements, one entry per system in the
// order of Systems.
type VersusResult struct {
	N        int
	Date     string
	Apart    bool // each system ran alone, one after the other (VersusSpec.Apart)
	Systems  []string
	Settings []string // how each system ran
	Load     float64  // one-minute load average at the end of the steady window
	Steady   []Cost
	ICMP     float64 // ICMP packets per second per host in the steady window (diagagent's fall-back)
	Events   []EventRow
	Noise    []NoiseRow
	Causes   []CauseRow
	// Failed names each phase of an apart run that did not finish, and
	// why: the systems it would have added are absent from the tables.
	Failed []string
}

// EventRow is one fault or repair, per system.
type EventRow struct {
	Event string
	Host  int // NodeID of the victim
	Per   []Knowledge
}

// CauseRow is one fault of many members at once, per system: what each
// told.
type CauseRow struct {
	What string
	Per  []Told
}

// Told is what one system said of one cause: the deaths (faulty or
// partial, for diagagent) and joins (back up) its members logged, per
// member, and for a system with a station, the notifications it got.
type Told struct {
	Deaths, Joins float64
	Station       bool
	Notifications int
}

// NoiseRow is one loss soak or busy spell, per system.
type NoiseRow struct {
	What string
	Per  []Noise
}

// Versus runs spec and returns what it measured; progress goes to log.
func Versus(spec VersusSpec, log io.Writer) (VersusResult, error) {
	r := VersusResult{N: spec.N, Date: time.Now().UTC().Format("2006-01-02 15:04 UTC")}
	if err := spec.check(); err != nil {
		return r, err
	}
	if spec.Apart {
		return versusApart(spec, log)
	}
	nw, err := Build("vs", spec.N+1) // the last host is the stations'
	if err != nil {
		return r, err
	}
	if spec.wants("switch") { // the last members hang off a switch of their own
		if err := nw.Switches([][]int{ids(spec.N)[spec.N-switchSize:]}); err != nil {
			return r, errors.Join(err, nw.Close())
		}
	}
	v := &versus{spec: spec, nw: nw, log: log}
	defer func() { err = errors.Join(err, v.close()) }()
	if err := v.start(&r); err != nil {
		return r, err
	}
	err = v.run(&r)
	return r, err
}

// versusApart runs each system of spec alone, in order, and merges them.
func versusApart(spec VersusSpec, log io.Writer) (VersusResult, error) {
	var phases []VersusSpec
	if spec.SwimProbe > 0 {
		p := spec
		p.Settings = nil
		phases = append(phases, p)
	}
	for _, st := range spec.Settings {
		p := spec
		p.SwimProbe, p.Settings = 0, []Setting{st}
		phases = append(phases, p)
	}
	var rs []VersusResult
	var failed []string
	for k, p := range phases {
		p.Apart, p.Dir = false, filepath.Join(spec.Dir, fmt.Sprintf("phase-%d", k+1))
		if err := os.MkdirAll(p.Dir, 0o755); err != nil {
			return mergeVersus(rs, failed), err
		}
		fmt.Fprintf(log, "versus: N=%d phase %d of %d alone\n", spec.N, k+1, len(phases))
		r, err := Versus(p, log)
		if err != nil {
			// A system that cannot start or finish at this N is a
			// result; the phases after it still run.
			fmt.Fprintf(log, "versus: N=%d phase %d of %d failed: %v\n", spec.N, k+1, len(phases), err)
			failed = append(failed, fmt.Sprintf("%s: %v", phaseName(p), err))
			continue
		}
		rs = append(rs, r)
	}
	if len(rs) == 0 {
		return VersusResult{N: spec.N, Failed: failed}, fmt.Errorf("every phase failed: %s", strings.Join(failed, "; "))
	}
	return mergeVersus(rs, failed), nil
}

// phaseName is the one system a phase of an apart run holds.
func phaseName(p VersusSpec) string {
	if p.SwimProbe > 0 {
		return fmt.Sprintf("memberlist, probe every %v", p.SwimProbe)
	}
	return p.Settings[0].Label
}

// mergeVersus puts runs of the same schedule side by side, one system
// after another: the rows of each event and stretch line up, since the
// schedule is the same; the load is the highest, and ICMP adds up.
func mergeVersus(rs []VersusResult, failed []string) VersusResult {
	if len(rs) == 0 {
		return VersusResult{Failed: failed}
	}
	m := VersusResult{N: rs[0].N, Date: rs[0].Date, Apart: true, Events: slices.Clone(rs[0].Events), Noise: slices.Clone(rs[0].Noise),
		Causes: slices.Clone(rs[0].Causes), Failed: failed}
	for i, r := range rs {
		m.Systems = append(m.Systems, r.Systems...)
		m.Settings = append(m.Settings, r.Settings...)
		m.Steady = append(m.Steady, r.Steady...)
		m.Load = max(m.Load, r.Load)
		m.ICMP += r.ICMP
		if i == 0 {
			continue
		}
		m.Events = m.Events[:min(len(m.Events), len(r.Events))]
		for k := range m.Events {
			m.Events[k].Per = append(slices.Clone(m.Events[k].Per), r.Events[k].Per...)
		}
		m.Noise = m.Noise[:min(len(m.Noise), len(r.Noise))]
		for k := range m.Noise {
			m.Noise[k].Per = append(slices.Clone(m.Noise[k].Per), r.Noise[k].Per...)
		}
		m.Causes = m.Causes[:min(len(m.Causes), len(r.Causes))]
		for k := range m.Causes {
			m.Causes[k].Per = append(slices.Clone(m.Causes[k].Per), r.Causes[k].Per...)
		}
	}
	return m
}

// versusKinds are the parts of a run; the steady window always runs.
var versusKinds = []string{"steady", "crash", "freeze", "soak", "lossy", "reach", "busy", "link", "switch"}

// switchSize is how many members share the switch the "switch" kind cuts
// off: the last ones before the stations' host.
const switchSize = 8

// check rejects a spec that cannot run, before anything starts.
func (s VersusSpec) check() error {
	for _, k := range s.Kinds {
		if !slices.Contains(versusKinds, k) {
			return fmt.Errorf("lan: versus kind %q: want one of %v", k, versusKinds)
		}
	}
	switch {
	case s.N < 2:
		return fmt.Errorf("lan: versus of %d members: want 2 or more", s.N)
	case s.SwimProbe == 0 && len(s.Settings) == 0:
		return errors.New("lan: versus of no system: want memberlist (SwimProbe) or a diagagent setting")
	case s.SwimProbe < 0:
		return fmt.Errorf("lan: memberlist probe interval %v: want positive, or 0 for no memberlist", s.SwimProbe)
	case s.SwimWave < 0:
		return fmt.Errorf("lan: memberlist start waves of %d: want positive, or 0 for all at once", s.SwimWave)
	case s.wants("switch") && s.N < 2*switchSize:
		return fmt.Errorf("lan: versus of %d members cuts a switch of %d: want %d members or more", s.N, switchSize, 2*switchSize)
	}
	return nil
}

// versus is one run in progress.
type versus struct {
	spec   VersusSpec
	nw     *Net
	log    io.Writer
	groups []group
	swim   *Swim
	diags  []*Cluster
}

// close stops every system and removes the LAN.
func (v *versus) close() error {
	var errs []error
	if v.swim != nil {
		errs = append(errs, v.swim.Close())
	}
	for _, c := range v.diags {
		errs = append(errs, c.Close())
	}
	return errors.Join(append(errs, v.nw.Close())...)
}

// start runs every system and waits until each has converged.
func (v *versus) start(r *VersusResult) error {
	s := v.spec
	var ports [][]int
	if s.SwimProbe > 0 {
		dir := filepath.Join(s.Dir, "memberlist")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		sw, err := NewSwim(v.nw, s.SwimBin, dir, s.N)
		if err != nil {
			return err
		}
		sw.Probe, sw.Wave = s.SwimProbe, s.SwimWave
		setting := swimSetting(s.SwimProbe)
		if s.SwimKey {
			k, err := keyring.Generate()
			if err != nil {
				return err
			}
			sw.Key = k.String()
			setting += ", SecretKey (AES-256-GCM)"
		}
		v.swim = sw
		v.groups = append(v.groups, sw)
		ports = append(ports, []int{SwimPort})
		r.Systems = append(r.Systems, sw.Label())
		r.Settings = append(r.Settings, setting)
	}
	for k, st := range s.Settings {
		dir := filepath.Join(s.Dir, fmt.Sprintf("diagagent-%d", k))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		port := 161 + 1000*k
		c, err := NewClusterOn(v.nw, Spec{Tag: "vs", Bin: s.DiagBin, Dir: dir, Algorithm: s.Algorithm, Agents: s.N,
			Interval: st.Interval, Timeout: st.Timeout, Retries: st.Retries, PingTimeout: st.PingTimeout,
			PingCount: st.PingCount, Plan: st.Plan, Port: port, TrapPort: port + 1, Keyring: st.Keyring})
		if err != nil {
			return err
		}
		v.diags = append(v.diags, c)
		v.groups = append(v.groups, diagGroup{c, st.Label})
		ports = append(ports, []int{port, port + 1})
		r.Systems = append(r.Systems, st.Label)
		wire := "SNMPv2c"
		if st.Keyring {
			wire = "SNMPv3 authPriv (keyring)"
		}
		r.Settings = append(r.Settings, fmt.Sprintf("%s, %s plan, interval %v, test timeout %v, %d retries, ping %v x%d, %s",
			s.Algorithm, cmp.Or(st.Plan, config.Default(parts.Defaults()).Test.Plan), st.Interval, st.Timeout, st.Retries, st.PingTimeout, st.PingCount, wire))
	}
	if err := v.nw.Count(ports); err != nil {
		return err
	}
	t0 := time.Now()
	if v.swim != nil {
		if err := v.swim.StartAll(s.Startup); err != nil {
			load, _ := LoadAverage()
			return fmt.Errorf("start-up (load %.1f): %w", load, err)
		}
	}
	for _, c := range v.diags {
		// 256 agents deriving their keys at once starve 2 cores for longer
		// than 30 s (twice, the first agent's walk timed out): the start-up
		// allowance applies here too.
		if err := c.StartAgents(max(30*time.Second, s.Startup)); err != nil {
			return err
		}
	}
	all := v.hosts(-1)
	nodes := make([]int, s.N)
	for k := range nodes {
		nodes[k] = k + 1
	}
	// Statuses agree before the counters do: an agent first seen down at
	// start-up carries a counter its peers take by pull, and until they have
	// it tests read views. The steady window starts once every agent also
	// serves the same digest.
	for i, c := range v.diags {
		for _, w := range []struct {
			what string
			ok   func() bool
		}{
			{"not every agent holds every node fault-free", func() bool { return c.AllSee(all, nodes, 0) }},
			{"the agents' view digests never agreed", func() bool { return c.AllAgree(all) }},
		} {
			if _, err := c.Poll(s.Startup, w.ok); err != nil {
				load, _ := LoadAverage()
				return fmt.Errorf("start-up: %s: %s (load %.1f; %s): %w", s.Settings[i].Label, w.what, load, c.Stale(), err)
			}
		}
	}
	fmt.Fprintf(v.log, "versus: N=%d, every system converged %v after start\n", s.N, time.Since(t0).Round(time.Second))
	// The start-up's work ends before the steady window: with the cluster
	// key each agent learns the engine of every other (63 discoveries each
	// at N = 64), which under this load went on for a minute or two past
	// convergence and counted 90 B/s a member in a 2-minute window. A build
	// that never says it is done (1.0.0) is waited for startupWork.
	began := time.Now()
	for !v.startedUp() {
		if time.Since(began) >= startupWork {
			fmt.Fprintf(v.log, "versus: not every agent said its start-up work was done within %v\n", startupWork)
			return nil
		}
		time.Sleep(time.Second) // each look reads every agent's log
	}
	fmt.Fprintf(v.log, "versus: start-up work done %v after convergence\n", time.Since(began).Round(time.Second))
	return nil
}

// enginesKnownLine begins the line an agent logs once it knows the SNMPv3
// engine of every other agent (agent/daemon/engines.go).
const enginesKnownLine = "a question to any other agent costs one request"

// startedUp reports whether every diagagent agent said its start-up work
// was done.
func (v *versus) startedUp() bool {
	for _, c := range v.diags {
		if !c.EveryLogged(enginesKnownLine) {
			return false
		}
	}
	return true
}

// startupWork bounds the wait for every agent's start-up work to end.
const startupWork = time.Minute

// swimSetting describes memberlist's timers at probe interval probe.
func swimSetting(probe time.Duration) string {
	if probe == time.Second {
		return "DefaultLANConfig(): probe every 1 s, 500 ms timeout, 3 indirect probes, gossip every 200 ms to 3"
	}
	return fmt.Sprintf("DefaultLANConfig() with every timer scaled by %g: probe every %v, %v timeout, 3 indirect probes, gossip every %v to 3, push-pull every %v",
		probe.Seconds(), probe, probe/2, probe/5, 30*probe)
}

// hosts are the host indexes but skip (-1: all).
func (v *versus) hosts(skip int) []int {
	var out []int
	for k := range v.spec.N {
		if k != skip {
			out = append(out, k)
		}
	}
	return out
}

// wants reports whether kind is in the run.
func (v *versus) wants(kind string) bool { return v.spec.wants(kind) }

// wants reports whether kind is in the run: all of them when none is
// named, but a switch cut only when there are members enough.
func (s VersusSpec) wants(kind string) bool {
	if len(s.Kinds) == 0 {
		return kind != "switch" || s.N >= 2*switchSize
	}
	return slices.Contains(s.Kinds, kind)
}

// victims are the members each event takes, by kind: spread over the
// members, and outside the switch when a switch is cut, so that what an
// earlier event left (a held repair, a flapping member's end) is not
// about the switch's members.
func (v *versus) victims() map[string]int {
	n := v.spec.N
	if v.wants("switch") {
		n -= switchSize
	}
	return map[string]int{"crash": n / 2, "freeze": n/4 + 1, "link": 3 * n / 4, "busy": n/2 + 1,
		"lossy": max(n/4-1, 0), "reach": min(3*n/4+1, n-1)}
}

// run measures the steady state, then plays the events in order.
func (v *versus) run(r *VersusResult) error {
	if err := v.steady(r); err != nil {
		return err
	}
	victims := v.victims()
	if v.wants("crash") {
		k := victims["crash"]
		if err := v.fault(r, "crash", k, v.eachProc(k, func(g group) error { return g.Kill(k) }),
			v.eachProc(k, func(g group) error { return g.Start(k) }), 0); err != nil {
			return err
		}
	}
	if v.wants("freeze") {
		k := victims["freeze"]
		if err := v.fault(r, "freeze", k, v.eachProc(k, func(g group) error { return g.Proc(k).Freeze() }),
			v.eachProc(k, func(g group) error { return g.Proc(k).Thaw() }), v.spec.Freeze); err != nil {
			return err
		}
	}
	if v.wants("soak") {
		for _, pct := range v.spec.Losses {
			if err := v.noise(r, fmt.Sprintf("%d%% loss for %v", pct, v.spec.Soak), -1, v.spec.Soak,
				func() error { return v.nw.SetLossAll(pct) }, func() error { return v.nw.SetLossAll(0) }); err != nil {
				return err
			}
		}
	}
	if v.wants("lossy") {
		k := victims["lossy"]
		for _, pct := range v.spec.Losses {
			if err := v.noise(r, fmt.Sprintf("member %d lost %d%% each way for %v", k+1, pct, v.spec.Soak), k, v.spec.Soak,
				func() error { return v.nw.SetLinkLoss(k, pct, pct) }, func() error { return v.nw.SetLinkLoss(k, 0, 0) }); err != nil {
				return err
			}
		}
	}
	if v.wants("reach") {
		k := victims["reach"]
		from := reachBlocked(k, v.spec.N)
		block := func(on bool) func() error {
			return func() error {
				var errs []error
				for _, b := range from {
					errs = append(errs, v.nw.Unreachable(b, on, v.nw.Addrs[k]))
				}
				return errors.Join(errs...)
			}
		}
		if err := v.noise(r, fmt.Sprintf("member %d unreachable from members %v for %v", k+1, nodeIDs0(from), v.spec.Soak), k, v.spec.Soak,
			block(true), block(false)); err != nil {
			return err
		}
	}
	if v.wants("busy") {
		k := victims["busy"]
		for _, d := range v.spec.Duties {
			stop := make(chan struct{})
			done := make(chan error, 1)
			what := fmt.Sprintf("member %d stopped %v of every %v for %v", k+1, d.Stop, d.Period, v.spec.Busy)
			err := v.noise(r, what, k, v.spec.Busy,
				func() error { go func() { done <- v.starve(k, d, stop) }(); return nil },
				func() error { close(stop); return <-done })
			if err != nil {
				return err
			}
		}
	}
	// Last: memberlist alone does not heal a partition (Serf adds that),
	// and a member left outside would weigh on every later stretch.
	if v.wants("link") {
		k := victims["link"]
		if err := v.fault(r, "link", k, func() error { return v.nw.LinkDown(k) },
			func() error { return v.nw.LinkUp(k) }, 0); err != nil {
			return err
		}
	}
	if v.wants("switch") {
		return v.switchCut(r)
	}
	return nil
}

// switchCut cuts the uplink of the switch of the last switchSize members,
// until every system's members on the other side hold them all down, and
// heals it: what each system then told. memberlist's members log a death
// and a join for each member each side lost; diagagent's station gets its
// notifications.
func (v *versus) switchCut(r *VersusResult) error {
	n := v.spec.N
	block := ids(n)[n-switchSize:]
	obs := ids(n)[:n-switchSize]
	marks := v.marks()
	stations := make([]int, len(v.diags))
	for i, c := range v.diags {
		stations[i] = c.Station.Mark()
	}
	t0 := time.Now()
	if err := v.nw.Uplink(0, false); err != nil {
		return err
	}
	for _, k := range block {
		v.learn(marks, t0, k, obs, max(v.spec.Cap-time.Since(t0), time.Second), false)
	}
	cut := time.Since(t0)
	if err := v.nw.Uplink(0, true); err != nil {
		return err
	}
	healed := v.settle()
	time.Sleep(v.spec.Cap / 4) // late repairs, held ones and handed-over ones
	row := CauseRow{What: fmt.Sprintf("switch of members %d-%d cut %v, then healed", n-switchSize+1, n, cut.Round(time.Second))}
	diag := 0
	for i, g := range v.groups {
		var t Told
		for _, e := range g.Events(marks[i]) {
			switch {
			case !e.Change():
			case g.Down(e.New):
				t.Deaths++
			case g.Up(e.New):
				t.Joins++
			}
		}
		t.Deaths, t.Joins = t.Deaths/float64(n), t.Joins/float64(n)
		earlier := 0 // about the members earlier events took: their late repairs, a flapping member's end
		if _, ok := g.(diagGroup); ok {
			lines := v.diags[diag].Station.Notifications(stations[diag])
			took := map[int]bool{}
			for _, k := range v.victims() {
				took[k] = true
			}
			for k := range took {
				status, other := NotificationsAbout(lines, k+1)
				earlier += status + other
			}
			t.Station, t.Notifications = true, len(DiagNotifications(lines))-earlier
			diag++
		}
		row.Per = append(row.Per, t)
		fmt.Fprintf(v.log, "versus: N=%d switch cut at %d-%d: %s: %.1f deaths and %.1f joins per member, station %v %d, and %d about earlier events' members (healed in %v)\n",
			n, n-switchSize+1, n, g.Label(), t.Deaths, t.Joins, t.Station, t.Notifications, earlier, healed.Round(time.Second))
	}
	r.Causes = append(r.Causes, row)
	return nil
}

// reachBlocked are the hosts the reach kind cuts off from host k: its
// neighbours along each dimension of the hypercube, up to four, which are
// its testers in vCube's plans: the most its status could suffer.
func reachBlocked(k, n int) []int {
	var out []int
	for d := 1; d < n && len(out) < 4; d <<= 1 {
		if b := k ^ d; b < n {
			out = append(out, b)
		}
	}
	return out
}

// eachProc returns a func that applies f to every system's member on host k.
func (v *versus) eachProc(k int, f func(group) error) func() error {
	return func() error {
		var errs []error
		for _, g := range v.groups {
			errs = append(errs, f(g))
		}
		return errors.Join(errs...)
	}
}

// starve stops every member on host k for d.Stop of every d.Period until stop
// is closed, and leaves them running.
func (v *versus) starve(k int, d Duty, stop <-chan struct{}) error {
	for {
		if err := v.eachProc(k, func(g group) error { return g.Proc(k).Freeze() })(); err != nil {
			return err
		}
		time.Sleep(d.Stop)
		if err := v.eachProc(k, func(g group) error { return g.Proc(k).Thaw() })(); err != nil {
			return err
		}
		select {
		case <-stop:
			return nil
		case <-time.After(d.Period - d.Stop):
		}
	}
}

// steady measures each system's cost over the steady window.
func (v *versus) steady(r *VersusResult) error {
	marks := v.marks()
	before, err := v.sample()
	if err != nil {
		return err
	}
	time.Sleep(v.spec.Steady)
	after, err := v.sample()
	if err != nil {
		return err
	}
	secs := v.spec.Steady.Seconds()
	n := float64(v.spec.N)
	for g := range v.groups {
		r.Steady = append(r.Steady, v.cost(g, before, after, secs))
	}
	for k := range v.spec.N {
		icmp := len(v.groups)
		r.ICMP += float64(after.traffic[k][icmp].Packets-before.traffic[k][icmp].Packets) / secs / n
	}
	r.Load, err = LoadAverage()
	fmt.Fprintf(v.log, "versus: steady state over %v: %+v, load %.1f\n", v.spec.Steady, r.Steady, r.Load)
	// A system holds N when this fault-free window raised no alarm.
	row := NoiseRow{What: fmt.Sprintf("no fault for %v", v.spec.Steady)}
	for i, g := range v.groups {
		row.Per = append(row.Per, alarms(g.Events(marks[i]), latest(g.Events(0)[:marks[i]]), g, 0, time.Now()))
	}
	r.Noise = append(r.Noise, row)
	return err
}

// cost is group g's mean cost per member between two samples secs apart.
func (v *versus) cost(g int, before, after sample, secs float64) Cost {
	var c Cost
	n := float64(v.spec.N)
	for k := range v.spec.N {
		a, b := after.traffic[k][g], before.traffic[k][g]
		c.PacketsPerSec += float64(a.Packets-b.Packets) / secs / n
		c.BytesPerSec += float64(a.Bytes-b.Bytes) / secs / n
		c.CPUPerMin += (after.usage[k][g].CPU - before.usage[k][g].CPU) / secs * 60 / n
		rss := float64(after.usage[k][g].RSSKB) / 1024
		c.RSSMB += rss / n
		c.MaxRSSMB = max(c.MaxRSSMB, rss)
	}
	return c
}

// sample is every host's counters and every member's usage at one moment.
type sample struct {
	traffic [][]Traffic // [host][group], then icmp
	usage   [][]Usage   // [host][group]
}

func (v *versus) sample() (sample, error) {
	var s sample
	for k := range v.spec.N {
		t, err := v.nw.Counted(k, len(v.groups))
		if err != nil {
			return s, err
		}
		s.traffic = append(s.traffic, t)
		var us []Usage
		for _, g := range v.groups {
			u, err := ProcUsage(g.Proc(k).PID())
			if err != nil {
				return s, err
			}
			us = append(us, u)
		}
		s.usage = append(s.usage, us)
	}
	return s, nil
}

// fault applies a fault on host k and measures how every system learns it,
// then repairs it and measures how they learn that. With hold 0 the fault
// lasts until every system knows it everywhere (or Cap); else exactly hold.
func (v *versus) fault(r *VersusResult, kind string, k int, apply, repair func() error, hold time.Duration) error {
	v.anyMoment(kind)
	obs := v.hosts(k)
	marks := v.marks()
	t0 := time.Now()
	if err := apply(); err != nil {
		return fmt.Errorf("%s of host %d: %w", kind, k+1, err)
	}
	wait := v.spec.Cap
	if hold > 0 {
		wait = hold
	}
	down := v.learn(marks, t0, k, obs, wait, false)
	if hold > 0 {
		time.Sleep(time.Until(t0.Add(hold)))
	}
	r.Events = append(r.Events, EventRow{Event: kind, Host: k + 1, Per: down})
	v.report(kind, k, down)
	// Recovery: observers that held the node as not working must see it up.
	marks = v.marks()
	t1 := time.Now()
	if err := repair(); err != nil {
		return fmt.Errorf("repair of %s of host %d: %w", kind, k+1, err)
	}
	up := v.learn(marks, t1, k, obs, v.spec.Cap, true)
	r.Events = append(r.Events, EventRow{Event: kind + " repaired", Host: k + 1, Per: up})
	v.report(kind+" repaired", k, up)
	// Let every system settle before the next event.
	v.settle()
	return nil
}

// anyMoment waits for a moment drawn at random within the longest testing
// interval (or memberlist's probe interval) before a fault comes. A fault
// in the field comes at any moment of its testers' intervals, and the time
// until it is known includes the wait for the next test; applied where
// the harness's own rhythm puts it, it would measure one moment of the
// interval only (at N = 16 on 2026-11-29, a freeze came 0.4 s into the
// interval in five runs of six at one build, 1.4 s in at another).
func (v *versus) anyMoment(kind string) {
	span := v.spec.SwimProbe
	for _, s := range v.spec.Settings {
		span = max(span, s.Interval)
	}
	if span <= 0 {
		return
	}
	d := rand.N(span)
	fmt.Fprintf(v.log, "versus: the %s comes %.2f s later, drawn within %v\n", kind, d.Seconds(), span)
	time.Sleep(d)
}

// report prints one event's figures.
func (v *versus) report(what string, k int, ks []Knowledge) {
	for i, g := range v.groups {
		fmt.Fprintf(v.log, "versus: N=%d %s at %d: %s: %+v\n", v.spec.N, what, k+1, g.Label(), ks[i])
	}
}

// marks is every system's event count now.
func (v *versus) marks() []int {
	m := make([]int, len(v.groups))
	for i, g := range v.groups {
		m[i] = g.Mark()
	}
	return m
}

// learn waits up to wait until, in every system, each observer that should
// has logged a verdict about host k (with repair, that it is up again), and
// returns when each did. For a fault every observer should; for a repair
// those that held the node in alarm when it came (one that never saw the
// fault has nothing to learn).
func (v *versus) learn(marks []int, t0 time.Time, k int, obs []int, wait time.Duration, repair bool) []Knowledge {
	should := make([][]int, len(v.groups))
	want := func(g group) func(string) bool { return g.Down }
	if repair {
		want = func(g group) func(string) bool { return g.Up }
	}
	for i, g := range v.groups {
		held := latest(g.Events(0)[:marks[i]])
		for _, o := range obs {
			if !repair || g.Alarm(held[[2]int{o + 1, k + 1}]) {
				should[i] = append(should[i], o)
			}
		}
	}
	deadline := t0.Add(wait)
	for {
		out, done := make([]Knowledge, len(v.groups)), true
		for i, g := range v.groups {
			out[i] = knowledge(g.Events(marks[i]), should[i], k+1, want(g), t0)
			done = done && out[i].Knew == out[i].Of
		}
		if done || time.Now().After(deadline) {
			return out
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// knowledge finds, for each observer, the first event about node whose
// status want accepts and that it still holds, and sums them up.
func knowledge(evs []Event, obs []int, node int, want func(string) bool, t0 time.Time) Knowledge {
	first := map[int]Event{}
	holds := map[int]bool{}
	for _, e := range evs {
		if e.Node != node || !e.Change() {
			continue
		}
		holds[e.Self] = want(e.New)
		if want(e.New) {
			if _, seen := first[e.Self]; !seen {
				first[e.Self] = e
			}
		} else {
			delete(first, e.Self) // it took it back: count the later one
		}
	}
	var lat []time.Duration
	var read time.Duration
	for _, o := range obs {
		if e, ok := first[o+1]; ok && holds[o+1] {
			lat = append(lat, max(e.At.Sub(t0), 0))
			read = max(read, e.Read.Sub(t0))
		}
	}
	kn := Knowledge{Knew: len(lat), Of: len(obs)}
	if len(lat) == 0 {
		return kn
	}
	sort.Slice(lat, func(a, b int) bool { return lat[a] < lat[b] })
	kn.First, kn.Median = lat[0], lat[len(lat)/2]
	if kn.Knew == kn.Of {
		kn.Last, kn.LastRead = lat[len(lat)-1], read
	}
	return kn
}

// settle waits up to Cap until every system holds every member up, and
// returns how long that took.
func (v *versus) settle() time.Duration {
	t0 := time.Now()
	for time.Since(t0) < v.spec.Cap {
		if v.allUp() {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	return time.Since(t0)
}

// upEverywhere reports whether every member of every system holds node
// (a NodeID) up: alive, or fault-free.
func (v *versus) upEverywhere(node int) bool {
	for _, g := range v.groups {
		for key, st := range g.Latest() {
			if key[1] == node && key[0] != node && !g.Up(st) {
				return false
			}
		}
	}
	return true
}

// allUp reports whether no member of any system holds another in alarm.
func (v *versus) allUp() bool {
	for _, g := range v.groups {
		for _, st := range g.Latest() {
			if g.Alarm(st) {
				return false
			}
		}
	}
	return true
}

// noise applies a fault-free disturbance for d and counts false alarms
// until every system has settled again.
func (v *versus) noise(r *VersusResult, what string, busy int, d time.Duration, apply, lift func() error) error {
	marks := v.marks()
	stations := make([]int, len(v.groups))
	for i, g := range v.groups {
		if dg, ok := g.(diagGroup); ok {
			stations[i] = dg.Station.Mark()
		}
	}
	t0 := time.Now()
	if err := apply(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	applied := time.Now()
	before, err := v.sample()
	from := time.Now()
	if err == nil {
		time.Sleep(d - time.Since(applied)) // the stretch lasts d, its sampling included
	}
	var after sample
	if err == nil {
		after, err = v.sample()
	}
	spent := time.Since(from).Seconds()
	if lerr := lift(); lerr != nil {
		return fmt.Errorf("%s: %w", what, lerr)
	}
	if err != nil { // lifted first: a failed sample leaves no loss or frozen member behind
		return fmt.Errorf("%s: %w", what, err)
	}
	settled := v.settle()
	if busy >= 0 { // and the busy member up again everywhere (not degraded), so the next stretch starts clean
		for time.Since(t0) < d+v.spec.Cap && !v.upEverywhere(busy+1) {
			time.Sleep(200 * time.Millisecond)
		}
	}
	row := NoiseRow{What: what}
	for i, g := range v.groups {
		held := latest(g.Events(0)[:marks[i]])
		nz := alarms(g.Events(marks[i]), held, g, busy+1, time.Now())
		nz.Settled = settled
		if dg, ok := g.(diagGroup); ok && busy >= 0 {
			nz.Named = namedAt(g.Events(marks[i]), held, v.spec.N, busy+1, "degraded", t0)
			nz.Station = true
			nz.Notified, nz.NotifiedOther = NotificationsAbout(dg.Station.Notifications(stations[i]), busy+1)
		}
		nz.During = v.cost(i, before, after, spent)
		row.Per = append(row.Per, nz)
		fmt.Fprintf(v.log, "versus: N=%d %s: %s: %+v\n", v.spec.N, what, g.Label(), nz)
	}
	r.Noise = append(r.Noise, row)
	return nil
}

// countVerdict counts an episode's verdict, if it reached one.
func (nz *Noise) countVerdict(reached, other bool) {
	if reached {
		nz.Verdicts++
		if other {
			nz.OtherVerdicts++
		}
	}
}

// namedAt returns when, after t0, every member but busy (a NodeID) first
// held busy at status, as evs tell; 0 if they never all did at once.
func namedAt(evs []Event, held map[[2]int]string, n, busy int, status string, t0 time.Time) time.Duration {
	now := maps.Clone(held)
	all := func() bool {
		for self := 1; self <= n; self++ {
			if self != busy && now[[2]int{self, busy}] != status {
				return false
			}
		}
		return true
	}
	for _, e := range evs {
		if e.Node != busy || !e.Change() {
			continue
		}
		now[[2]int{e.Self, e.Node}] = e.New
		if all() {
			return e.At.Sub(t0)
		}
	}
	return 0
}

// alarms turns events into alarm episodes: one starts when an observer goes
// from holding a node up (or unknown) to an alarm, and ends when it holds it
// up again. busy is the busy member's NodeID (0: none).
func alarms(evs []Event, held map[[2]int]string, g group, busy int, end time.Time) Noise {
	var nz Noise
	start := map[[2]int]time.Time{}
	verdict := map[[2]int]bool{}
	for key, st := range held {
		if g.Alarm(st) {
			start[key] = time.Time{} // already alarmed before: not this stretch's
		}
	}
	nodes := map[int]bool{}
	var lens []time.Duration
	for _, e := range evs {
		switch e.New {
		case Raised:
			nz.Raised++
			continue
		case Refuted:
			nz.Refuted++
			continue
		case Refused:
			continue
		}
		key := [2]int{e.Self, e.Node}
		at, alarmed := start[key]
		switch {
		case g.Alarm(e.New) && !alarmed:
			start[key] = e.At
			nz.Episodes++
			nodes[e.Node] = true
			if e.Node == busy {
				nz.AboutBusy++
			}
			verdict[key] = g.Down(e.New)
		case g.Alarm(e.New) && alarmed:
			verdict[key] = verdict[key] || g.Down(e.New)
		case alarmed:
			if !at.IsZero() {
				lens = append(lens, e.At.Sub(at))
				nz.countVerdict(verdict[key], key[1] != busy)
			}
			delete(start, key)
		}
	}
	for key, at := range start {
		if !at.IsZero() {
			nz.Open++
			lens = append(lens, end.Sub(at))
			nz.countVerdict(verdict[key], key[1] != busy)
		}
	}
	nz.Nodes = len(nodes)
	if len(lens) > 0 {
		sort.Slice(lens, func(a, b int) bool { return lens[a] < lens[b] })
		nz.Median, nz.Max = lens[len(lens)/2], lens[len(lens)-1]
	}
	return nz
}
