package hiadsd

import "testing"

// TestTimestampsClusters checks Fig. 2.9 of seed 004: on 8 nodes every cluster
// a source reports on has N/2 = 4 nodes, and a fault-free system moves a
// fixed 4 ids per fetch whatever level is tested.
func TestTimestampsClusters(t *testing.T) {
	for j := 0; j < 8; j++ {
		want := Range{Lo: 0, Hi: 4}
		if j >= 4 {
			want = Range{Lo: 4, Hi: 8}
		}
		if got := HalfOf(j, 8); got != want {
			t.Errorf("HalfOf(%d, 8) = %v, want %v", j, got, want)
		}
	}
	nw, err := NewNetwork(&Config{N: 8, Algorithm: HiADSDTimestamps})
	if err != nil {
		t.Fatal(err)
	}
	for round := 1; round <= Levels(8); round++ {
		for id, rep := range stepAll(t, nw) {
			if len(rep.Fetches) != 1 || len(rep.Fetches[0].Ranges) != 1 || rep.Fetches[0].Ranges[0].Len() != 4 {
				t.Errorf("round %d: node %d fetched %+v, want one range of 4 ids", round, id, rep.Fetches)
			}
		}
	}
}
