// Package traps tells the network management station about each new event.
//
// A Notifier owns a bounded queue and one goroutine. The diagnosis loop calls
// NodeStatusChange (or NMSChange) and returns at once; the goroutine turns the
// event into a DIAGNOSIS-MIB notification (sysUpTime.0, snmpTrapOID.0, then the
// NOTIFICATION-TYPE's objects with the event row and node row as instances)
// and sends it as an SNMPv1 trap, SNMPv2c trap, SNMPv2c inform or SNMPv3
// authPriv inform with gosnmp's manager side.
//
// Where to send is the caller's decision: Config.Stations returns the station
// set through nmsID first and the fall-backs after it, each marked usable or
// not (for example, not usable while the diagnosis holds it faulty). Before
// every attempt the notifier asks again and uses the first usable station, so
// an inform being retried moves to a fall-back as soon as the primary is
// marked unusable. The notifier also keeps its own account of who answers: a
// station that leaves MaxAttempts informs in a row unacknowledged is down for
// Recheck and passed over for the next one, then tried first again, so a
// station that is not a node of the diagnosis can be failed over from too.
//
// Informs are retried with a timeout that doubles per attempt until they are
// acknowledged; a full queue drops its oldest notification, in flight or not.
// Stats exposes the counters, and Close drains the queue within a deadline.
//
// The package stands below the agent: it takes the event row as mib.Event,
// an SNMPv3 user as gosnmp's security parameters, and the stations as a
// function, and imports no part of agent/.
package traps
