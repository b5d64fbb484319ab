package agentx

import (
	"slices"
	"sync"
)

// fakeMIB is a Handler over a few objects under 1.3.6.1.4.1.200, one of
// them (.1.3.0, an IpAddress) writable.
type fakeMIB struct {
	mu      sync.Mutex
	objs    map[string]VarBind
	pending map[uint32][]VarBind
	sets    int
	silent  bool
}

func newFakeMIB() *fakeMIB {
	m := &fakeMIB{objs: map[string]VarBind{}, pending: map[uint32][]VarBind{}}
	for _, vb := range []VarBind{
		{Type: Integer, Name: append(diag, 1, 1, 1, 3, 1), Num: 0},
		{Type: Integer, Name: append(diag, 1, 1, 1, 3, 2), Num: 2},
		{Type: Integer, Name: append(diag, 1, 1, 1, 3, 3), Num: 1},
		{Type: IPAddress, Name: append(diag, 1, 3, 0), Num: 0x7f000009},
		{Type: OctetString, Name: append(diag, 1, 4, 0), Bytes: []byte("1")},
		{Type: Counter64, Name: append(diag, 1, 9, 0), Num: 1 << 40},
	} {
		m.objs[vb.Name.String()] = vb
	}
	return m
}

func (m *fakeMIB) sorted() []VarBind {
	var out []VarBind
	for _, vb := range m.objs {
		out = append(out, vb)
	}
	slices.SortFunc(out, func(a, b VarBind) int { return a.Name.Compare(b.Name) })
	return out
}

func (m *fakeMIB) Silenced() bool { m.mu.Lock(); defer m.mu.Unlock(); return m.silent }

func (m *fakeMIB) Get(name OID) VarBind {
	m.mu.Lock()
	defer m.mu.Unlock()
	if vb, ok := m.objs[name.String()]; ok {
		return vb
	}
	return VarBind{Type: NoSuchObject, Name: name}
}

func (m *fakeMIB) Next(r SearchRange) VarBind {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, vb := range m.sorted() {
		c := vb.Name.Compare(r.Start)
		if (c > 0 || (c == 0 && r.Include)) && (len(r.End) == 0 || vb.Name.Compare(r.End) < 0) {
			return vb
		}
	}
	return VarBind{Type: EndOfMibView, Name: r.Start}
}

func (m *fakeMIB) TestSet(tid uint32, vbs []VarBind) (Error, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, vb := range vbs {
		if vb.Name.String() != append(diag, 1, 3, 0).String() {
			return NotWritable, i + 1
		}
		if vb.Type != IPAddress {
			return WrongType, i + 1
		}
	}
	m.pending[tid] = vbs
	return NoError, 0
}

func (m *fakeMIB) CommitSet(tid uint32) (Error, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, vb := range m.pending[tid] {
		m.objs[vb.Name.String()] = vb
	}
	m.sets++
	return NoError, 0
}

func (m *fakeMIB) UndoSet(uint32) (Error, int) { return NoError, 0 }

func (m *fakeMIB) CleanupSet(tid uint32) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.pending, tid)
}
