package mib

import "fmt"

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
