// Package hiadsd is the pure diagnosis core shared by the daemon and the simulator.
//
// A Node holds one node's View (a status and an event counter per node id) and
// its algorithm state. Node.Step performs one testing interval of that node
// against a Tester, which supplies test outcomes and other nodes' entries; the
// returned Report lists the tests made, the entries received and the events
// learned. The cluster functions of Hi-ADSD (ClusterHiADSD) and vCube
// (ClusterVCube) decide whom to test; Entry.Newer decides which of two entries
// wins a merge. Each algorithm has its own file: hiadsd_algo.go, vcube.go,
// vring.go and bruteforce.go run in the daemon; adsdwi.go (ADSD with
// Intersections, seed 003), detours.go and timestamps.go (the Hi-ADSD variants
// of seed 004, chapter 2) and hicomp.go (Hi-Comp, seed 004, chapter 3, whose
// comparison tests need a Tester that is also an Executor) run in the
// simulator. A node whose view starts with Unknown entries (a restart) asks
// for every entry in its first Levels(N) intervals (Node.CatchUp), so its
// event counters reach the system's before it reports a change.
//
// The package never opens a socket, starts a goroutine, sleeps or reads the
// wall clock: time is whatever the caller's loop makes it. The daemon drives
// Step from its ticker with an SNMP Tester; the simulator drives it from a
// discrete-event queue with the in-memory Network of simnet.go.
package hiadsd
