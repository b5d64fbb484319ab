package daemon

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// The view's metrics, read from the snapshot last published at scrape time.
var (
	descNodeStatus = prometheus.NewDesc("diagagent_node_status",
		"Diagnosed status of each node as in the MIB: 0 fault-free, 1 faulty, 2 partial, 3 unknown.",
		[]string{"node", "address", "name"}, nil)
	descNodes = prometheus.NewDesc("diagagent_nodes",
		"Nodes this agent holds in each status.", []string{"status"}, nil)
	descUp = prometheus.NewDesc("diagagent_up",
		"hiADSDisUP: 1 if the diagnosis loop began or finished an interval recently.", nil, nil)
	descLastSeq = prometheus.NewDesc("diagagent_last_event_seq",
		"Sequence number of the newest row of the event table.", nil, nil)
	descListsDiffer = prometheus.NewDesc("diagagent_node_lists_differing",
		"Peers last read with another node list (diagNodeListHash): not used as sources until the lists agree.", nil, nil)
	descKeyRefused = prometheus.NewDesc("diagagent_peers_refusing_keys",
		"Agents that refused every cluster key this agent holds when it last tested them: one side missed a key rotation.", nil, nil)
	descFlapping = prometheus.NewDesc("diagagent_node_flapping",
		"1 while the node flaps (nodeFlapping), else 0.", []string{"node", "address", "name"}, nil)
	descMaintenance = prometheus.NewDesc("diagagent_node_maintenance",
		"1 while the node's maintenance window is open (nodeMaintenanceFor above 0), else 0.", []string{"node", "address", "name"}, nil)
	descCause = prometheus.NewDesc("diagagent_cause_nodes",
		"Nodes down together, as this agent's view groups them (traps.group_window): one series per cause of two nodes or more, labelled with its nodes as NodeID ranges.",
		[]string{"cause"}, nil)
	descGrouped = prometheus.NewDesc("diagagent_node_grouped",
		"1 while the node is down with others in one cause (diagagent_cause_nodes), else 0.", []string{"node", "address", "name"}, nil)
	descKeys = prometheus.NewDesc("diagagent_cluster_keys",
		"Cluster keys this agent runs (the one it sends with and those it accepts); 0 without a keyring.", nil, nil)
)

// metrics are what only the testing intervals tell: the reads of peers'
// diagnostic information, the entries they brought, the intervals and the
// events waiting for a save.
type metrics struct {
	entries   prometheus.Counter
	fetches   *prometheus.CounterVec
	intervals prometheus.Counter
	unused    prometheus.Counter
	refused   prometheus.Counter
	flaps     *prometheus.CounterVec
	took      prometheus.Histogram
	unsaved   prometheus.Gauge
	merges    *prometheus.CounterVec
	lost      *prometheus.CounterVec
	causes    *prometheus.CounterVec
}

// newMetrics makes the interval metrics, every label value at 0.
func newMetrics() metrics {
	m := metrics{
		entries: prometheus.NewCounter(prometheus.CounterOpts{Name: "diagagent_entries_received_total",
			Help: "Diagnostic units (one node's entry) this agent took from the nodes it tested."}),
		fetches: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "diagagent_fetches_total",
			Help: "Reads of a tested node's diagnostic information, by result (ok, error, skipped: its digest said nothing was new)."}, []string{"result"}),
		intervals: prometheus.NewCounter(prometheus.CounterOpts{Name: "diagagent_intervals_total",
			Help: "Testing intervals (this agent's share of a testing round) completed."}),
		refused: prometheus.NewCounter(prometheus.CounterOpts{Name: "diagagent_counters_refused_total",
			Help: "Entries, stations and node lists read or pushed from peers whose counter led the one held further than a correct peer's can (hiadsd.MaxLead): not taken, not passed on."}),
		flaps: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "diagagent_flapping_total",
			Help: "Nodes that started or stopped flapping (Nagios's weighted percent state change over the view's last 21 samples), by what they did."}, []string{"change"}),
		unused: prometheus.NewCounter(prometheus.CounterOpts{Name: "diagagent_answers_unused_total",
			Help: "Tests and reads made ahead, on an expected verdict that the real answer then overturned, so their answers went unused."}),
		took: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "diagagent_interval_duration_seconds",
			Help:    "Duration of one testing interval: tests, reads and recording.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 14)}),
		unsaved: prometheus.NewGauge(prometheus.GaugeOpts{Name: "diagagent_events_unsaved",
			Help: "Events recorded but waiting for state_dir to take them; they are served and notified once saved."}),
		merges: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "diagagent_node_list_reads_total",
			Help: "Peers' node lists read, by what came of them: merged (it brought changes), held (nothing new), refused (no correct agent could have made it), other_base (another file's), older_format (an agent not upgraded)."}, []string{"result"}),
		lost: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "diagagent_node_list_changes_lost_total",
			Help: "Changes of the node list made here that lost to one made at once at another agent (diagNodeListConflict), by kind: window, key in use, key removal, id."}, []string{"kind"}),
		causes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "diagagent_causes_notified_total",
			Help: "Groups of nodes this agent notified as one cause (diagCauseChange), by kind: lost (lost together), back-down (back, had been down), back-cut (back, had been cut off), back (back, not seen going)."}, []string{"kind"}),
	}
	for _, r := range []string{"ok", "error", "skipped"} {
		m.fetches.WithLabelValues(r)
	}
	for _, c := range []string{"started", "stopped"} {
		m.flaps.WithLabelValues(c)
	}
	for _, r := range []string{"merged", "held", "refused", "other_base", "older_format"} {
		m.merges.WithLabelValues(r)
	}
	for _, k := range []string{"window", "key in use", "key removal", "id"} {
		m.lost.WithLabelValues(k)
	}
	for _, k := range causeKinds {
		m.causes.WithLabelValues(k)
	}
	return m
}

