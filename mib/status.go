package mib

import (
	"fmt"

	"github.com/diagagent/diagagent/hiadsd"
)

// DiagStatus returns the value nodeStatus (the MIB's DiagStatus) carries
// for st: 0 fault-free, 1 faulty, 2 partial, 3 unknown, 4 degraded. The status itself
// is the core's (hiadsd.Status); the MIB only numbers it.
func DiagStatus(st hiadsd.Status) int {
	switch st {
	case hiadsd.FaultFree:
		return 0
	case hiadsd.Faulty:
		return 1
	case hiadsd.Partial:
		return 2
	case hiadsd.Degraded:
		return 4
	default:
		return 3
	}
}

// StatusOf returns the status a DiagStatus value stands for; a value outside
// 0..4 is an error wrapping hiadsd.ErrBadStatus.
func StatusOf(v int) (hiadsd.Status, error) {
	switch v {
	case 0:
		return hiadsd.FaultFree, nil
	case 1:
		return hiadsd.Faulty, nil
	case 2:
		return hiadsd.Partial, nil
	case 3:
		return hiadsd.Unknown, nil
	case 4:
		return hiadsd.Degraded, nil
	}
	return hiadsd.Unknown, fmt.Errorf("nodeStatus %d: %w", v, hiadsd.ErrBadStatus)
}

// DiagStatuses lists the statuses in the order DiagStatus numbers them.
func DiagStatuses() []hiadsd.Status {
	return []hiadsd.Status{hiadsd.FaultFree, hiadsd.Faulty, hiadsd.Partial, hiadsd.Unknown, hiadsd.Degraded}
}

// DiagStatusLabel returns the MIB's enumeration label of st: faultFree,
// faulty, partial, unknown or degraded, as net-snmp's tools print it.
func DiagStatusLabel(st hiadsd.Status) string {
	return [...]string{"faultFree", "faulty", "partial", "unknown", "degraded"}[DiagStatus(st)]
}

// Source says how an agent got an entry, as numbered in nodeHowLearned.
type Source int

// The values of nodeHowLearned and diagEventHowLearned (the latter never none).
const (
	SourceNone    Source = 0
	SourceDirect  Source = 1
	SourceLearned Source = 2
)

// String returns the MIB's enumeration label of s.
func (s Source) String() string {
	switch s {
	case SourceNone:
		return "none"
	case SourceDirect:
		return "direct"
	case SourceLearned:
		return "learned"
	}
	return fmt.Sprintf("Source(%d)", int(s))
}
