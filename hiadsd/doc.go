// Package hiadsd is the pure diagnosis core the daemon runs.
//
// A Node holds one node's View (a status and an event counter per node id),
// the management Station the system agrees on, and its algorithm state. A
// testing interval is a state machine, in the manner of etcd raft's RawNode
// (machine.go): Interval.Begin starts it on a node, Ready returns the work it
// needs now (a batch of Ops: tests, and fetches of another node's entries
// and station) that the caller may run in parallel, and Advance takes the
// Results and moves on, until Done; the Report then lists the tests made,
// the entries received and the events and station changes learned.
// Expected is the first batch of the same machine, the testing graph as a
// view foresees it. The cluster functions of Hi-ADSD (ClusterHiADSD) and
// vCube (clusterVCube's closed form, which testerFrom walks in place)
// decide whom to test; Entry.Newer decides which of two
// entries wins a merge. Each algorithm has its own file: hiadsd_algo.go,
// vcube.go, vring.go and bruteforce.go. A node whose view starts with
// Unknown entries (a restart) asks for every entry in its first Levels(N)
// intervals (Node.CatchUp), so its event counters reach the system's before
// it reports a change.
//
// Beyond the papers, for a LAN: a node pushes what its own tests found down
// its vCube tree (push.go, Node.Receive), skips reading a source whose digest
// says it holds nothing new (digest.go), suspects itself first when no test
// is answered (isolation.go), and rechecks Hi-ADSD's suspects (Config.Recheck).
//
// The node list is an input too (list.go): a Node runs one ListVersion of
// its Config, merges nothing from a source that runs another, reports it
// (Report.Lists), and moves to a new list between intervals with
// Node.SetList. Ids only grow and a removed id (Config.Removed) is never
// tested nor given again, so what a node knows stays valid across the
// switch; Node.Renumber names the rare ids that changed meaning, which the
// node forgets.
//
// The package never opens a socket, starts a goroutine, sleeps or reads the
// wall clock: time is whatever the caller's loop makes it. The daemon drives
// the machine from its ticker, running each batch over SNMP in parallel. The
// lab (hiadsd/lab, as etcd raft's rafttest) drives the same machine on an
// in-memory network for the simulator and the tests, beside the papers'
// research-only algorithms, which the daemon does not run.
package hiadsd
