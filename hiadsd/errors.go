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
	// ErrNoAnswer means the node asked for entries did not answer.
	ErrNoAnswer = errors.New("node gave no diagnostic information")
	// ErrNoExecutor means Hi-Comp was given a Tester that cannot run tasks.
	ErrNoExecutor = errors.New("tester cannot run comparison tasks")
)
