package daemon

import (
	"strconv"
	"time"

	"github.com/diagagent/diagagent/agent/metrics"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// The view's metrics, read from the snapshot last published at scrape time.
var (
	descNodeStatus = metrics.NewDesc("diagagent_node_status",
		"Diagnosed status of each node as in the MIB: 0 fault-free, 1 faulty, 2 partial, 3 unknown, 4 degraded.",
		[]string{"node", "address", "name"}, nil)
	descNodes = metrics.NewDesc("diagagent_nodes",
		"Nodes this agent holds in each status.", []string{"status"}, nil)
	descUp = metrics.NewDesc("diagagent_up",
		"hiADSDisUP: 1 if the diagnosis loop began or finished an interval recently.", nil, nil)
	descLastSeq = metrics.NewDesc("diagagent_last_event_seq",
		"Sequence number of the newest row of the event table.", nil, nil)
	descListsDiffer = metrics.NewDesc("diagagent_node_lists_differing",
		"Peers last read with another node list (diagNodeListHash): not used as sources until the lists agree.", nil, nil)
	descKeyRefused = metrics.NewDesc("diagagent_peers_refusing_keys",
		"Agents that refused every cluster key this agent holds when it last tested them: one side missed a key rotation.", nil, nil)
	descFlapping = metrics.NewDesc("diagagent_node_flapping",
		"1 while the node flaps (nodeFlapping), else 0.", []string{"node", "address", "name"}, nil)
	descMaintenance = metrics.NewDesc("diagagent_node_maintenance",
		"1 while the node's maintenance window is open (nodeMaintenanceFor above 0), else 0.", []string{"node", "address", "name"}, nil)
	descCause = metrics.NewDesc("diagagent_cause_nodes",
		"Nodes down together, as this agent's view groups them (traps.group_window): one series per cause of two nodes or more, labelled with its nodes as NodeID ranges.",
		[]string{"cause"}, nil)
	descGrouped = metrics.NewDesc("diagagent_node_grouped",
		"1 while the node is down with others in one cause (diagagent_cause_nodes), else 0.", []string{"node", "address", "name"}, nil)
	descKeys = metrics.NewDesc("diagagent_cluster_keys",
		"Cluster keys this agent runs (the one it sends with and those it accepts); 0 without a keyring.", nil, nil)
)

// metrics are what only the testing intervals tell: the reads of peers'
// diagnostic information, the entries they brought, the intervals and the
// events waiting for a save.
type loopMetrics struct {
	entries   metrics.Counter
	fetches   *metrics.CounterVec
	intervals metrics.Counter
	unused    metrics.Counter
	refused   metrics.Counter
	took      metrics.Histogram
	unsaved   metrics.Gauge
	seconds   *metrics.CounterVec
	doubt     metrics.Gauge
	unreached metrics.Gauge
}

// newMetrics makes the interval metrics, every label value at 0.
func newMetrics() loopMetrics {
	m := loopMetrics{
		entries: metrics.NewCounter(metrics.CounterOpts{Name: "diagagent_entries_received_total",
			Help: "Diagnostic units (one node's entry) this agent took from the nodes it tested."}),
		fetches: metrics.NewCounterVec(metrics.CounterOpts{Name: "diagagent_fetches_total",
			Help: "Reads of a tested node's diagnostic information, by result (ok, error, skipped: its digest said nothing was new)."}, []string{"result"}),
		intervals: metrics.NewCounter(metrics.CounterOpts{Name: "diagagent_intervals_total",
			Help: "Testing intervals (this agent's share of a testing round) completed."}),
		refused: metrics.NewCounter(metrics.CounterOpts{Name: "diagagent_counters_refused_total",
			Help: "Entries, stations and node lists read or pushed from peers whose counter led the one held further than a correct peer's can (hiadsd.MaxLead): not taken, not passed on."}),
		unused: metrics.NewCounter(metrics.CounterOpts{Name: "diagagent_answers_unused_total",
			Help: "Tests and reads made ahead, on an expected verdict that the real answer then overturned, so their answers went unused."}),
		took: metrics.NewHistogram(metrics.HistogramOpts{Name: "diagagent_interval_duration_seconds",
			Help:    "Duration of one testing interval: tests, reads and recording.",
			Buckets: metrics.ExponentialBuckets(0.001, 2, 14)}),
		unsaved: metrics.NewGauge(metrics.GaugeOpts{Name: "diagagent_events_unsaved",
			Help: "Events recorded but waiting for state_dir to take them; they are served and notified once saved."}),
		seconds: metrics.NewCounterVec(metrics.CounterOpts{Name: "diagagent_second_vantage_total",
			Help: "Faulty or partial verdicts of this agent's tests about nodes it held fault-free, by what the other agents it asked said (test.vantage): confirmed (believed), alone (no other agent to ask: believed), refuted (another reached the node: not believed), unheard (none answered: not believed), holding (a node held degraded, here or by an agent asked, silent for fewer intervals in a row than the hold: not believed yet)."}, []string{"result"}),
		doubt: metrics.NewGauge(metrics.GaugeOpts{Name: "diagagent_self_doubt",
			Help: "1 while this agent doubts its own tests (diagSelfDoubt): other agents refute its failures, or its requests to live nodes go unanswered; its link is the likely fault."}),
		unreached: metrics.NewGauge(metrics.GaugeOpts{Name: "diagagent_unreached_nodes",
			Help: "Nodes this agent cannot reach while other agents reach them (diagUnreached): a firewall or ACL between them; they stay fault-free."}),
	}
	for _, r := range []string{"ok", "error", "skipped"} {
		m.fetches.WithLabelValues(r)
	}
	for _, s := range []hiadsd.Second{hiadsd.Confirmed, hiadsd.Alone, hiadsd.Refuted, hiadsd.Unheard, hiadsd.Holding} {
		m.seconds.WithLabelValues(s.String())
	}
	return m
}

// observe counts one testing interval: the reads it made, the entries they
// brought, the answers it did not use, its duration and the events still waiting for a save.
func (m loopMetrics) observe(rep hiadsd.Report, took time.Duration, unsaved int) {
	for _, f := range rep.Fetches {
		switch {
		case f.Err != nil:
			m.fetches.WithLabelValues("error").Inc()
		case f.Skipped:
			m.fetches.WithLabelValues("skipped").Inc()
		default:
			m.fetches.WithLabelValues("ok").Inc()
		}
	}
	m.entries.Add(float64(rep.Units))
	m.intervals.Inc()
	m.unused.Add(float64(rep.Wasted))
	m.took.Observe(took.Seconds())
	m.unsaved.Set(float64(unsaved))
	for _, t := range rep.Tests {
		if t.Second != hiadsd.SecondNone {
			m.seconds.WithLabelValues(t.Second.String()).Inc()
		}
	}
	doubt := 0.0
	if rep.Doubt.Doubting {
		doubt = 1
	}
	m.doubt.Set(doubt)
}

// collectors are the daemon's own counters, gauges and histograms.
func (m *loopMetrics) collectors() []metrics.Collector {
	return []metrics.Collector{m.entries, m.fetches, m.intervals, m.unused, m.refused, m.took, m.unsaved,
		m.seconds, m.doubt, m.unreached}
}

// Describe sends the descriptions of the daemon's metrics (metrics.Collector).
func (d *Daemon) Describe(ch chan<- *metrics.Desc) {
	for _, desc := range []*metrics.Desc{descNodeStatus, descNodes, descUp, descLastSeq, descListsDiffer, descKeyRefused, descKeys, descFlapping, descMaintenance, descCause, descGrouped} {
		ch <- desc
	}
	for _, c := range d.collectors() {
		c.Describe(ch)
	}
}

// Collect sends the status of every node, the counts, hiADSDisUP and the
// interval metrics (metrics.Collector).
func (d *Daemon) Collect(ch chan<- metrics.Metric) {
	for _, c := range d.collectors() {
		c.Collect(ch)
	}
	snap := d.Snapshot()
	if snap == nil {
		return // nothing published yet
	}
	counts := map[hiadsd.Status]int{}
	now := d.now()
	grouped := causeMetrics(ch, snap, now)
	for _, r := range snap.Nodes {
		counts[r.Status]++
		ch <- metrics.MustNewConstMetric(descNodeStatus, metrics.GaugeValue, float64(mib.DiagStatus(r.Status)),
			strconv.Itoa(int(r.ID)), r.Addr.String(), r.Name)
		flapping := 0.0
		if r.Flapping {
			flapping = 1
		}
		ch <- metrics.MustNewConstMetric(descFlapping, metrics.GaugeValue, flapping, strconv.Itoa(int(r.ID)), r.Addr.String(), r.Name)
		maint := 0.0
		if r.Maint.Active(now) {
			maint = 1
		}
		ch <- metrics.MustNewConstMetric(descMaintenance, metrics.GaugeValue, maint, strconv.Itoa(int(r.ID)), r.Addr.String(), r.Name)
		in := 0.0
		if grouped[r.ID] {
			in = 1
		}
		ch <- metrics.MustNewConstMetric(descGrouped, metrics.GaugeValue, in, strconv.Itoa(int(r.ID)), r.Addr.String(), r.Name)
	}
	for _, s := range mib.DiagStatuses() {
		ch <- metrics.MustNewConstMetric(descNodes, metrics.GaugeValue, float64(counts[s]), s.String())
	}
	up := 0.0
	if snap.Up {
		up = 1
	}
	ch <- metrics.MustNewConstMetric(descUp, metrics.GaugeValue, up)
	ch <- metrics.MustNewConstMetric(descLastSeq, metrics.GaugeValue, float64(snap.LastSeq()))
	ch <- metrics.MustNewConstMetric(descListsDiffer, metrics.GaugeValue, float64(len(snap.ListMismatch)))
	ch <- metrics.MustNewConstMetric(descKeyRefused, metrics.GaugeValue, float64(len(snap.KeyRefused)))
	ch <- metrics.MustNewConstMetric(descKeys, metrics.GaugeValue, float64(len(snap.Keys)))
}

// causeMetrics sends diagagent_cause_nodes for the causes of two nodes or
// more among the nodes the snapshot holds out, grouped as the agent
// notified them (board.Causes), and returns their NodeIDs.
func causeMetrics(ch chan<- metrics.Metric, snap *board.Snapshot, now time.Time) map[uint32]bool {
	grouped := map[uint32]bool{}
	var out []board.Row
	for _, r := range snap.Nodes {
		if board.Out(r.Status, r.Maint.Active(now)) {
			out = append(out, r)
		}
	}
	for _, g := range board.Causes(out, func(r board.Row) uint32 { return snap.Causes[r.ID] }) {
		if len(g) < 2 {
			continue
		}
		ids := make([]uint32, len(g))
		for k, r := range g {
			ids[k] = r.ID
			grouped[ids[k]] = true
		}
		ch <- metrics.MustNewConstMetric(descCause, metrics.GaugeValue, float64(len(g)), mib.NodeRanges(ids, 255))
	}
	return grouped
}

// collectors are the daemon's counters, its rooms' included.
func (d *Daemon) collectors() []metrics.Collector {
	return append(append(d.met.collectors(), d.pol.Collectors()...), d.members.Collectors()...)
}
