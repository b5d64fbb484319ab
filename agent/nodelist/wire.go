package nodelist

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/diagagent/diagagent/mib"
)

// The list travels between agents as one octet string (diagListTable, in
// chunks): every fact with its stamp, so the agent that reads it can merge
// it fact by fact. Numbers are big-endian:
//
//	format (1) = 1, version (4), fingerprint (8), base (4)
//	entries (2), then each: flags (1), want (2), added (12), port (2),
//	  address (4, or 16 with flagIPv6), then as the flags say: host name
//	  (1 + n), labels (three of 1 + n), removed at (12), window: until
//	  (8, Unix seconds), status (1, as nodeStatus), set (12), prev (12)
//	keys (1), then each: index (4), added (12), removed (1), removed at (12)
//	  when removed; then, with any key, the primary: index (4), set (12), prev (12)
//
// A stamp is its time (8) and origin (4). A list that was collected
// (Collect) is format 2, which agents of 1.0 do not read: after the base,
// the stamp it was collected at (12), the facts collected (4) and its
// span of ids (2); an entry pinned to its id carries flagAt and, last,
// the id (2).

// The encoding's format octets: a list never collected is encoded as 1.0
// encodes it, so agents of both releases read each other's.
const (
	wireFormat          = 1
	wireFormatCollected = 2
)

// An entry's flags.
const (
	flagTested = 1 << iota
	flagDeleted
	flagWindow
	flagHost
	flagLabels
	flagIPv6
	flagAt
)

// MaxEntries bounds the entries a list may hold: node ids are 16 bits.
const MaxEntries = mib.MaxNodeID

// maxKeySlots bounds the key installations a list may hold.
const maxKeySlots = 255

// ErrWire is wrapped by every error Unmarshal returns.
var ErrWire = errors.New("node list: bad encoding")

// Marshal encodes the list's facts (see above).
func (l List) Marshal() []byte {
	format := byte(wireFormat)
	if l.collectedAny() {
		format = wireFormatCollected
	}
	b := []byte{format}
	b = binary.BigEndian.AppendUint32(b, l.Version)
	b = append(b, l.Hash[:]...)
	b = binary.BigEndian.AppendUint32(b, l.Base)
	if format == wireFormatCollected {
		b = appendStamp(b, l.Stable)
		b = binary.BigEndian.AppendUint32(b, l.Collected)
		b = binary.BigEndian.AppendUint16(b, uint16(l.Span))
	}
	var slots []Member
	for _, m := range l.Members {
		if !m.Hole {
			slots = append(slots, m)
		}
	}
	b = appendFacts(b, slots, l.KeySlots)
	if len(l.KeySlots) > 0 {
		b = binary.BigEndian.AppendUint32(b, l.Primary.Index)
		b = appendStamp(appendStamp(b, l.Primary.Set), l.Primary.Prev)
	}
	return b
}

// appendFacts appends entries (a count of 2 octets, then each) and key
// installations (a count of 1 octet, then each), as readFacts takes them.
func appendFacts(b []byte, slots []Member, keys []KeySlot) []byte {
	b = binary.BigEndian.AppendUint16(b, uint16(len(slots)))
	for _, m := range slots {
		b = appendSlot(b, m)
	}
	b = append(b, byte(len(keys)))
	for _, k := range keys {
		b = binary.BigEndian.AppendUint32(b, k.Index)
		b = appendStamp(b, k.Added)
		if k.Deleted {
			b = appendStamp(append(b, 1), k.DeletedAt)
		} else {
			b = append(b, 0)
		}
	}
	return b
}

// EncodedSize returns how many octets the entry takes in an encoded list:
// what its add costs to carry.
func (m Member) EncodedSize() int { return len(appendSlot(nil, m)) }

func appendSlot(b []byte, m Member) []byte {
	flags := byte(0)
	addr := m.Addr.Unmap()
	if !addr.IsValid() {
		addr = netip.IPv4Unspecified()
	}
	for _, f := range []struct {
		on   bool
		flag byte
	}{{m.TestedOnly, flagTested}, {m.Deleted, flagDeleted}, {m.Window != nil, flagWindow}, {m.Host != "", flagHost},
		{m.Labels != (Labels{}), flagLabels}, {addr.Is6(), flagIPv6}, {m.At > 0, flagAt}} {
		if f.on {
			flags |= f.flag
		}
	}
	b = append(b, flags)
	b = binary.BigEndian.AppendUint16(b, uint16(m.Want))
	b = appendStamp(b, m.Added)
	b = binary.BigEndian.AppendUint16(b, m.Port)
	b = append(b, addr.AsSlice()...)
	if m.Host != "" {
		b = appendString(b, m.Host)
	}
	if m.Labels != (Labels{}) {
		b = appendString(appendString(appendString(b, m.Labels.Name), m.Labels.Community), m.Labels.OID)
	}
	if m.Deleted {
		b = appendStamp(b, m.DeletedAt)
	}
	if w := m.Window; w != nil {
		b = binary.BigEndian.AppendUint64(b, uint64(w.Until.Unix()))
		b = append(b, byte(mib.DiagStatus(w.Status)))
		b = appendStamp(appendStamp(b, w.Set), w.Prev)
	}
	if m.At > 0 {
		b = binary.BigEndian.AppendUint16(b, uint16(m.At-1))
	}
	return b
}

