package hiadsd

// Status is what a node believes about another node.
type Status uint8

// The statuses; the zero value is Unknown, so a fresh view knows nothing.
const (
	Unknown   Status = iota // never tested nor learned
	FaultFree               // answered the diagnosis test
	Faulty                  // answered neither the test nor ping
	Partial                 // answered ping but not the diagnosis test
)

// Valid reports whether s is one of the four statuses.
func (s Status) Valid() bool { return s <= Partial }

// String names the status as the JSON output and logs spell it.
func (s Status) String() string {
	switch s {
	case FaultFree:
		return "fault-free"
	case Faulty:
		return "faulty"
	case Partial:
		return "partial"
	default:
		return "unknown"
	}
}

// severity orders statuses for the tie rule of Newer: a worse verdict wins.
func (s Status) severity() int {
	switch s {
	case FaultFree:
		return 1
	case Partial:
		return 2
	case Faulty:
		return 3
	default:
		return 0
	}
}
