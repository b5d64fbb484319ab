package main

import "testing"

// TestPublishedFigureVerdicts pins the verdicts of the published figures that
// a run decides (the others are held by the tests their rows name): a change
// of the simulator that moves one of them fails here, not silently in
// docs/compare.md.
func TestPublishedFigureVerdicts(t *testing.T) {
	want := map[string]string{
		"64 nodes, sync, first event: nodes after k tests": reproduced,
		"512 nodes, sync, first event":                     reproduced,
		"64 nodes, random start, first event":              reproduced,
		"64 nodes, sync, second event":                     notReproduced,
		"64 nodes, random start, second event":             reproduced,
		"512 nodes, random start, first event":             reproduced,
		"512 nodes, sync, repair":                          notReproduced,
		"512 nodes, random start, repair":                  reproduced,
	}
	seen := 0
	for _, f := range figures() {
		w, ok := want[f.what]
		if !ok {
			continue
		}
		seen++
		value, verdict, _, _ := f.ours(nil)
		if verdict != w {
			t.Errorf("%s %s %s: ours %s, verdict %q, pinned %q (paper %s)", f.seed, f.place, f.what, value, verdict, w, f.paper)
		}
	}
	if seen != len(want) {
		t.Fatalf("%d of %d pinned figures found in the table", seen, len(want))
	}
}
