package board

import (
	"slices"
	"testing"

	"github.com/diagagent/diagagent/hiadsd"
)

// TestCauses: the nodes of one group are one cause wherever they stand in
// the list, a node of group 0 is alone, and causes keep the order of their
// first node.
func TestCauses(t *testing.T) {
	type node struct{ id, group uint32 }
	nodes := []node{{5, 0}, {17, 3}, {2, 4}, {18, 3}, {9, 0}, {3, 4}}
	got := Causes(nodes, func(n node) uint32 { return n.group })
	want := [][]node{{{5, 0}}, {{17, 3}, {18, 3}}, {{2, 4}, {3, 4}}, {{9, 0}}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("Causes = %v, want %v", got, want)
	}
	if got := Causes([]node{}, func(n node) uint32 { return n.group }); len(got) != 0 {
		t.Errorf("no node: %v", got)
	}
}

// TestOut: faulty and partial nodes are out, unless in maintenance;
// degraded, unknown and fault-free ones never are.
func TestOut(t *testing.T) {
	for st, want := range map[hiadsd.Status]bool{hiadsd.Faulty: true, hiadsd.Partial: true,
		hiadsd.Degraded: false, hiadsd.Unknown: false, hiadsd.FaultFree: false} {
		if got := Out(st, false); got != want {
			t.Errorf("Out(%v) = %v, want %v", st, got, want)
		}
		if Out(st, true) {
			t.Errorf("Out(%v) in maintenance", st)
		}
	}
}
