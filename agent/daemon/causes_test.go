package daemon

import (
	"strings"
	"testing"

	"github.com/diagagent/diagagent/agent/metrics"
	"github.com/diagagent/diagagent/agent/metrics/metricstest"
	"github.com/diagagent/diagagent/agent/notify"
	"github.com/diagagent/diagagent/agent/viewmetrics"

	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
	"github.com/diagagent/diagagent/traps"
)

// station is what every agent of a mock LAN notified since mark: the
// plain status notifications and the causes, by sender.
type station struct {
	events map[int]int           // sender -> diagNodeStatusChange count
	causes map[int][]traps.Cause // sender -> diagCauseChange
}

// heard returns what the agents sent since each sink's mark.
func (m *mockNet) heard(marks [][2]int) station {
	st := station{events: map[int]int{}, causes: map[int][]traps.Cause{}}
	for id, s := range m.sinks {
		s.mu.Lock()
		if len(s.events) < marks[id][0] || len(s.causes) < marks[id][1] {
			marks[id] = [2]int{} // a new sink: the agent restarted
		}
		if n := len(s.events) - marks[id][0]; n > 0 {
			st.events[id] = n
		}
		if c := s.causes[marks[id][1]:]; len(c) > 0 {
			st.causes[id] = append([]traps.Cause(nil), c...)
		}
		s.mu.Unlock()
	}
	return st
}

// mark returns where each sink stands.
func (m *mockNet) mark() [][2]int {
	out := make([][2]int, len(m.sinks))
	for id, s := range m.sinks {
		s.mu.Lock()
		out[id] = [2]int{len(s.events), len(s.causes)}
		s.mu.Unlock()
	}
	return out
}

// cutBlock cuts hosts lo..hi-1 off from every other host, or heals the cut.
func (m *mockNet) cutBlock(lo, hi int, on bool) {
	for a := range m.agents {
		for b := lo; b < hi; b++ {
			if a < lo || a >= hi {
				if on {
					m.cut[[2]int{min(a, b), max(a, b)}] = true
				} else {
					delete(m.cut, [2]int{min(a, b), max(a, b)})
				}
			}
		}
	}
}

// one returns the only cause sender sent, failing unless there is exactly one.
func (st station) one(t *testing.T, what string, sender int) traps.Cause {
	t.Helper()
	if len(st.events) != 0 || len(st.causes) != 1 || len(st.causes[sender]) != 1 {
		t.Fatalf("%s: want one diagCauseChange from agent %d and nothing else; got status notifications %v, causes %+v",
			what, sender+1, st.events, st.causes)
	}
	return st.causes[sender][0]
}

