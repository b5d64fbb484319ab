// Package daemon is the diagnosis loop a LAN administrator runs on every
// workstation: it drives the pure core (hiadsd) against the world.
//
// Each testing interval the loop begins the core's interval machine
// (hiadsd.Interval.Begin) and runs every batch of work it hands back at
// once: a test is the practical test (probe.Prober: SNMP GET of
// hiADSDisUP.0, then ICMP echo), a fetch is a GETBULK of the peer's station
// and diagTree rows. The results go back with Advance until the interval is
// done. The updates it reports become rows of the event table, log lines and
// notifications (Notifier); the view is published on a board.Board as an
// immutable snapshot, which the SNMP responder, the notifier and the page
// read; what must survive a restart is written under the state directory. A
// station SET (SetNMS) is served at once and handed to the core when the
// next interval begins.
//
//	daemon.Config ──► Daemon ──► Begin / Ready ──► batch (probe.Prober) ──► Advance ──► Report
//	                                                                                     │
//	      board.Board ◄── Publish(snapshot) ◄───────────────────────────────────────────┤
//	      Notifier    ◄── NodeStatusChange ◄────────────────────────────────────────────┤
//	      state dir   ◄── state.Save ◄───────────────────────────────────────────────────┘
//
// A Daemon is three parts: the loop, the list it runs (members.go) and the
// journal (its events and the snapshot it serves, record.go). Rooms of their
// own hold the rest, each wired here: agent/membership is the node list's
// synchronisation (changes made here, lists read from peers, collection, the
// cluster keys; the daemon is its Host and switches to the list it queues),
// agent/notify decides which events reach the station, when and grouped how
// (the daemon is its View and Host, policy.go), agent/questions keeps the
// questions this agent asked other agents until each is answered
// (vantage.go), and agent/state keeps what survives a restart. What the
// core is given of a list is core.go's. It is a metrics.Collector of its
// view and intervals (metrics.go). It imports
// neither the responder nor the page: cmd/diagagent builds the parts in
// dependency order and hands each what it needs.
package daemon
