//go:build linux

// Package lan builds a LAN on one machine for diagagent's multi-host tests:
// a switch namespace holding a bridge, one network namespace per host joined
// to it by a veth pair, addresses from 198.18.0.0/16 (in RFC 2544's benchmarking
// range 198.18.0.0/15) that exist only inside those namespaces, and the faults a real LAN has.
//
// The pieces meet like this: Build creates the namespaces (Net); Start runs a
// program inside one of them (Proc); Cluster writes one shared diagagent
// configuration, runs an agent per host, a station (snmptrapd, Station) and a
// printer (snmpd, tested only), reads each agent's JSON log as a stream of
// Events and walks its diagTree with snmpwalk. Faults are methods of Net
// (LinkDown, SetLoss) and of Proc (Freeze, Stop). RunSchedule replays seed
// 002's 37-node schedule (PaperSchedule), Soak counts false suspicions under
// packet loss, Chaos runs random faults under loss checking every
// invariant, Versus runs memberlist members (Swim, cmd/swimmember) beside
// diagagent clusters sharing one LAN (NewClusterOn) through the same faults
// (or each alone, one after the other: VersusSpec.Apart), counting each
// system's traffic with nftables (Count), and Table,
// SoakTable, ChaosTable and VersusTables format them for cmd/lanrun, which
// scripts/scenario.sh runs. Close removes everything Build made, and Build
// first removes what dead runs left behind.
package lan
