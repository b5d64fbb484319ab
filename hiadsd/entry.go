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

// Counters are 32 bits and compare as RFC 1982 serial numbers: a is after
// b when it leads b by less than 2^31, so the counter that wraps from
// 2^32-1 to 0 is still the newer one. A counter learned from another node
// is also bounded (takes): a correct node is never far ahead, since a
// node's counter moves once for each status change its testers see.
const (
	// MaxLead is how far a learned counter may lead the one held when it
	// brings another status.
	MaxLead = 1 << 16
	// MaxRebase is how far it may lead when it keeps the status held,
	// moving the counter only; it is larger than MaxLead, so the counter a
	// tester gives its correction of a refused or bounded verdict is
	// taken everywhere (see docs/security.md).
	MaxRebase = 1 << 30
)

// serialAfter reports whether counter a comes after b (RFC 1982, 32 bits).
func serialAfter(a, b uint32) bool {
	d := a - b
	return d != 0 && d < 1<<31
}

// Newer reports whether e supersedes old when merging views. The later
// counter wins (serialAfter); on equal counters the more severe status wins
// (degraded over faulty over partial over fault-free over unknown, see
// severity), so two direct testers that disagree settle on one verdict and
// the rule is the same at every node.
func (e Entry) Newer(old Entry) bool {
	if e.Counter != old.Counter {
		return serialAfter(e.Counter, old.Counter)
	}
	return e.Status.severity() > old.Status.severity()
}

// takes sorts an entry e learned from another node against the entry old
// held: take when e is newer and within the bound (MaxLead for another
// status, MaxRebase for the same one), refuse when it is newer but out of
// bounds, neither when it is not newer. A refused entry is not taken and
// not passed on; a correct peer cannot have sent it.
func (e Entry) takes(old Entry) (take, refuse bool) {
	if !e.Newer(old) {
		return false, false
	}
	bound := uint32(MaxLead)
	if e.Status == old.Status {
		bound = MaxRebase
	}
	if e.Counter-old.Counter > bound {
		return false, true
	}
	return true, false
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
// above everything known, so the rest of the system adopts it. A heard
// counter more than MaxRebase ahead is refused (refused is set) and mine
// stands as it is. The correction is made for any lead up to MaxRebase,
// not only MaxLead: a node whose counter is a little ahead of this one's
// may have taken a bounded verdict this node would refuse, and only the
// correction brings it back.
func catchUp(mine, heard Entry) (e Entry, refused bool) {
	if !heard.Newer(mine) {
		return mine, false
	}
	if heard.Counter-mine.Counter > MaxRebase {
		return mine, true
	}
	if heard.Status == mine.Status {
		return heard, false
	}
	return Entry{Status: mine.Status, Counter: heard.Counter + 1}, false
}
