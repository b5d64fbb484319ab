package hiadsd

// TestResult is one test made during an interval.
type TestResult struct {
	Target int
	Status Status
	// Second is what other vantage points said of a failure this test
	// found, with Config.Vantage; a verdict not Believed was not applied.
	Second Second
}

// FetchResult is one request for another node's entries.
type FetchResult struct {
	From     int
	Ranges   []Range
	Received int   // entries the source returned
	Err      error // non-nil: the source gave nothing
	// Skipped is set when the test of the source brought the digest it was
	// last merged at, for these ids: the fetch would bring nothing new, and
	// was not made.
	Skipped bool
}

// Update is a status change in the tester's view.
type Update struct {
	ID       int   // the node the entry describes
	Old, New Entry // before and after
	From     int   // the source it was learned from, or Direct
}

// Direct is the Update.From of a change the tester saw by testing.
const Direct = -1

// IsDirect reports whether the tester saw the change itself.
func (u Update) IsDirect() bool { return u.From == Direct }

// Report is what one testing interval of one node did.
type Report struct {
	Node    int
	Level   int // Hi-ADSD: the cluster level the interval started with; else 0
	Tests   []TestResult
	Fetches []FetchResult
	// Units counts diagnostic units (one node's entry) transferred: Hi-ADSD and
	// vRing copy the whole requested range (seed 002, section 3.3), vCube only
	// entries newer than the tester's (seed 001, section 7.3), brute force none.
	// The extra entries a restarted node asks for while it catches up are not
	// counted.
	Units int
	// Updates lists the status changes, direct or learned; counter-only
	// refreshes are applied silently.
	Updates []Update
	// Moved lists the nodes whose entry took a newer counter with the
	// status fault-free before and after: a tester elsewhere saw the node
	// fail and come back while this node held it fault-free (a healed cut,
	// cause.go).
	Moved []int
	// Station lists the changes of the station learned from sources, in order.
	Station []StationChange
	// Lists lists the sources found running another node list, in order:
	// the caller may read that list and hand it, or a list merged from it,
	// to Node.SetList before the next interval.
	Lists []ListSeen
	// Pushes lists the messages to send now, with Config.Push: after an
	// interval, the direct verdicts down this node's tree; after Receive,
	// what it passes on. Safe to lose (pull still carries every event).
	Pushes []Push
	// Isolated counts the intervals in a row, this one included, in which
	// no test was answered (Config.Isolation, isolation.go); 0 otherwise.
	Isolated int
	// Held lists the status changes this interval's tests would have made,
	// held back because the node suspects itself cut off: the view does not
	// hold them and nothing was pushed.
	Held []Update
	// Refused lists the entries learned from other nodes (fetched, or
	// pushed to Receive) that were newer than the one held but not taken,
	// as changes not made (Old is the entry held, New the one refused, From
	// the sender): their counter led the one held by more than a correct
	// node's could (Entry.takes, MaxLead and MaxRebase). A forged or
	// corrupt message. StationRefused counts the same of the station.
	Refused        []Update
	StationRefused int
	// Wasted counts the answers the interval was given but did not use: ops
	// foreseen on an expectation that a real answer then overturned (Hi-ADSD
	// tests a node held faulty and the next one at once; when the first is
	// found fault-free, it is the source and the second test goes unused).
	Wasted int
	// Doubt is the node's own health after the interval (vantage.go):
	// whether it doubts its tests, and the evidence.
	Doubt Doubt
}
