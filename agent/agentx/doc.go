// Package agentx speaks the AgentX protocol (RFC 2741) as a subagent, so a
// diagagent can serve the DIAGNOSIS-MIB through the host's net-snmp snmpd
// (master agentx) on port 161, under snmpd's users and views, instead of a
// port of its own.
//
// codec.go reads and writes the PDUs (section 6) in either byte order; it
// is fuzzed (FuzzDecode). No Go AgentX module is reachable from here, so the
// codec is the project's own, small, like its SNMP codec.
package agentx