// TestMockNetCauses: 24 agents (vCube, push, rotating plan) with grouping
// on, three blocks of 8 as three switches. A block cut off is one
// notification at each side's owner, with one split; its heal is one
// notification, from the side of agent 1, saying cut; the same 8 crashing
// is one notification, and their return says down; one crash alone is a
// plain diagNodeStatusChange.
func TestMockNetCauses(t *testing.T) {
	const n, lo, hi = 24, 16, 24
	m := newMockNet(t, n, hiadsd.VCube, notify.Owner)
	m.cfg.GroupWindow = m.cfg.Interval + m.cfg.TestBudget
	for id := range n { // start again with grouping on
		m.agents[id] = nil
		m.start(id)
	}
	m.settled(n)
	window := hiadsd.PullBound(hiadsd.VCube, n, true) + 2 // rounds enough for any change to be known and its window to close
	block := "17-24"

	mark := m.mark()
	m.cutBlock(lo, hi, true)
	m.until(window, "each side holds the other faulty", func() bool {
		return m.agents[0].Snapshot().Nodes[hi-1].Status == hiadsd.Faulty && m.agents[lo].Snapshot().Nodes[0].Status == hiadsd.Faulty
	})
	for range window {
		m.round()
	}
	st := m.heard(mark)
	if len(st.events) != 0 || len(st.causes) != 2 || len(st.causes[0]) != 1 || len(st.causes[lo]) != 1 {
		t.Fatalf("cut: want one diagCauseChange from agent 1 and one from agent 17; got status notifications %v, causes %+v", st.events, st.causes)
	}
	main, cutOff := st.causes[0][0], st.causes[lo][0]
	if main.Kind != mib.CauseLost || len(main.Nodes) != 8 || mib.NodeRanges(ids32(main), 255) != block || main.Subnet != "127.0.0.16/28" {
		t.Errorf("agent 1 told %+v; want the loss of %s", main, block)
	}
	if cutOff.Kind != mib.CauseLost || len(cutOff.Nodes) != 16 || main.Split != cutOff.Split {
		t.Errorf("agent 17 told %+v; want the loss of 1-16 with agent 1's split %d", cutOff, main.Split)
	}
	want := "# HELP diagagent_cause_nodes " + metricHelp(t, "diagagent_cause_nodes") + `
# TYPE diagagent_cause_nodes gauge
diagagent_cause_nodes{cause="17-24"} 8
`
	if err := metricstest.CollectAndCompare(m.agents[0], strings.NewReader(want), "diagagent_cause_nodes"); err != nil {
		t.Errorf("agent 1's metrics: %v", err)
	}
	if got := gaugeOf(t, m.agents[0], "diagagent_node_grouped", "20"); got != 1 {
		t.Errorf("diagagent_node_grouped of node 20 = %v, want 1", got)
	}
	causeGroups(t, "cut", m.agents[0], lo, hi, main.Group)

	mark = m.mark()
	m.cutBlock(lo, hi, false)
	m.until(window, "the cut heals", func() bool { return m.everyone(lo, hiadsd.FaultFree, -1) && m.everyone(0, hiadsd.FaultFree, -1) })
	for range window {
		m.round()
	}
	// Each side's views still hold the faults they saw of the other side;
	// a node just back is not believed about faults (hiadsd's returning),
	// so no agent takes agent 1 faulty, and no other agent owns the block.
	back := m.heard(mark).one(t, "heal", 0)
	if back.Kind != mib.CauseBackCut || back.Group != main.Group || len(back.Nodes) != 8 || back.Lasted <= 0 {
		t.Errorf("heal: agent 1 told %+v; want %s back, cut off, in group %d", back, block, main.Group)
	}
	causeGroups(t, "heal", m.agents[0], lo, hi, 0)

	mark = m.mark()
	for id := lo; id < hi; id++ {
		m.stop(id, true)
	}
	m.until(window, "the 8 are down", func() bool { return m.everyone(lo, hiadsd.Faulty, -1) && m.everyone(hi-1, hiadsd.Faulty, -1) })
	for range window {
		m.round()
	}
	lost := m.heard(mark).one(t, "crash", 0)
	if lost.Kind != mib.CauseLost || len(lost.Nodes) != 8 {
		t.Errorf("crash: agent 1 told %+v; want the loss of %s", lost, block)
	}
	mark = m.mark()
	for id := lo; id < hi; id++ {
		m.start(id)
	}
	m.until(window, "the 8 are back", func() bool { return m.everyone(lo, hiadsd.FaultFree, -1) && m.everyone(hi-1, hiadsd.FaultFree, -1) })
	for range window {
		m.round()
	}
	back = m.heard(mark).one(t, "restart", 0)
	if back.Kind != mib.CauseBackDown || back.Group != lost.Group || len(back.Nodes) != 8 {
		t.Errorf("restart: agent 1 told %+v; want %s back, down, in group %d", back, block, lost.Group)
	}

	mark = m.mark()
	m.stop(5, true)
	m.until(window, "node 6 is down", func() bool { return m.everyone(5, hiadsd.Faulty, -1) })
	for range window {
		m.round()
	}
	if st := m.heard(mark); len(st.causes) != 0 || len(st.events) != 1 || st.events[0] != 1 {
		t.Errorf("one crash: want one diagNodeStatusChange from agent 1; got %v and causes %+v", st.events, st.causes)
	}
}

// metricHelp returns the help text of the daemon's metric name.
func metricHelp(t *testing.T, name string) string {
	t.Helper()
	var descs []*metrics.Desc
	ch := make(chan *metrics.Desc, 32)
	viewmetrics.New(nil, nil).Describe(ch)
	for _, c := range notify.New(notify.Options{}, 0).Collectors() {
		c.Describe(ch)
	}
	close(ch)
	for d := range ch {
		descs = append(descs, d)
	}
	for _, d := range descs {
		if strings.Contains(d.String(), `"`+name+`"`) {
			s := d.String()
			i := strings.Index(s, "help: \"") + len("help: \"")
			return s[i : i+strings.Index(s[i:], "\"")]
		}
	}
	t.Fatalf("no metric %s", name)
	return ""
}

// gaugeOf returns the value of metric name about NodeID node that d
// collects.
func gaugeOf(t *testing.T, d *Daemon, name, node string) float64 {
	t.Helper()
	for _, f := range metricstest.Families(d, name) {
		for _, m := range f.Metrics {
			if m.Label("node") == node {
				return m.Value()
			}
		}
	}
	t.Fatalf("no %s for node %s", name, node)
	return 0
}

