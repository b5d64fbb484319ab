// Package viewmetrics serves the view an agent last published (a
// board.Snapshot) as Prometheus metrics, read at scrape time: each node's
// status, flapping, maintenance and cause, the counts by status, and
// hiADSDisUP; and what each testing interval told (Loop): the reads of
// peers, the second vantage points' outcomes, the agent's self-doubt.
package viewmetrics

import (
	"strconv"
	"time"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/metrics"
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

// Collector is a metrics.Collector of the snapshot snap returns, nil
// until one is published; now is the agent's clock.
type Collector struct {
	snap func() *board.Snapshot
	now  func() time.Time
}

// New returns the Collector of the snapshots snap returns.
func New(snap func() *board.Snapshot, now func() time.Time) *Collector {
	return &Collector{snap: snap, now: now}
}

// Describe sends the descriptions of the view's metrics (metrics.Collector).
func (c *Collector) Describe(ch chan<- *metrics.Desc) {
	for _, desc := range []*metrics.Desc{descNodeStatus, descNodes, descUp, descLastSeq, descListsDiffer, descKeyRefused, descKeys, descFlapping, descMaintenance, descCause, descGrouped} {
		ch <- desc
	}
}

// Collect sends the status of every node, the counts and hiADSDisUP
// (metrics.Collector); nothing before a snapshot is published.
func (c *Collector) Collect(ch chan<- metrics.Metric) {
	snap := c.snap()
	if snap == nil {
		return // nothing published yet
	}
	counts := map[hiadsd.Status]int{}
	now := c.now()
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
