// Package state is what an agent keeps across restarts under its
// state_dir: the event counters it knows per node (so a change it observes
// after a restart is numbered above anything it said before), its event
// table, the station, the SNMP engine's boots and id, the node list it
// runs with the changes it has taken, and the cluster keys it runs (a file
// of their own, mode 0600).
//
// Every write goes to a temporary file that replaces the old one and is
// synced with its directory, so a power cut leaves the old state or the
// new one, never half of either. A file of an older layout is migrated
// when it is read; one of a newer layout is refused and left as it is. The
// daemon (agent/daemon) is its one writer; the program reads it to check
// state_dir before it starts (CheckDir, Describe).
package state
