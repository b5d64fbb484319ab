package agentx

import "github.com/prometheus/client_golang/prometheus"

// The subagent's metrics, read from its state at scrape time.
var (
	descConnected = prometheus.NewDesc("diagagent_agentx_connected",
		"1 while the AgentX session with the host's snmpd is open and the DIAGNOSIS-MIB registered (snmp.mode agentx).", nil, nil)
	descSessions = prometheus.NewDesc("diagagent_agentx_sessions_total",
		"AgentX sessions opened with the master since start; more than one means snmpd restarted or the session broke.", nil, nil)
	descRequests = prometheus.NewDesc("diagagent_agentx_requests_total",
		"Requests the master forwarded through AgentX and the agent answered.", nil, nil)
)

// Describe sends the descriptions of the subagent's metrics
// (prometheus.Collector).
func (s *Subagent) Describe(ch chan<- *prometheus.Desc) {
	ch <- descConnected
	ch <- descSessions
	ch <- descRequests
}

// Collect sends the session's state (prometheus.Collector).
func (s *Subagent) Collect(ch chan<- prometheus.Metric) {
	st := s.State()
	connected := 0.0
	if st.Connected {
		connected = 1
	}
	ch <- prometheus.MustNewConstMetric(descConnected, prometheus.GaugeValue, connected)
	ch <- prometheus.MustNewConstMetric(descSessions, prometheus.CounterValue, float64(st.Sessions))
	ch <- prometheus.MustNewConstMetric(descRequests, prometheus.CounterValue, float64(st.Requests))
}
