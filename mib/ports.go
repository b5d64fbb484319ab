package mib

// The well-known UDP ports of SNMP (RFC 3417, section 4): agents answer
// requests on AgentPort, stations take notifications on NotificationPort.
const (
	AgentPort        = 161
	NotificationPort = 162
)
