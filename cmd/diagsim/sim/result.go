package sim

// Result is what one run reports; cmd/diagsim prints it as JSON.
type Result struct {
	Algo  string `json:"algo"`
	N     int    `json:"n"`
	Start string `json:"start"`
	Seed  uint64 `json:"seed"`
	// Events holds one entry per scheduled event, in schedule order.
	Events []EventResult `json:"events"`
	// TestsPerRound and UnitsPerRound average tests and diagnostic units over
	// the testing rounds completed in the run.
	TestsPerRound float64 `json:"tests_per_round"`
	UnitsPerRound float64 `json:"units_per_round"`
	// Rounds is the number of testing rounds completed; EndTime the simulated time.
	Rounds  int     `json:"rounds"`
	EndTime float64 `json:"end_time"`
	// Pushes counts the push messages sent in the run (Options.Push), a
	// message sent again to an alternate included.
	Pushes int `json:"pushes,omitempty"`
	// Notifications counts what the station would get (Options.Group).
	Notifications *Notifications `json:"notifications,omitempty"`
}

// Notifications counts the status notifications of a run under the owner
// rule: one per node change (PerNode), and one per cause once grouped
// (PerCause: a group's loss, a group's return, a node alone).
type Notifications struct {
	PerNode  int `json:"per_node"`
	PerCause int `json:"per_cause"`
}

// EventResult is how one event spread.
type EventResult struct {
	Kind string  `json:"kind"`
	Node int     `json:"node"`
	Time float64 `json:"time"`
	// DiagnosedAfter lists [k, nodes]: how many fault-free testing nodes (other
	// than the event's node) held the new status after k of their own intervals.
	DiagnosedAfter [][2]int `json:"diagnosed_after"`
	// LatencyRounds is the testing round, counted from the event, in which the
	// last of them got it; 0 if the run ended first.
	LatencyRounds int `json:"latency_rounds"`
	// LatencyTime is the time from the event to the last of them; Hops the
	// most push hops by which one learned it, ByPush how many did (with
	// Options.Push). Zero if the run ended first.
	LatencyTime float64 `json:"latency_time,omitempty"`
	Hops        int     `json:"hops,omitempty"`
	ByPush      int     `json:"by_push,omitempty"`
	// MaxTests is the largest k: the intervals the slowest node needed.
	MaxTests int `json:"max_tests"`
	// Complete is false if the run ended, or the node changed again, before
	// every fault-free node diagnosed the event.
	Complete bool `json:"complete"`
	// Subject is the node a join added, or a leave removed; BoundRounds is
	// then hiadsd.MembershipBound, the rounds the change may take.
	Subject     *int `json:"subject,omitempty"`
	BoundRounds int  `json:"bound_rounds,omitempty"`
}