// cause counts one cause notified.
func (m metrics) cause(kind string) { m.causes.WithLabelValues(kind).Inc() }

// observe counts one testing interval: the reads it made, the entries they
// brought, the answers it did not use, its duration and the events still waiting for a save.
func (m metrics) observe(rep hiadsd.Report, took time.Duration, unsaved int) {
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
}

// Describe sends the descriptions of the daemon's metrics (prometheus.Collector).
func (d *Daemon) Describe(ch chan<- *prometheus.Desc) {
	for _, desc := range []*prometheus.Desc{descNodeStatus, descNodes, descUp, descLastSeq, descListsDiffer, descKeyRefused, descKeys, descFlapping, descMaintenance, descCause, descGrouped} {
		ch <- desc
	}
	for _, c := range []prometheus.Collector{d.met.entries, d.met.fetches, d.met.intervals, d.met.unused, d.met.refused, d.met.flaps, d.met.took, d.met.unsaved, d.met.merges, d.met.lost, d.met.causes} {
		c.Describe(ch)
	}
}

// Collect sends the status of every node, the counts, hiADSDisUP and the
// interval metrics (prometheus.Collector).
func (d *Daemon) Collect(ch chan<- prometheus.Metric) {
	for _, c := range []prometheus.Collector{d.met.entries, d.met.fetches, d.met.intervals, d.met.unused, d.met.refused, d.met.flaps, d.met.took, d.met.unsaved, d.met.merges, d.met.lost, d.met.causes} {
		c.Collect(ch)
	}
	snap := d.Snapshot()
	if snap == nil {
		return // nothing published yet
	}
	counts := map[hiadsd.Status]int{}
	now := d.now()
	grouped := d.causeMetrics(ch, snap, now)
	for _, r := range snap.Nodes {
		counts[r.Status]++
		ch <- prometheus.MustNewConstMetric(descNodeStatus, prometheus.GaugeValue, float64(mib.DiagStatus(r.Status)),
			strconv.Itoa(int(r.ID)), r.Addr.String(), r.Name)
		flapping := 0.0
		if r.Flapping {
			flapping = 1
		}
		ch <- prometheus.MustNewConstMetric(descFlapping, prometheus.GaugeValue, flapping, strconv.Itoa(int(r.ID)), r.Addr.String(), r.Name)
		maint := 0.0
		if r.Maint.Active(now) {
			maint = 1
		}
		ch <- prometheus.MustNewConstMetric(descMaintenance, prometheus.GaugeValue, maint, strconv.Itoa(int(r.ID)), r.Addr.String(), r.Name)
		in := 0.0
		if grouped[r.ID] {
			in = 1
		}
		ch <- prometheus.MustNewConstMetric(descGrouped, prometheus.GaugeValue, in, strconv.Itoa(int(r.ID)), r.Addr.String(), r.Name)
	}
	for _, s := range mib.DiagStatuses() {
		ch <- prometheus.MustNewConstMetric(descNodes, prometheus.GaugeValue, float64(counts[s]), s.String())
	}
	up := 0.0
	if snap.Up {
		up = 1
	}
	ch <- prometheus.MustNewConstMetric(descUp, prometheus.GaugeValue, up)
	ch <- prometheus.MustNewConstMetric(descLastSeq, prometheus.GaugeValue, float64(snap.LastSeq()))
	ch <- prometheus.MustNewConstMetric(descListsDiffer, prometheus.GaugeValue, float64(len(snap.ListMismatch)))
	ch <- prometheus.MustNewConstMetric(descKeyRefused, prometheus.GaugeValue, float64(len(snap.KeyRefused)))
	ch <- prometheus.MustNewConstMetric(descKeys, prometheus.GaugeValue, float64(len(snap.Keys)))
}

// causeMetrics sends diagagent_cause_nodes for the causes of two nodes or
// more among the nodes the snapshot holds down (not in maintenance),
// grouped by when they changed, and returns their NodeIDs.
func (d *Daemon) causeMetrics(ch chan<- prometheus.Metric, snap *board.Snapshot, now time.Time) map[uint32]bool {
	grouped := map[uint32]bool{}
	if d.cfg.GroupWindow <= 0 {
		return grouped
	}
	var down []board.Row
	var at []time.Duration
	for _, r := range snap.Nodes {
		if r.Status != hiadsd.FaultFree && r.Status != hiadsd.Unknown && !r.Maint.Active(now) {
			down = append(down, r)
			at = append(at, time.Duration(r.LastChange)*10*time.Millisecond)
		}
	}
	for _, g := range hiadsd.Together(at, d.cfg.GroupWindow) {
		if len(g) < 2 {
			continue
		}
		ids := make([]uint32, len(g))
		for k, i := range g {
			ids[k] = down[i].ID
			grouped[ids[k]] = true
		}
		ch <- prometheus.MustNewConstMetric(descCause, prometheus.GaugeValue, float64(len(g)), mib.NodeRanges(ids, 255))
	}
	return grouped
}
