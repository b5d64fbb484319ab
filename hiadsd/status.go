package hiadsd

// Status is what a node believes about another node.
type Status uint8

// The statuses; the zero value is Unknown, so a fresh view knows nothing.
const (
	Unknown   Status = iota // never tested nor learned
	FaultFree               // answered the diagnosis test
	Faulty                  // answered neither the test nor ping
	Partial                 // answered ping but not the diagnosis test
	// Degraded answered the diagnosis test, and said it doubts its own
	// tests: its link loses packets (vantage.go). It is up, but neither a
	// tester nor a source of the others' plans.
	Degraded
)

// Valid reports whether s is one of the five statuses.
func (s Status) Valid() bool { return s <= Degraded }

// Up reports whether a node of status s answers its tests: fault-free or
// degraded.
func (s Status) Up() bool { return s == FaultFree || s == Degraded }

// String names the status as the JSON output and logs spell it.
func (s Status) String() string {
	switch s {
	case FaultFree:
		return "fault-free"
	case Faulty:
		return "faulty"
	case Partial:
		return "partial"
	case Degraded:
		return "degraded"
	default:
		return "unknown"
	}
}

// severity orders statuses for the tie rule of Newer: a worse verdict
// wins, and degraded wins over every verdict. A degraded entry comes from a
// test that reached the node and read its own doubt; a failure at the same
// counter comes from a tester that had not learned it yet (its entry was
// older), and at 80% loss each way it would undo the naming at every agent.
// A degraded node that crashed is found by a tester that holds it degraded,
// whose verdict takes a counter above it.
func (s Status) severity() int {
	switch s {
	case FaultFree:
		return 1
	case Partial:
		return 2
	case Faulty:
		return 3
	case Degraded:
		return 4
	default:
		return 0
	}
}
