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
// The values an agent serves are here too, one type each for every package:
// Snapshot (the diagTree rows, NodeRow; the event table, Event; the station
// and hiADSDisUP), and Board, which holds the snapshot the daemon published
// last for the responder, the notifier and the page to read. Event is the one
// event type: the daemon records it, the event table serves it, the state
// file stores it and the notifier sends it. Status numbers nodeStatus as the
// MIB does; its names (Name) and the core's statuses (Core, FromCore) come
// from package hiadsd, the one place they are spelled. USMUser is the one
// type of an SNMPv3 user (a usmUserTable row with its pass phrases), which the
// configuration reads and the responder, the prober and the notifier use.
//
// Debian's net-snmp and smitools come without the IETF base modules; ietf/ holds
// minimal stand-ins (SNMPv2-SMI, SNMPv2-TC, SNMPv2-CONF, SNMPv2-MIB) written from
// RFC 2578, 2579, 2580 and 3418. Put that directory last on a tool's search path
// so a system copy, when installed, wins.
package mib
