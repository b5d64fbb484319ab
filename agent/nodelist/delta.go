package nodelist

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"time"
)

// Changes travel as changes (docs/membership.md, "How a change spreads"):
// an agent that reads a peer's list says what it holds (Summary), and the
// peer serves only the facts it lacks (Delta), so a change costs about
// its own size to spread, and only an agent that holds nothing yet, or
// one the peer collected past, reads the whole list.
//
// What an agent holds of each agent's changes is a prefix of them: a list
// that holds a change made at one agent holds every change made there
// before it, or what replaced it (merges take whole lists, and a delta
// brings every later change of each agent), and a collected list holds
// every change stamped by its Stable or what collection left of them. So
// a summary is the stamp the list was collected at and, for each agent
// with a change after it, the newest change held from it.
//
// The summary is an OCTET STRING index of diagListDeltaTable:
//
//	stable (12), then per agent: origin (4), time (8)
//
// and the delta its rows serve, in chunks:
//
//	format (1) = 3, base (4), base fingerprint (8), span (2), entries
//	(2) and keys (1) as Marshal encodes them, the key in use (1 + 28 when
//	it changed), then the first 8 octets of SHA-256 over all before
//
// A peer that collected past the summary's stamp serves its whole list
// (format 1 or 2) instead; so a delta's list was collected at a stamp
// the reader's was collected at or after, and carries no collection.

// wireDelta is a delta's format octet.
const wireDelta = 3

// MaxSummary bounds a summary's length: an OID index of its octets stays
// well within the 128 sub-identifiers an OID may have. A list with changes
// from more agents since its last collection is read whole.
const MaxSummary = 12 + 7*12

// Summary returns what the list holds, as a peer's Delta takes it, or nil
// when it cannot say it in MaxSummary octets (changes from more than 7
// agents since it was last collected) or holds no stamped fact: the peer's
// list is then read whole.
func (l List) Summary() []byte {
	if l.Changes() == 0 {
		return nil
	}
	newest := l.newestBy()
	if 12+12*len(newest) > MaxSummary {
		return nil
	}
	b := appendStamp(nil, l.Stable)
	for _, o := range slices.Sorted(maps.Keys(newest)) {
		b = binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint32(b, o), newest[o])
	}
	return b
}

// newestBy returns, per agent, the newest time of its changes the list
// holds, for those after the list's Stable.
func (l List) newestBy() map[uint32]uint64 {
	out := map[uint32]uint64{}
	keep := func(s Stamp) {
		if !s.IsZero() && s.Compare(l.Stable) > 0 {
			out[s.Origin] = max(out[s.Origin], s.Time)
		}
	}
	l.eachStamp(keep)
	return out
}

// summary is a decoded Summary.
type summary struct {
	stable Stamp
	newest map[uint32]uint64
}

// lacks reports whether a list of summary s lacks the fact stamped t.
func (s summary) lacks(t Stamp) bool {
	if t.IsZero() {
		return false
	}
	if n, ok := s.newest[t.Origin]; ok {
		return t.Time > n
	}
	return t.Compare(s.stable) > 0
}

func parseSummary(b []byte) (summary, error) {
	if len(b) < 12 || len(b) > MaxSummary || (len(b)-12)%12 != 0 {
		return summary{}, fmt.Errorf("%w: a summary of %d octets", ErrWire, len(b))
	}
	r := &reader{b: b}
	s := summary{stable: r.stamp(), newest: map[uint32]uint64{}}
	for len(r.b) > 0 {
		o, t := r.u32(), r.u64()
		if _, twice := s.newest[o]; twice {
			return summary{}, fmt.Errorf("%w: agent %08x twice in a summary", ErrWire, o)
		}
		s.newest[o] = t
	}
	return s, nil
}

