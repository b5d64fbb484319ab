// Package mib holds the DIAGNOSIS-MIB (enterprises.200, from the appendix of the
// Hi-ADSD paper, made valid SMIv2 and extended in new arcs) and the Go constants
// that match it.
//
// The agent serves the objects named by the constants in oids.go, the notifier in
// package traps sends DiagNodeStatusChange and DiagNMSChange, and Text returns the
// MIB module itself so the daemon can install or serve it. The tests translate
// every constant with net-snmp's snmptranslate and lint the module with smilint,
// so the Go side and the MIB file cannot drift apart.
//
// Event is the one type of a diagEventTable row, which the agent serves
// and package traps sends: the row every package shares. The other values
// an agent serves are not here: the snapshot and its rows are package
// agent/board's, an SNMPv3 user is package agent/usm's, and the statuses'
// names are package hiadsd's; DiagStatus and StatusOf number them as
// nodeStatus does.
//
// Debian's net-snmp and smitools come without the IETF base modules; ietf/ holds
// minimal stand-ins (SNMPv2-SMI, SNMPv2-TC, SNMPv2-CONF, SNMPv2-MIB) written from
// RFC 2578, 2579, 2580 and 3418. Put that directory last on a tool's search path
// so a system copy, when installed, wins.
package mib
