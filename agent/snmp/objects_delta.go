package snmp

import (
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/mib"
)

// deltaTable serves diagListDeltaTable: its rows exist only for the
// summary a reader names in the instance it asks for (its index), so a
// walk of the MIB passes it by, and a walk that starts at a summary reads
// that summary's chunks in order.
type deltaTable struct{}

var (
	deltaBase = mustOID(mib.DiagListDeltaTable)
	deltaCol  = mustOID(mib.DiagListDeltaChunk)
)

func (deltaTable) base() OID { return deltaBase }

// parse splits o, under the chunk column, into the summary and the chunk
// index that follows it (0 when o stops after the summary); ok is false
// when o names no summary.
func (deltaTable) parse(o OID) (since []byte, chunk uint32, ok bool) {
	if !o.HasPrefix(deltaCol) || len(o) == len(deltaCol) {
		return nil, 0, false
	}
	rest := o[len(deltaCol):]
	n := int(rest[0])
	if n < 12 || n > nodelist.MaxSummary || len(rest)-1 < n {
		return nil, 0, false
	}
	since = make([]byte, n)
	for i := range n {
		if rest[1+i] > 255 {
			return nil, 0, false
		}
		since[i] = byte(rest[1+i])
	}
	if rest = rest[1+n:]; len(rest) > 0 {
		chunk = rest[0]
	}
	return since, chunk, true
}

// chunks returns the chunks the snapshot serves for since, or nil.
func (deltaTable) chunks(v *view, since []byte) [][]byte {
	if v.snap.ListDelta == nil {
		return nil
	}
	c, err := v.snap.ListDelta(since)
	if err != nil {
		return nil
	}
	return c
}

func (d deltaTable) get(v *view, o OID) (value, lookup) {
	since, k, ok := d.parse(o)
	if !ok || k == 0 || len(o) != len(deltaCol)+1+len(since)+1 {
		return value{}, noInstance
	}
	c := d.chunks(v, since)
	if int(k) > len(c) {
		return value{}, noInstance
	}
	return octets(c[k-1]), found
}

func (d deltaTable) next(v *view, o OID) (OID, value, bool) {
	since, k, ok := d.parse(o)
	if !ok {
		return nil, value{}, false
	}
	c := d.chunks(v, since)
	if int(k) >= len(c) {
		return nil, value{}, false
	}
	inst := deltaCol.Child(uint32(len(since)))
	for _, b := range since {
		inst = append(inst, uint32(b))
	}
	return append(inst, k+1), octets(c[k]), true
}
