// Package daemon is the diagnosis agent a LAN administrator runs on every
// workstation: it wires the pure core (hiadsd) to the world.
//
// Each testing interval the loop calls hiadsd.Node.Step with a Tester whose
// tests are the practical test of DESIGN.md section 3 (agent.Prober: SNMP GET
// of hiADSDisUP.0, then ICMP echo) and whose fetches are GETBULKs of the tested
// agent's diagTree. The updates Step reports become rows of the event table,
// log lines and notifications (traps.Notifier); the view is published to the
// SNMP responder (agent.Responder) as an immutable snapshot and what must
// survive a restart is written under state_dir.
//
//	config.Config ──► Daemon ──► Step(peerTester) ──► Report
//	                    │                               │
//	       agent.Responder ◄── Publish(snapshot) ◄──────┤
//	       traps.Notifier  ◄── NodeStatusChange ◄───────┤
//	       state_dir       ◄── SaveState ◄──────────────┘
package daemon
