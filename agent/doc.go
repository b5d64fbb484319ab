// Package agent holds the node's SNMP responder: a concurrent SNMPv1, v2c and v3
// (USM) agent that serves the DIAGNOSIS-MIB, the MIB-II system group, the SNMP
// statistics group and the SNMPv3 engine and USM statistics objects.
//
// The pieces meet like this. NewResponder takes a Config (communities, users,
// engine identity, limits, callbacks). The daemon hands it an immutable Snapshot
// of its diagnosis view with Publish whenever the view changes; the swap is one
// atomic pointer store, so the diagnosis loop never waits for SNMP. Serve runs a
// bounded pool of workers on a net.PacketConn; each datagram goes through
// handle (version dispatch, community or USM checks, see access.go and usm.go),
// then through the operations in ops_get.go and ops_set.go over the sorted
// registry of MIB objects (tree.go), all reading the one Snapshot loaded for
// that request. Packets are decoded and encoded with gosnmp's codec; anything it
// cannot parse is dropped and counted, never answered and never a panic.
//
// Counters are kept in Stats and served through the SNMP group
// (1.3.6.1.2.1.11) and the USM statistics (1.3.6.1.6.3.15.1.1).
package agent
