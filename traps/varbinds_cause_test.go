package traps

import (
	"testing"

	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

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
