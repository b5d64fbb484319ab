package hiadsd

// Entry is one node's view of one other node: a status and the event counter
// that the direct testers of that node advance on every status change.
type Entry struct {
	Status  Status
	Counter uint32
}

// IDEntry is an Entry labelled with the node id it describes.
type IDEntry struct {
	ID    int
	Entry Entry
}

// Newer reports whether e supersedes old when merging views. The larger
// counter wins; on equal counters the more severe status wins (faulty over
// partial over fault-free over unknown), so two direct testers that disagree
// settle on the worse verdict and the rule is the same at every node.
func (e Entry) Newer(old Entry) bool {
	if e.Counter != old.Counter {
		return e.Counter > old.Counter
	}
	return e.Status.severity() > old.Status.severity()
}

// observe returns the entry a direct tester records after seeing status got,
// given its previous entry. A change from a known status advances the counter;
// the first observation after Unknown keeps it, so a restarted node does not
// announce old news as a new event.
func observe(old Entry, got Status) Entry {
	switch {
	case old.Status == got:
		return old
	case old.Status == Unknown:
		return Entry{Status: got, Counter: old.Counter}
	default:
		return Entry{Status: got, Counter: old.Counter + 1}
	}
}

// catchUp reconciles a direct observation mine with a newer entry about the
// same node heard from a source: the direct verdict stands, with a counter
// above everything known, so the rest of the system adopts it.
func catchUp(mine, heard Entry) Entry {
	if !heard.Newer(mine) {
		return mine
	}
	if heard.Status == mine.Status {
		return heard
	}
	return Entry{Status: mine.Status, Counter: heard.Counter + 1}
}
