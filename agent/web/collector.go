package web

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/diagagent/diagagent/agent/agentx"
	"github.com/diagagent/diagagent/agent/config"
	"github.com/diagagent/diagagent/agent/snmp"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
	"github.com/diagagent/diagagent/traps"
)

// descs are the descriptions of the metrics read at scrape time.
type descs struct {
	nodeStatus, nodes, up, lastSeq, notif, pending, snmpIn, snmpOut, snmpReq, snmpServed, snmpDrop, boots *prometheus.Desc
	axUp, axSessions, axRequests                                                                          *prometheus.Desc
	listsDiffer                                                                                           *prometheus.Desc
}

// newDescs describes the scrape-time metrics.
func newDescs() descs {
	return descs{
		nodeStatus: prometheus.NewDesc("diagagent_node_status",
			"Diagnosed status of each node as in the MIB: 0 fault-free, 1 faulty, 2 partial, 3 unknown.",
			[]string{"node", "address", "name"}, nil),
		nodes: prometheus.NewDesc("diagagent_nodes",
			"Nodes this agent holds in each status.", []string{"status"}, nil),
		up: prometheus.NewDesc("diagagent_up",
			"hiADSDisUP: 1 if the diagnosis loop finished an interval recently.", nil, nil),
		lastSeq: prometheus.NewDesc("diagagent_last_event_seq",
			"Sequence number of the newest row of the event table.", nil, nil),
		notif: prometheus.NewDesc("diagagent_notifications_total",
			"Notifications to the station by what became of them: sent (PDUs, retries included), "+
				"acknowledged, retried, failed (attempts), dropped (given up) and failover (a station passed over "+
				"for the next fall-back after leaving informs unanswered).", []string{"result"}, nil),
		pending: prometheus.NewDesc("diagagent_notifications_pending",
			"Notifications queued, one in flight included.", nil, nil),
		snmpIn: prometheus.NewDesc("diagagent_snmp_packets_received_total",
			"SNMP datagrams the responder received.", nil, nil),
		snmpOut: prometheus.NewDesc("diagagent_snmp_packets_sent_total",
			"SNMP datagrams the responder sent.", nil, nil),
		snmpReq: prometheus.NewDesc("diagagent_snmp_requests_total",
			"SNMP requests the responder accepted, by PDU type.", []string{"pdu"}, nil),
		snmpServed: prometheus.NewDesc("diagagent_snmp_responses_total",
			"SNMP requests served with a response PDU.", nil, nil),
		snmpDrop: prometheus.NewDesc("diagagent_snmp_dropped_total",
			"SNMP requests not served, by reason (SNMPv3 ones are answered with a report).", []string{"reason"}, nil),
		boots: prometheus.NewDesc("diagagent_snmp_engine_boots",
			"snmpEngineBoots served; 2147483647 means latched (RFC 3414 2.2.2): it could not be saved, "+
				"so every authenticated SNMPv3 request is refused until a restart with a writable state_dir.", nil, nil),
		listsDiffer: prometheus.NewDesc("diagagent_node_lists_differing",
			"Peers last read with another node list (diagNodeListHash): not used as sources until the lists agree.", nil, nil),
		axUp: prometheus.NewDesc("diagagent_agentx_connected",
			"1 while the AgentX session with the host's snmpd is open and the DIAGNOSIS-MIB registered (snmp.mode agentx).", nil, nil),
		axSessions: prometheus.NewDesc("diagagent_agentx_sessions_total",
			"AgentX sessions opened with the master since start; more than one means snmpd restarted or the session broke.", nil, nil),
		axRequests: prometheus.NewDesc("diagagent_agentx_requests_total",
			"Requests the master forwarded through AgentX and the agent answered.", nil, nil),
	}
}

// collector reads the view and the responder's and notifier's own counters
// at scrape time, so nothing is counted twice.
type collector struct {
	cfg    config.Config
	src    Source
	snmp   func() snmp.Stats
	traps  func() traps.Stats
	agentx func() agentx.State
	d      descs
}

// Describe sends the descriptions of every metric Collect may send.
func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.d.nodeStatus, c.d.nodes, c.d.up, c.d.lastSeq, c.d.notif, c.d.pending,
		c.d.snmpIn, c.d.snmpOut, c.d.snmpReq, c.d.snmpServed, c.d.snmpDrop, c.d.boots, c.d.axUp, c.d.axSessions, c.d.axRequests, c.d.listsDiffer} {
		ch <- d
	}
}

