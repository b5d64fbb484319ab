// Package hiadsd is the pure diagnosis core shared by the daemon and the simulator.
//
// A Node holds one node's View (a status and an event counter per node id),
// the management Station the system agrees on, and its algorithm state. A
// testing interval is a state machine, in the manner of etcd raft's RawNode
// (machine.go): Node.Begin starts it, Ready returns the work it needs now (a
// batch of Ops: tests, fetches of another node's entries and station,
// Hi-Comp's tasks) that the caller may run in parallel, and Advance takes the
// Results and moves on, until Done; the Report then lists the tests made, the
// entries received and the events and station changes learned. Node.Step is
// the blocking driver over a Tester, and Expected the first batch of the same
// machine, the testing graph as a view foresees it. The cluster functions of Hi-ADSD (ClusterHiADSD) and vCube
// (ClusterVCube) decide whom to test; Entry.Newer decides which of two entries
// wins a merge. Each algorithm has its own file: hiadsd_algo.go, vcube.go,
// vring.go and bruteforce.go run in the daemon; adsdwi.go (ADSD with
// Intersections, seed 003), detours.go and timestamps.go (the Hi-ADSD variants
// of seed 004, chapter 2) and hicomp.go (Hi-Comp, seed 004, chapter 3, whose
// comparison tasks Step runs through a Tester that is also an Executor) run in the
// simulator. A node whose view starts with Unknown entries (a restart) asks
// for every entry in its first Levels(N) intervals (Node.CatchUp), so its
// event counters reach the system's before it reports a change.
//
// The node list is an input too (list.go): a Node runs one ListVersion of
// its Config, merges nothing from a source that runs another, reports a
// newer one (Report.Lists), and moves to it between intervals with
// Node.SetList. Ids only grow and a removed id (Config.Removed) is never
// tested nor given again, so what a node knows stays valid across the
// switch. The Network's Join and Leave drive the same code in the
// simulator.
//
// The package never opens a socket, starts a goroutine, sleeps or reads the
// wall clock: time is whatever the caller's loop makes it. The daemon drives
// the machine from its ticker, running each batch over SNMP in parallel; the
// simulator drives the same machine through Step from a discrete-event queue
// with the in-memory Network of simnet.go.
package hiadsd
