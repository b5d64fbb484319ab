// Package notify is the agent's notification policy: which of its events
// reach the network management station, when, and grouped how. The daemon
// records each change of its view as an event; the Policy decides the
// rest, and sends through the notifier (package traps).
//
//   - Who tells (owner.go): under the default scope one agent tells each
//     change, the node's owner, the agent of the lowest id held fault-free
//     but the node itself, chosen from the shared diagnosis with no
//     election; a change left to an owner that fails before it is known is
//     handed over.
//   - When (hold.go, announce.go): a repair and a partial verdict wait until
//     they have held (traps.recovery_hold, traps.partial_hold), a first
//     verdict about a node never seen up waits through the start-up grace,
//     and nothing the station holds already is told again.
//   - Grouped how (causes.go, sweep.go): nodes lost within the group window
//     are one diagCauseChange, and so is their return; the owner of the
//     faults asks every other node once (a sweep) so that a node alone is
//     told at once. The groups out are served as nodeCauseGroup
//     (CauseGroups), which every display groups by.
//   - Flapping nodes and maintenance windows (flaps.go, maint.go): each is
//     told when it starts and ends, at the owner, and mutes the node's
//     changes meanwhile.
//
// The Policy reads the agent through two small interfaces: View, the loop's
// view and node list, and Host, the clock, the snapshot served and the
// events on disk. It holds no view of its own.
package notify
