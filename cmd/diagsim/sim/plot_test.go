package sim

import (
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/diagagent/diagagent/hiadsd/lab"
)

func TestPlotWritesAPNG(t *testing.T) {
	var runs []Result
	for _, start := range []Start{Sync, Random} {
		opt := oneFault(lab.HiADSD, 64)
		opt.Start = start
		runs = append(runs, runOrFail(t, opt))
	}
	path := filepath.Join(t.TempDir(), "h.png")
	if err := Plot(runs, "Hi-ADSD on 64 nodes", path); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("plot is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 400 || b.Dy() < 200 {
		t.Fatalf("plot is only %v", b)
	}
}

func TestPlotNeedsACurve(t *testing.T) {
	err := Plot([]Result{{Algo: "vcube"}}, "empty", filepath.Join(t.TempDir(), "e.png"))
	if !errors.Is(err, ErrNothingToPlot) {
		t.Fatalf("Plot without events: %v, want ErrNothingToPlot", err)
	}
}

// TestRoundsNeedEveryTestingNode: a round closes only when every testing node
// has finished an interval, and a node going down no longer holds it open.
func TestRoundsNeedEveryTestingNode(t *testing.T) {
	up := []bool{true, true, true}
	testing3 := func(id int) bool { return up[id] }
	r := newRounds(3, testing3)
	if r.finished(0, testing3) || r.finished(0, testing3) || r.finished(1, testing3) {
		t.Fatal("round closed before node 2 finished an interval")
	}
	up[2] = false
	if !r.recount(testing3) || r.index != 2 {
		t.Fatalf("round did not close when node 2 went down (index %d)", r.index)
	}
	if r.finished(0, testing3) || !r.finished(1, testing3) || r.index != 3 {
		t.Fatalf("second round: index %d, want 3 after nodes 0 and 1", r.index)
	}
}