// Delta returns what a list of the given summary lacks of l: its changes
// that the summary does not cover, or l's whole encoding (Marshal) when l
// was collected past the summary's stamp. A malformed summary is an
// error.
func (l List) Delta(sum []byte) ([]byte, error) {
	s, err := parseSummary(sum)
	if err != nil {
		return nil, err
	}
	if l.Stable.Compare(s.stable) > 0 {
		return l.Marshal(), nil
	}
	b := []byte{wireDelta}
	b = binary.BigEndian.AppendUint32(b, l.Base)
	b = append(b, l.base[:]...)
	b = binary.BigEndian.AppendUint16(b, uint16(l.Span))
	var slots []Member
	for _, m := range l.Members {
		if m.Hole {
			continue
		}
		if s.lacks(m.Added) || (m.Deleted && s.lacks(m.DeletedAt)) || (m.Window != nil && s.lacks(m.Window.Set)) {
			slots = append(slots, m)
		}
	}
	var keys []KeySlot
	for _, k := range l.KeySlots {
		if s.lacks(k.Added) || (k.Deleted && s.lacks(k.DeletedAt)) {
			keys = append(keys, k)
		}
	}
	b = appendFacts(b, slots, keys)
	if s.lacks(l.Primary.Set) {
		b = binary.BigEndian.AppendUint32(append(b, 1), l.Primary.Index)
		b = appendStamp(appendStamp(b, l.Primary.Set), l.Primary.Prev)
	} else {
		b = append(b, 0)
	}
	sum2 := sha256.Sum256(b)
	return append(b, sum2[:8]...), nil
}

// IsDelta reports whether b, as Delta returned it, is a delta rather than
// a whole list.
func IsDelta(b []byte) bool { return len(b) > 0 && b[0] == wireDelta }

// ApplyDelta merges into l the delta b a peer served for l's Summary,
// checked at now as Check checks a list: the result holds every fact of
// the peer's list, since what l holds of each agent's changes is a prefix
// of them (above). A whole list (IsDelta false) is Unmarshal's to decode.
// A delta of another base is ErrOtherBase; one cut, or mixed from two
// lists (its checksum), is an error, and the whole list is read instead.
func (l List) ApplyDelta(b []byte, now time.Time) (List, error) {
	if !IsDelta(b) {
		return l, fmt.Errorf("%w: not a delta", ErrWire)
	}
	if len(b) < 9 {
		return l, fmt.Errorf("%w: a delta of %d octets", ErrWire, len(b))
	}
	body, sum := b[:len(b)-8], b[len(b)-8:]
	if want := sha256.Sum256(body); !bytes.Equal(want[:8], sum) {
		return l, fmt.Errorf("%w: the delta's checksum does not match (read while the list changed)", ErrWire)
	}
	r := &reader{b: body[1:]}
	var baseHash [8]byte
	base := r.u32()
	copy(baseHash[:], r.take(8))
	d := List{Base: base}
	span := int(r.u16())
	var err error
	if d.Members, d.KeySlots, err = readFacts(r, true); err != nil {
		return l, err
	}
	switch r.u8() {
	case 0:
	case 1:
		d.Primary = Primary{Index: r.u32(), Set: r.stamp(), Prev: r.stamp()}
	default:
		return l, fmt.Errorf("%w: bad key-in-use flag", ErrWire)
	}
	switch {
	case r.err != nil:
		return l, r.err
	case len(r.b) > 0:
		return l, fmt.Errorf("%w: %d octets left over", ErrWire, len(r.b))
	case base != l.Base || baseHash != l.base:
		return l, ErrOtherBase
	case len(d.Members) > MaxEntries || span > MaxEntries:
		return l, fmt.Errorf("%w: %d entries, %d ids", ErrBadList, len(d.Members), span)
	}
	if err := d.shapeOf(true); err != nil {
		return l, err
	}
	if err := d.Check(now); err != nil {
		return l, err
	}
	out := List{Base: l.Base, Primary: l.Primary, Stable: l.Stable, Collected: l.Collected, Span: max(l.Span, span)}
	if err := out.mergeAll(l, d); err != nil { // d's Stable is zero: what it lacks it did not collect
		return l, err
	}
	return out, nil
}
