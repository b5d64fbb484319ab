// Package probe is the practical test of a peer and the reading of its
// diagnosis (seed 002 section 5.3): Probe GETs hiADSDisUP.0 over SNMP (v2c
// or v3) and, when that fails, sends an ICMP echo, so a host that answers
// ping but not SNMP is partial and one that answers neither is faulty;
// FetchDiagnosis reads a peer's station and diagTree rows in one GETBULK
// walk; FetchEvents reads its event table. A Prober bounds the operations in
// flight (test.concurrency); every result carries the status, the deciding
// round-trip time and both steps' errors.
package probe
