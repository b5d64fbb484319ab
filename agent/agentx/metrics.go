package agentx

import "github.com/diagagent/diagagent/agent/metrics"

// The subagent's metrics, read from its state at scrape time.
var (
	descConnected = metrics.NewDesc("diagagent_agentx_connected",
		"1 while the AgentX session with the host's snmpd is open and the DIAGNOSIS-MIB registered (snmp.mode agentx).", nil, nil)
	descSessions = metrics.NewDesc("diagagent_agentx_sessions_total",
		"AgentX sessions opened with the master since start; more than one means snmpd restarted or the session broke.", nil, nil)
	descRequests = metrics.NewDesc("diagagent_agentx_requests_total",
		"Requests the master forwarded through AgentX and the agent answered.", nil, nil)
)

// Describe sends the descriptions of the subagent's metrics
// (metrics.Collector).
func (s *Subagent) Describe(ch chan<- *metrics.Desc) {
	ch <- descConnected
	ch <- descSessions
	ch <- descRequests
}

// Collect sends the session's state (metrics.Collector).
func (s *Subagent) Collect(ch chan<- metrics.Metric) {
	st := s.State()
	connected := 0.0
	if st.Connected {
		connected = 1
	}
	ch <- metrics.MustNewConstMetric(descConnected, metrics.GaugeValue, connected)
	ch <- metrics.MustNewConstMetric(descSessions, metrics.CounterValue, float64(st.Sessions))
	ch <- metrics.MustNewConstMetric(descRequests, metrics.CounterValue, float64(st.Requests))
}
