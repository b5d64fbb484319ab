// Package snmp is the node's SNMP responder: a concurrent SNMPv1, v2c and v3
// (USM) agent that serves the DIAGNOSIS-MIB, the MIB-II system group, the SNMP
// statistics group and the SNMPv3 engine and USM statistics objects.
//
// The pieces meet like this. NewResponder takes a Config (communities, users,
// engine identity, limits, callbacks, and the board.Board it serves). The daemon
// publishes an immutable board.Snapshot of its diagnosis view on that board
// whenever the view changes; each request loads it with one atomic read, so
// the diagnosis loop never waits for SNMP. Serve runs a
// bounded pool of workers on a net.PacketConn; each datagram goes through
// handle (version dispatch, community checks in handle.go, USM in usm.go), then
// through the operations in ops_get.go and ops_set.go over the sorted registry
// of MIB objects (tree.go, objects_*.go), all reading the one board.Snapshot loaded
// for that request.
//
// SNMPv1 and v2c messages, the hot path, are decoded and encoded by the small
// codec in codec.go and encode.go (a handful of allocations per request).
// SNMPv3 messages go through gosnmp's codec, which also does the USM digests,
// key localization and AES; gosnmp's decoder is the reference the community
// codec is fuzzed against. Anything undecodable is dropped and counted, never
// answered and never a panic.
//
// Counters are kept in Stats and served through the SNMP group
// (1.3.6.1.2.1.11), snmpMPDStats, snmpUnknownContexts and the USM statistics
// (1.3.6.1.6.3.15.1.1).
package snmp
