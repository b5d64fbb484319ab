// Package lab is the diagnosis core's laboratory, beside the core as etcd
// raft's rafttest is beside raft: an in-memory Network of N nodes with true
// states, and the papers' research-only algorithms.
//
// The Network drives the core's nodes through the same Interval machine the
// daemon drives (Begin, Ready, Advance), answering every batch from the
// truth and from the other nodes' views, so the simulator (cmd/diagsim) and
// the tests prove the daemon's logic. It fails, repairs, cuts off and
// reconnects nodes, delivers pushes, changes the node list (Join, Leave) and
// sets the station. Views are Sparse: one default entry plus what differs
// from it, which is what lets 65,536 nodes and more fit.
//
// The research algorithms (ADSD with Intersections, seed 003; Hi-ADSD with
// Detours and with Timestamps, and Hi-Comp, seed 004) run on benches of
// the lab's own (research.go), as the papers describe them: one test or
// read at a time, with the core's merge rule and none of the daemon's
// additions. Algorithm names all eight; the core's four keep the core's
// values.
package lab
