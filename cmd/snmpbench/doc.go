//go:build linux

// Command snmpbench measures SNMP responders under a closed-loop load.
//
// It has four modes: "load" drives one server with GET, GETNEXT or GETBULK
// requests from N clients (one UDP socket each) and prints the rate and the
// latency percentiles; "compare" interleaves the same cells against several
// servers and writes a markdown table with medians and ratios; "serve" starts
// the diagagent responder with a synthetic snapshot; "echo" is a trivial UDP
// echo server shows that the generator itself is not the bottleneck.
// scripts/bench-snmp.sh wires them together against net-snmp's snmpd.
package main
