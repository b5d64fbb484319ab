package traps

import (
	"testing"

	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

func TestNodeRanges(t *testing.T) {
	for _, c := range []struct {
		ids   []uint32
		limit int
		want  string
	}{
		{[]uint32{17, 18, 19, 20, 21, 22, 23, 24}, 255, "17-24"},
		{[]uint32{14, 3, 9, 12, 13, 9}, 255, "3,9,12-14"},
		{[]uint32{1, 3, 5, 7, 9, 11}, 9, "1,3,5..."},
		{nil, 255, ""},
	} {
		if got := NodeRanges(c.ids, c.limit); got != c.want || len(got) > c.limit {
			t.Errorf("NodeRanges(%v, %d) = %q, want %q", c.ids, c.limit, got, c.want)
		}
	}
}

// TestCauseChangeVarbinds: the cause's objects, then nodeStatus of at most
// causeStatuses nodes; the list names all of them.
func TestCauseChangeVarbinds(t *testing.T) {
	c := Cause{Kind: mib.CauseBackCut, Group: 7, Split: 9}
	for id := uint32(1); id <= 40; id++ {
		c.Nodes = append(c.Nodes, CauseNode{ID: id, Status: hiadsd.FaultFree})
	}
	n := causeChange(c)
	if n.oid != mib.DiagCauseChange || len(n.vars) != 7+causeStatuses {
		t.Fatalf("oid %s, %d varbinds; want %s and %d", n.oid, len(n.vars), mib.DiagCauseChange, 7+causeStatuses)
	}
	if n.vars[4].Value != "1-40" || n.vars[0].Value != mib.CauseBackCut {
		t.Errorf("list %v kind %v", n.vars[4].Value, n.vars[0].Value)
	}
	if got := n.vars[7].Name; got != mib.TreeCell(mib.ColNodeStatus, 1) {
		t.Errorf("first status varbind %s", got)
	}
}