func appendStamp(b []byte, s Stamp) []byte {
	return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(b, s.Time), s.Origin)
}

// appendString appends s with its length, cut to 255 octets.
func appendString(b []byte, s string) []byte {
	if len(s) > 255 {
		s = s[:255]
	}
	return append(append(b, byte(len(s))), s...)
}

// reader takes fields off an encoded list; the first short read sticks.
type reader struct {
	b   []byte
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil || len(r.b) < n {
		r.err = fmt.Errorf("%w: cut short", ErrWire)
		return make([]byte, n)
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) u8() byte     { return r.take(1)[0] }
func (r *reader) u16() uint16  { return binary.BigEndian.Uint16(r.take(2)) }
func (r *reader) u32() uint32  { return binary.BigEndian.Uint32(r.take(4)) }
func (r *reader) u64() uint64  { return binary.BigEndian.Uint64(r.take(8)) }
func (r *reader) str() string  { return string(r.take(int(r.u8()))) }
func (r *reader) stamp() Stamp { return Stamp{Time: r.u64(), Origin: r.u32()} }

// Unmarshal decodes a list Marshal encoded and seals it; a list whose
// facts do not give the version and fingerprint it was sent with (read
// while it changed, or forged) is refused. The result shares nothing with b.
func Unmarshal(b []byte) (List, error) {
	r := &reader{b: b}
	format := r.u8()
	if r.err == nil && format != wireFormat && format != wireFormatCollected {
		return List{}, fmt.Errorf("%w: format %d", ErrWire, format)
	}
	var want List
	want.Version = r.u32()
	copy(want.Hash[:], r.take(8))
	l := List{Base: r.u32()}
	if format == wireFormatCollected {
		l.Stable, l.Collected, l.Span = r.stamp(), r.u32(), int(r.u16())
	}
	var err error
	if l.Members, l.KeySlots, err = readFacts(r, format == wireFormatCollected); err != nil {
		return List{}, err
	}
	if len(l.KeySlots) > 0 {
		l.Primary = Primary{Index: r.u32(), Set: r.stamp(), Prev: r.stamp()}
	}
	switch {
	case r.err != nil:
		return List{}, r.err
	case len(r.b) > 0:
		return List{}, fmt.Errorf("%w: %d octets left over", ErrWire, len(r.b))
	}
	if err := l.shape(); err != nil {
		return List{}, err
	}
	l.Seal()
	if l.Version != want.Version || l.Hash != want.Hash {
		return List{}, fmt.Errorf("%w: its facts give version %d, fingerprint %x; it was sent as %d, %x", ErrBadList, l.Version, l.Hash, want.Version, want.Hash)
	}
	return l, nil
}

// readFacts takes the entries (a count of 2 octets, then each) and the
// key installations (a count of 1 octet, then each) off r; collected
// allows pinned entries (format 2 and deltas).
func readFacts(r *reader, collected bool) ([]Member, []KeySlot, error) {
	var ms []Member
	var ks []KeySlot
	for range int(r.u16()) {
		if r.err != nil {
			break
		}
		m, err := readSlot(r, collected)
		if err != nil {
			return nil, nil, err
		}
		ms = append(ms, m)
	}
	for range int(r.u8()) {
		k := KeySlot{Index: r.u32(), Added: r.stamp()}
		switch r.u8() {
		case 0:
		case 1:
			k.Deleted, k.DeletedAt = true, r.stamp()
		default:
			return nil, nil, fmt.Errorf("%w: key %08x: bad removal flag", ErrWire, k.Index)
		}
		ks = append(ks, k)
	}
	return ms, ks, nil
}

func readSlot(r *reader, collected bool) (Member, error) {
	flags := r.u8()
	m := Member{Want: int(r.u16()), Added: r.stamp(), Port: r.u16(), TestedOnly: flags&flagTested != 0}
	size := 4
	if flags&flagIPv6 != 0 {
		size = 16
	}
	m.Addr, _ = netip.AddrFromSlice(r.take(size))
	if m.Addr.IsUnspecified() {
		m.Addr = netip.Addr{}
	}
	if flags&flagHost != 0 {
		m.Host = r.str()
	}
	if flags&flagLabels != 0 {
		m.Labels = Labels{Name: r.str(), Community: r.str(), OID: r.str()}
	}
	if flags&flagDeleted != 0 {
		m.Deleted, m.DeletedAt = true, r.stamp()
	}
	if flags&flagWindow != 0 {
		until := int64(r.u64())
		st, err := mib.StatusOf(int(r.u8()))
		if err != nil && r.err == nil {
			return m, fmt.Errorf("%w: entry %d: window status: %w", ErrWire, m.Want+1, err)
		}
		m.Window = &Window{Until: time.Unix(until, 0).UTC(), Status: st, Set: r.stamp(), Prev: r.stamp()}
	}
	last := byte(flagIPv6)
	if collected {
		last = flagAt
	}
	if flags >= last<<1 && r.err == nil {
		return m, fmt.Errorf("%w: entry %d: flags %#x", ErrWire, m.Want+1, flags)
	}
	if flags&flagAt != 0 {
		m.At = int(r.u16()) + 1
	}
	return m, nil
}

// shape checks what a decoded list's facts may be before it is settled:
// each entry a node (an address, or a host name, and a port), ids and
// counts within bounds, no entry twice. Settling may then allocate no more
// than twice the entries' ids.
func (l List) shape() error { return l.shapeOf(false) }

// shapeOf is shape, for a delta's entries too: a few entries of a long
// list, whose ids the entries' count does not bound.
func (l List) shapeOf(delta bool) error {
	if len(l.Members) > MaxEntries || len(l.KeySlots) > maxKeySlots || l.Span > MaxEntries {
		return fmt.Errorf("%w: %d entries, %d key slots, %d ids", ErrBadList, len(l.Members), len(l.KeySlots), l.Span)
	}
	ids := max(l.Span, len(l.Members))
	wants := 2 * len(l.Members)
	if delta {
		ids, wants = MaxEntries, MaxEntries
	}
	seen := map[slotID]bool{}
	pinned := map[int]bool{}
	for _, m := range l.Members {
		switch {
		case m.At > 0 && (m.At > ids || pinned[m.At] || m.Added.IsZero()):
			return fmt.Errorf("%w: entry %d pinned to id %d among %d ids, or twice", ErrBadList, m.Want+1, m.At, ids)
		case m.Want < 0 || (m.At == 0 && m.Want > wants) || m.Want > MaxEntries:
			return fmt.Errorf("%w: entry added at id %d among %d entries", ErrBadList, m.Want+1, len(l.Members))
		case !m.Deleted && (m.Port == 0 || (m.Host == "" && !m.Addr.IsValid())):
			return fmt.Errorf("%w: entry %d has no address", ErrBadList, m.Want+1)
		case m.Added.IsZero() && m.Labels != (Labels{}):
			return fmt.Errorf("%w: entry %d of the file carries labels", ErrBadList, m.Want+1)
		case seen[m.slot()]:
			return fmt.Errorf("%w: entry %d stamped %s twice", ErrBadList, m.Want+1, m.Added)
		}
		seen[m.slot()], pinned[m.At] = true, m.At > 0
	}
	return nil
}

// Check refuses a list learned from a peer that holds what no correct
// agent could have made at now: a stamp further ahead of this agent's
// clock than MaxSkew, a removal or window stamped before its entry was
// added, or a window ending more than MaxWindow (and a day of clock skew)
// away.
func (l List) Check(now time.Time) error {
	check := func(what string, s Stamp, after Stamp) error {
		switch {
		case ahead(s.Time, now):
			return fmt.Errorf("%w: %w: %s stamped %s, more than %v ahead of this agent's clock", ErrBadList, ErrAhead, what, s, MaxSkew)
		case !s.IsZero() && s.Compare(after) <= 0:
			return fmt.Errorf("%w: %s stamped %s, not after %s", ErrBadList, what, s, after)
		}
		return nil
	}
	var errs []error
	for _, m := range l.Members {
		if m.Hole {
			continue
		}
		what := fmt.Sprintf("entry %d", m.Want+1)
		errs = append(errs, check(what, m.Added, Stamp{}))
		if m.Deleted {
			errs = append(errs, check(what+"'s removal", m.DeletedAt, m.Added))
		}
		if w := m.Window; w != nil {
			errs = append(errs, check(what+"'s window", w.Set, m.Added), check(what+"'s window", w.Set, w.Prev))
			if w.Until.Sub(now) > MaxWindow+24*time.Hour {
				errs = append(errs, fmt.Errorf("%w: %s's maintenance window ends at %s", ErrBadList, what, w.Until.Format(time.RFC3339)))
			}
		}
	}
	for _, k := range l.KeySlots {
		errs = append(errs, check(fmt.Sprintf("key %08x", k.Index), k.Added, Stamp{}))
		if k.Deleted {
			errs = append(errs, check(fmt.Sprintf("key %08x's removal", k.Index), k.DeletedAt, k.Added))
		}
	}
	errs = append(errs, check("the key in use", l.Primary.Set, l.Primary.Prev), check("the collection", l.Stable, Stamp{}))
	return errors.Join(errs...)
}

// MaxStamp returns the latest clock reading among the list's facts.
func (l List) MaxStamp() uint64 { return l.MaxStampWithin(time.Time{}) }

// MaxStampWithin returns the latest clock reading among the list's facts
// that is not more than MaxSkew ahead of now; the zero now takes them all.
func (l List) MaxStampWithin(now time.Time) uint64 {
	var t uint64
	keep := func(s Stamp) {
		if now.IsZero() || !ahead(s.Time, now) {
			t = max(t, s.Time)
		}
	}
	keep(l.Stable)
	l.eachStamp(keep)
	return t
}
