// Package nodelist is the node list an agent runs: its members (address,
// port, tested-only, or removed), its version and its fingerprint. The list
// an agent starts from is its file's, at version 0; a change made at one
// agent (an SNMP SET of a diagTree row, or a reload of an edited file) is a
// fact stamped there, and the other agents learn it through the diagnosis,
// as they learn the station, reading only the facts they lack (Delta).
// Ids are positions in the list and keep their meaning from one version to
// the next: a new node takes the next id, a removed one keeps its id as a
// removed slot until every agent has seen it removed and the list is
// collected (Collect); only then is the id given to another node
// (docs/membership.md). Each member may carry a maintenance window, which
// changes the list as any other change does. It knows nothing of the
// diagnosis core but its statuses: the daemon hands the core what it needs
// of a list.
package nodelist