// Collect sends the current values.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	c.collectView(ch)
	if c.traps != nil {
		c.collectTraps(ch, c.traps())
	}
	if c.snmp != nil {
		c.collectSNMP(ch, c.snmp())
	}
	if c.agentx != nil {
		s := c.agentx()
		ch <- prometheus.MustNewConstMetric(c.d.axUp, prometheus.GaugeValue, bool01(s.Connected))
		ch <- prometheus.MustNewConstMetric(c.d.axSessions, prometheus.CounterValue, float64(s.Sessions))
		ch <- prometheus.MustNewConstMetric(c.d.axRequests, prometheus.CounterValue, float64(s.Requests))
	}
}

// collectView sends the status of every node, the counts and hiADSDisUP.
func (c *collector) collectView(ch chan<- prometheus.Metric) {
	snap := c.src.Snapshot()
	if snap == nil {
		return
	}
	counts := map[hiadsd.Status]int{}
	for _, r := range snap.Nodes {
		name := ""
		if i := int(r.ID) - 1; i >= 0 && i < len(c.cfg.Nodes) {
			name = c.cfg.Nodes[i].Name
		}
		counts[r.Status]++
		ch <- prometheus.MustNewConstMetric(c.d.nodeStatus, prometheus.GaugeValue, float64(mib.DiagStatus(r.Status)),
			strconv.Itoa(int(r.ID)), r.Addr.String(), name)
	}
	for _, s := range mib.DiagStatuses() {
		ch <- prometheus.MustNewConstMetric(c.d.nodes, prometheus.GaugeValue, float64(counts[s]), s.String())
	}
	ch <- prometheus.MustNewConstMetric(c.d.up, prometheus.GaugeValue, bool01(snap.Up))
	var seq uint32
	if n := len(snap.Events); n > 0 {
		seq = snap.Events[n-1].Seq
	}
	ch <- prometheus.MustNewConstMetric(c.d.lastSeq, prometheus.GaugeValue, float64(seq))
	ch <- prometheus.MustNewConstMetric(c.d.listsDiffer, prometheus.GaugeValue, float64(len(snap.ListMismatch)))
}

// collectTraps sends the notifier's counters.
func (c *collector) collectTraps(ch chan<- prometheus.Metric, t traps.Stats) {
	for _, v := range []struct {
		result string
		n      uint64
	}{{"sent", t.Sent}, {"acknowledged", t.Acknowledged}, {"retried", t.Retried}, {"failed", t.Failed}, {"dropped", t.Dropped}, {"failover", t.Failovers}} {
		ch <- prometheus.MustNewConstMetric(c.d.notif, prometheus.CounterValue, float64(v.n), v.result)
	}
	ch <- prometheus.MustNewConstMetric(c.d.pending, prometheus.GaugeValue, float64(t.Pending))
}

// collectSNMP sends the responder's counters.
func (c *collector) collectSNMP(ch chan<- prometheus.Metric, s snmp.Stats) {
	counter := func(d *prometheus.Desc, n uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(n), labels...)
	}
	counter(c.d.snmpIn, s.InPkts)
	counter(c.d.snmpOut, s.OutPkts)
	counter(c.d.snmpServed, s.OutGetResponses)
	for _, v := range []struct {
		pdu string
		n   uint64
	}{{"get", s.InGetRequests}, {"getnext", s.InGetNexts}, {"getbulk", s.InGetBulks}, {"set", s.InSetRequests}} {
		counter(c.d.snmpReq, v.n, v.pdu)
	}
	for _, v := range dropReasons(s) {
		counter(c.d.snmpDrop, v.n, v.reason)
	}
	ch <- prometheus.MustNewConstMetric(c.d.boots, prometheus.GaugeValue, float64(s.EngineBoots))
}

// dropReason is one label value of diagagent_snmp_dropped_total.
type dropReason struct {
	reason string
	n      uint64
}

// dropReasons lists why the responder did not serve requests.
func dropReasons(s snmp.Stats) []dropReason {
	return []dropReason{
		{"bad_version", s.InBadVersions}, {"bad_community", s.InBadCommunityNames},
		{"bad_community_use", s.InBadCommunityUses}, {"parse_error", s.InASNParseErrs},
		{"too_big", s.SilentDrops}, {"oversized", s.Oversized}, {"fault_injection", s.FaultDrops},
		{"panic", s.Panics}, {"unknown_security_model", s.UnknownSecurityModels},
		{"invalid_msg", s.InvalidMsgs}, {"unknown_pdu_handler", s.UnknownPDUHandlers},
		{"unknown_context", s.UnknownContexts}, {"unsupported_sec_level", s.UnsupportedSecLevels},
		{"not_in_time_window", s.NotInTimeWindows}, {"unknown_user", s.UnknownUserNames},
		{"unknown_engine_id", s.UnknownEngineIDs}, {"wrong_digest", s.WrongDigests},
		{"decryption_error", s.DecryptionErrors},
	}
}

// bool01 is 1 for true.
func bool01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
