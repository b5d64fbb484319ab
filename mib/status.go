package mib

import (
	"fmt"

	"github.com/diagagent/diagagent/hiadsd"
)

// Status is a node's diagnosed state as numbered in the MIB's DiagStatus.
type Status int

// The values of DiagStatus; the first three are the paper's.
const (
	StatusFaultFree Status = 0
	StatusFaulty    Status = 1
	StatusPartial   Status = 2
	StatusUnknown   Status = 3
)

// String returns the MIB's enumeration label of s.
func (s Status) String() string {
	switch s {
	case StatusFaultFree:
		return "faultFree"
	case StatusFaulty:
		return "faulty"
	case StatusPartial:
		return "partial"
	case StatusUnknown:
		return "unknown"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Name is the word logs, the JSON API, the page and the metrics use for s
// ("fault-free", "faulty", "partial", "unknown"): the core's name of the
// status, so there is one spelling of each. A value outside DiagStatus is
// "unknown".
func (s Status) Name() string {
	st, err := hiadsd.StatusFromMIB(int(s))
	if err != nil {
		return hiadsd.Unknown.String()
	}
	return st.String()
}

// Core returns the core's status for s; a value outside DiagStatus is Unknown.
func (s Status) Core() hiadsd.Status {
	st, err := hiadsd.StatusFromMIB(int(s))
	if err != nil {
		return hiadsd.Unknown
	}
	return st
}

// FromCore returns the MIB's value of the core's status st.
func FromCore(st hiadsd.Status) Status { return Status(st.MIB()) }

// Valid reports whether s is one of the enumerated values.
func (s Status) Valid() bool {
	return s >= StatusFaultFree && s <= StatusUnknown
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
