package snmp

import "github.com/diagagent/diagagent/agent/metrics"

// The responder's metrics, read from its counters at scrape time.
var (
	descIn = metrics.NewDesc("diagagent_snmp_packets_received_total",
		"SNMP datagrams the responder received.", nil, nil)
	descOut = metrics.NewDesc("diagagent_snmp_packets_sent_total",
		"SNMP datagrams the responder sent.", nil, nil)
	descRequests = metrics.NewDesc("diagagent_snmp_requests_total",
		"SNMP requests the responder accepted, by PDU type.", []string{"pdu"}, nil)
	descServed = metrics.NewDesc("diagagent_snmp_responses_total",
		"SNMP requests served with a response PDU.", nil, nil)
	descDropped = metrics.NewDesc("diagagent_snmp_dropped_total",
		"SNMP requests not served, by reason (SNMPv3 ones are answered with a report).", []string{"reason"}, nil)
	descBoots = metrics.NewDesc("diagagent_snmp_engine_boots",
		"snmpEngineBoots served; 2147483647 means latched (RFC 3414 2.2.2): it could not be saved, "+
			"so every authenticated SNMPv3 request is refused until a restart with a writable state_dir.", nil, nil)
)

// Describe sends the descriptions of the responder's metrics
// (metrics.Collector).
func (r *Responder) Describe(ch chan<- *metrics.Desc) {
	for _, d := range []*metrics.Desc{descIn, descOut, descRequests, descServed, descDropped, descBoots} {
		ch <- d
	}
}

// Collect sends the responder's counters (metrics.Collector).
func (r *Responder) Collect(ch chan<- metrics.Metric) {
	s := r.Stats()
	counter := func(d *metrics.Desc, n uint64, labels ...string) {
		ch <- metrics.MustNewConstMetric(d, metrics.CounterValue, float64(n), labels...)
	}
	counter(descIn, s.InPkts)
	counter(descOut, s.OutPkts)
	counter(descServed, s.OutGetResponses)
	for _, v := range []struct {
		pdu string
		n   uint64
	}{{"get", s.InGetRequests}, {"getnext", s.InGetNexts}, {"getbulk", s.InGetBulks}, {"set", s.InSetRequests}} {
		counter(descRequests, v.n, v.pdu)
	}
	for _, v := range []struct {
		reason string
		n      uint64
	}{
		{"bad_version", s.InBadVersions}, {"bad_community", s.InBadCommunityNames},
		{"bad_community_use", s.InBadCommunityUses}, {"parse_error", s.InASNParseErrs},
		{"too_big", s.SilentDrops}, {"oversized", s.Oversized}, {"fault_injection", s.FaultDrops},
		{"panic", s.Panics}, {"unknown_security_model", s.UnknownSecurityModels},
		{"invalid_msg", s.InvalidMsgs}, {"unknown_pdu_handler", s.UnknownPDUHandlers},
		{"unknown_context", s.UnknownContexts}, {"unsupported_sec_level", s.UnsupportedSecLevels},
		{"not_in_time_window", s.NotInTimeWindows}, {"unknown_user", s.UnknownUserNames},
		{"unknown_engine_id", s.UnknownEngineIDs}, {"wrong_digest", s.WrongDigests},
		{"decryption_error", s.DecryptionErrors}, {"agents_only", s.AgentsOnly},
	} {
		counter(descDropped, v.n, v.reason)
	}
	ch <- metrics.MustNewConstMetric(descBoots, metrics.GaugeValue, float64(s.EngineBoots))
}