// causeGroups fails unless d serves nodeCauseGroup group on the rows of
// the nodes lo..hi-1 (core ids) and 0 on every other.
func causeGroups(t *testing.T, what string, d *Daemon, lo, hi int, group uint32) {
	t.Helper()
	snap := d.Snapshot()
	for _, r := range snap.Nodes {
		want := uint32(0)
		if int(r.ID) > lo && int(r.ID) <= hi {
			want = group
		}
		if got := snap.Causes[r.ID]; got != want {
			t.Errorf("%s: nodeCauseGroup.%d = %d, want %d", what, r.ID, got, want)
		}
	}
}

// ids32 returns the NodeIDs of a cause.
func ids32(c traps.Cause) []uint32 {
	var out []uint32
	for _, n := range c.Nodes {
		out = append(out, n.ID)
	}
	return out
}

// TestMockNetOwnerRestartHandsNothingOver: the owner restarted within
// traps.partial_hold (an upgrade) had sent what was left to it; no agent
// hands its changes over and the station hears each once. Gone for longer,
// it is handed over (TestMockNetOwnerHandsOver).
func TestMockNetOwnerRestartHandsNothingOver(t *testing.T) {
	m := newMockNet(t, 8, hiadsd.VCube, notify.Owner)
	m.cfg.PartialHold = 3 * m.cfg.Interval
	for id := range m.agents {
		m.agents[id] = nil
		m.start(id)
	}
	m.settled(8)
	m.stop(4, true)
	m.until(8, "node 5 faulty everywhere", func() bool { return m.everyone(4, hiadsd.Faulty, 4) })
	m.stop(0, false) // agent 1, the owner, restarted a round later
	m.round()
	m.start(0)
	m.until(8, "agent 1 back everywhere", func() bool { return m.everyone(0, hiadsd.FaultFree, -1) })
	for range 4 {
		m.round()
	}
	var told []int
	for id, s := range m.sinks {
		for _, ev := range s.events {
			if ev.NodeID == 5 && ev.Status == hiadsd.Faulty {
				told = append(told, id+1)
			}
		}
	}
	if len(told) > 1 || len(told) == 1 && told[0] != 1 {
		t.Fatalf("node 5 faulty told by agents %v; want agent 1's alone (the restarted owner's sink is new)", told)
	}
}

// TestMockNetSweepTellsAloneAtOnce: a node that fails alone is told at the
// first interval after its owner knows it, not a group window later: the
// owner's sweep found every other node up.
func TestMockNetSweepTellsAloneAtOnce(t *testing.T) {
	const n = 8
	m := newMockNet(t, n, hiadsd.VCube, notify.Owner)
	m.cfg.GroupWindow = m.cfg.Interval + m.cfg.TestBudget
	if rounds := m.cfg.GroupWindow / m.cfg.Interval; rounds < 2 {
		t.Fatalf("the window is %d rounds: too short to tell a sweep from it", rounds)
	}
	for id := range n {
		m.agents[id] = nil
		m.start(id)
	}
	m.settled(n)
	limit := hiadsd.PullBound(hiadsd.VCube, n, true) + 2
	mark := m.mark()
	m.stop(5, true)
	m.until(limit, "agent 1 holds node 6 faulty", func() bool { return m.agents[0].Snapshot().Nodes[5].Status == hiadsd.Faulty })
	took := m.until(limit, "node 6's notification", func() bool { return len(m.heard(mark).events) > 0 })
	if took > 1 {
		t.Errorf("node 6 told %d intervals after agent 1 knew it; want 1 (the window is %v)", took, m.cfg.GroupWindow)
	}
	for range limit {
		m.round()
	}
	if st := m.heard(mark); len(st.causes) != 0 || len(st.events) != 1 || st.events[0] != 1 {
		t.Errorf("want one diagNodeStatusChange from agent 1; got %v and causes %+v", st.events, st.causes)
	}
	want := "# HELP diagagent_cause_sweeps_total " + metricHelp(t, "diagagent_cause_sweeps_total") + `
# TYPE diagagent_cause_sweeps_total counter
diagagent_cause_sweeps_total{result="answered"} 1
diagagent_cause_sweeps_total{result="silent"} 0
`
	if err := metricstest.CollectAndCompare(m.agents[0], strings.NewReader(want), "diagagent_cause_sweeps_total"); err != nil {
		t.Errorf("agent 1 made one sweep that every node answered: %v", err)
	}
}
