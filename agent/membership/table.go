package membership

import (
	"slices"
	"sync"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/nodelist"
)

// table is diagListTable and diagListDeltaTable of one list, encoded
// once per list.
type table struct {
	chunks [][]byte                       // diagListTable's rows
	of     [8]byte                        // the fingerprint of the list chunks encodes
	deltas func([]byte) ([][]byte, error) // diagListDeltaTable (deltaServer)
	secret bool                           // the list holds a device's community
}

// Table returns diagListTable's rows for the list run, encoded once per
// list, whether they hold a device's community, which the table then
// serves to agents and writers alone, and diagListDeltaTable for it.
func (m *Membership) Table() ([][]byte, bool, func([]byte) ([][]byte, error)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, l := &m.table, m.running
	if t.chunks == nil || t.of != l.Hash {
		t.chunks, t.of = board.Chunks(l.Marshal()), l.Hash
		t.secret = slices.ContainsFunc(l.Members, func(n nodelist.Member) bool { return n.Labels.Community != "" })
		t.deltas = deltaServer(l)
	}
	return t.chunks, t.secret, t.deltas
}

// deltaServer serves diagListDeltaTable for list l: the chunks of what a
// reader of each summary lacks (nodelist.List.Delta), encoded once per
// summary, as readers of one change mostly hold the same list.
func deltaServer(l nodelist.List) func(since []byte) ([][]byte, error) {
	var mu sync.Mutex
	cache := map[string][][]byte{}
	return func(since []byte) ([][]byte, error) {
		mu.Lock()
		defer mu.Unlock()
		if c, ok := cache[string(since)]; ok {
			return c, nil
		}
		b, err := l.Delta(since)
		if err != nil {
			return nil, err
		}
		if len(cache) >= maxDeltas {
			clear(cache)
		}
		c := board.Chunks(b)
		cache[string(since)] = c
		return c, nil
	}
}

// maxDeltas bounds the deltas one list keeps encoded.
const maxDeltas = 16
