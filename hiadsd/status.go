package hiadsd

import "fmt"

// Status is what a node believes about another node.
type Status uint8

// The statuses; the zero value is Unknown, so a fresh view knows nothing.
const (
	Unknown   Status = iota // never tested nor learned
	FaultFree               // answered the diagnosis test
	Faulty                  // answered neither the test nor ping
	Partial                 // answered ping but not the diagnosis test
)

// MIB returns the value nodeStatus carries in the DIAGNOSIS-MIB:
// 0 fault-free, 1 faulty, 2 partial, 3 unknown.
func (s Status) MIB() int {
	switch s {
	case FaultFree:
		return 0
	case Faulty:
		return 1
	case Partial:
		return 2
	default:
		return 3
	}
}

// StatusFromMIB is the inverse of Status.MIB.
func StatusFromMIB(v int) (Status, error) {
	switch v {
	case 0:
		return FaultFree, nil
	case 1:
		return Faulty, nil
	case 2:
		return Partial, nil
	case 3:
		return Unknown, nil
	}
	return Unknown, fmt.Errorf("nodeStatus %d: %w", v, ErrBadStatus)
}

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
