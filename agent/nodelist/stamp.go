package nodelist

import (
	"cmp"
	"errors"
	"fmt"
	"hash/fnv"
	"net/netip"
	"time"
)

// Stamp names one change of the list: when it was made, as a hybrid
// logical clock reads (Clock), and at which agent. Stamps order the changes
// made to one entry of the list (a node's window, the key in use), so the
// change stamped last wins wherever it is merged; two changes made at once
// at two agents are ordered the same way everywhere. The zero Stamp is the
// configuration file's: what every agent starts from.
type Stamp struct {
	// Time is the clock's reading: milliseconds since 1970 in the upper 48
	// bits, a counter in the lower 16 (Clock).
	Time uint64 `json:"t"`
	// Origin is the agent that made the change (OriginOf its own node).
	Origin uint32 `json:"o"`
}

// IsZero reports whether s is the file's stamp.
func (s Stamp) IsZero() bool { return s == Stamp{} }

// Compare orders stamps: by time, then by origin.
func (s Stamp) Compare(o Stamp) int {
	if c := cmp.Compare(s.Time, o.Time); c != 0 {
		return c
	}
	return cmp.Compare(s.Origin, o.Origin)
}

// Bytes encodes s as diagListStable serves it: time (8) and origin (4),
// network byte order; none for the zero Stamp.
func (s Stamp) Bytes() []byte {
	if s.IsZero() {
		return []byte{}
	}
	return appendStamp(nil, s)
}

// Wall returns the wall-clock time of s, to the millisecond.
func (s Stamp) Wall() time.Time { return time.UnixMilli(int64(s.Time >> 16)) }

// String prints s for a log line: its UTC time and origin.
func (s Stamp) String() string {
	if s.IsZero() {
		return "file"
	}
	return fmt.Sprintf("%s+%d@%08x", s.Wall().UTC().Format("2006-01-02T15:04:05.000Z"), s.Time&0xffff, s.Origin)
}

// OriginOf names the agent of node m in stamps: FNV-1a over its host name
// (or address) and port, never 0. It does not change with the node's id.
func OriginOf(m Member) uint32 {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s|%d", m.ident(), m.Port)
	return max(h.Sum32(), 1)
}

// ident is what names a member in its fingerprint and in the list: its host
// name if it has one, else its address.
func (m Member) ident() string {
	if m.Host != "" {
		return m.Host
	}
	return m.Addr.String()
}

// key names the node a member is, for telling the same node added twice
// from two nodes: its host name or address, and its port.
func (m Member) key() string {
	if m.Host != "" {
		return "h|" + m.Host + "|" + fmt.Sprint(m.Port)
	}
	return "a|" + netip.AddrPortFrom(m.Addr, m.Port).String()
}

// Clock is a hybrid logical clock (Kulkarni et al., 2014): its readings
// follow the wall clock, never repeat, and come after every stamp the agent
// has seen (Observe), so a change made after another was learned is stamped
// after it even when the wall clocks of the two agents disagree.
type Clock struct {
	last uint64
}

// Next returns a new reading, after every earlier one and every one observed.
func (c *Clock) Next(wall time.Time) uint64 {
	pt := uint64(max(wall.UnixMilli(), 0)) << 16
	if pt > c.last {
		c.last = pt
	} else {
		c.last++
	}
	return c.last
}

// Observe moves the clock past a reading seen in a list.
func (c *Clock) Observe(t uint64) { c.last = max(c.last, t) }

// Last returns the newest reading given or observed.
func (c *Clock) Last() uint64 { return c.last }

// Ahead reports whether the clock reads more than MaxSkew ahead of now:
// it stamped, or took, changes while the wall clock ran ahead.
func (c *Clock) Ahead(now time.Time) bool { return ahead(c.last, now) }

// Rewind sets the clock back to reading t: for an agent whose wall clock
// jumped ahead and came back, so that its next readings follow the wall
// clock again (List.Unskew restamps what it stamped meanwhile).
func (c *Clock) Rewind(t uint64) { c.last = t }

// MaxSkew is how far ahead of an agent's own clock a stamp may be: a list
// holding a later one is refused, since no correct agent could have made
// it (its clock would be that far off), and taking it would make every
// later change lose to it.
const MaxSkew = 5 * time.Minute

// ErrAhead is wrapped by Check's error for a list holding a stamp more
// than MaxSkew ahead: a clock is off, at the agent that made the change or
// here. Such a list is read again later (it may be taken once the clocks
// agree), unlike a malformed one.
var ErrAhead = errors.New("a change stamped ahead of this agent's clock")

// ahead reports whether reading t is further ahead of now than MaxSkew.
func ahead(t uint64, now time.Time) bool {
	return int64(t>>16) > now.Add(MaxSkew).UnixMilli()
}

// eachStamp calls f with the stamp of every fact the list holds.
func (l List) eachStamp(f func(Stamp)) {
	f(l.Primary.Set)
	for _, m := range l.Members {
		if m.Hole {
			continue
		}
		f(m.Added)
		if m.Deleted {
			f(m.DeletedAt)
		}
		if m.Window != nil {
			f(m.Window.Set)
		}
	}
	for _, k := range l.KeySlots {
		f(k.Added)
		if k.Deleted {
			f(k.DeletedAt)
		}
	}
}
