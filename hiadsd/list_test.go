package hiadsd

import (
	"errors"
	"testing"
)

// TestRenumber: a list in which an id names another node than it did (two
// nodes added at once under one id; the one stamped later moved) makes the
// node forget what it knew of that id, even one that was removed, and
// catch up; a node whose own id moved runs as its new id; a list without
// the node is ErrRemoved, changing nothing.
func TestRenumber(t *testing.T) {
	cfg := &Config{Algorithm: VCube, N: 6, Removed: []int{5}}
	n := newTestNode(t, cfg, 4)
	n.View.Set(3, Entry{Status: Faulty, Counter: 7})
	n.View.Set(5, Entry{Status: Faulty, Counter: 2})
	n.CatchUp = 0
	next := &Config{Algorithm: VCube, N: 8}
	if err := n.SetList(next, ListVersion{Counter: 1, Hash: 9}); !errors.Is(err, ErrBadConfig) {
		t.Fatalf("SetList bringing back removed id 5: %v, want ErrBadConfig", err)
	}
	if err := n.Renumber(next, ListVersion{Counter: 1, Hash: 9}, []int{3, 4, 5}, 6); err != nil {
		t.Fatal(err)
	}
	for _, id := range []int{3, 4, 5} {
		if e := n.View.Get(id); e != (Entry{}) && id != 6 {
			t.Errorf("id %d kept %+v after it named another node", id, e)
		}
	}
	if n.ID != 6 || n.View.Get(6).Status != FaultFree || n.View.Len() != 8 || n.CatchUp == 0 || n.List.Counter != 1 {
		t.Errorf("after the move: id %d, self %v, %d ids, catching up %d", n.ID, n.View.Get(6), n.View.Len(), n.CatchUp)
	}
	if err := n.Renumber(&Config{Algorithm: VCube, N: 8, Removed: []int{6}}, ListVersion{Counter: 2, Hash: 3}, nil, 6); !errors.Is(err, ErrRemoved) || n.List.Counter != 1 {
		t.Errorf("a list removing the node: %v, list %v; want ErrRemoved and no change", err, n.List)
	}
}
