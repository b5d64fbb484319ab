package hiadsd

import "errors"

// Sentinel errors; callers test them with errors.Is.
var (
	// ErrBadConfig means a Config failed validation.
	ErrBadConfig = errors.New("invalid diagnosis config")
	// ErrBadStatus means a value is not a known node status.
	ErrBadStatus = errors.New("unknown node status")
	// ErrTestedOnly means a tested-only node was asked to run a testing interval.
	ErrTestedOnly = errors.New("tested-only node does not test")
	// ErrBadAlgorithm means an algorithm name is not one ParseAlgorithm knows.
	ErrBadAlgorithm = errors.New("unknown algorithm")
)
