package hiadsd

import (
	"slices"
	"testing"
	"time"
)

func TestGrouperLostTogether(t *testing.T) {
	const w = 3 * time.Second
	g := Grouper{Window: w}
	bad := Entry{Status: Faulty, Counter: 1}
	g.Lost(10*time.Second, 5, bad)
	g.Lost(11*time.Second, 3, Entry{Status: Partial, Counter: 1})
	g.Lost(12*time.Second, 4, bad)
	if due := g.Due(12*time.Second, 8, nil); len(due) != 0 {
		t.Fatalf("due before the window closed: %+v", due)
	}
	if next, ok := g.Next(); !ok || next != 12*time.Second+w {
		t.Fatalf("Next = %v %v, want %v: a window after the latest", next, ok, 12*time.Second+w)
	}
	if due := g.Due(14*time.Second, 8, nil); len(due) != 0 {
		t.Fatalf("due before the window after the latest closed: %+v", due)
	}
	due := g.Due(15*time.Second, 8, nil)
	if len(due) != 1 || due[0].Back || due[0].Group == 0 || !slices.Equal(due[0].IDs(), []int{3, 4, 5}) {
		t.Fatalf("want one group of 3, 4, 5; got %+v", due)
	}
	lost := due[0]
	if _, ok := g.Next(); ok {
		t.Fatal("something still waits")
	}
	if out := g.Out(); len(out) != 3 || out[3] != lost.Group || out[4] != lost.Group || out[5] != lost.Group {
		t.Fatalf("Out = %v; want 3, 4 and 5 out in group %d", out, lost.Group)
	}
	// Two come back together, the third later: two returns of the group,
	// each with its id; none was cut off (no other entry moved).
	up := Entry{Status: FaultFree, Counter: 2}
	g.Back(30*time.Second, 4, up)
	g.Back(31*time.Second, 3, up)
	due = g.Due(34*time.Second, 8, nil)
	if len(due) != 1 || !due[0].Back || due[0].Group != lost.Group || due[0].Cut || !slices.Equal(due[0].IDs(), []int{3, 4}) ||
		due[0].Lost != 10*time.Second || due[0].Split != lost.Split {
		t.Fatalf("want the return of 3 and 4 in group %d, down; got %+v", lost.Group, due)
	}
	if out := g.Out(); len(out) != 1 || out[5] != lost.Group {
		t.Fatalf("Out = %v; want 5 alone still out in group %d", out, lost.Group)
	}
	g.Back(40*time.Second, 5, up)
	due = g.Due(43*time.Second, 8, nil)
	if len(due) != 1 || due[0].Group != lost.Group || !slices.Equal(due[0].IDs(), []int{5}) {
		t.Fatalf("want the return of 5 in group %d; got %+v", lost.Group, due)
	}
	if out := g.Out(); out != nil {
		t.Fatalf("Out = %v after the group came back", out)
	}
	// The group is over: 5 fails and comes back alone.
	g.Lost(50*time.Second, 5, Entry{Status: Faulty, Counter: 3})
	due = g.Due(53*time.Second, 8, nil)
	if len(due) != 1 || !due[0].Single() {
		t.Fatalf("want a single loss; got %+v", due)
	}
	if out := g.Out(); out != nil {
		t.Fatalf("Out = %v: a node lost alone is in no group", out)
	}
	g.Back(60*time.Second, 5, Entry{Status: FaultFree, Counter: 4})
	due = g.Due(60*time.Second, 8, nil)
	if len(due) != 1 || !due[0].Single() || !due[0].Back {
		t.Fatalf("a single return is due at once; got %+v", due)
	}
}

// TestGrouperSpan: a group that keeps growing closes spanWindows windows
// after its first change.
func TestGrouperSpan(t *testing.T) {
	g := Grouper{Window: time.Second}
	for k := range 10 {
		g.Lost(time.Duration(k)*time.Second*9/10, k, Entry{Status: Faulty, Counter: 1})
	}
	due := g.Due(spanWindows*time.Second, 16, nil)
	if len(due) != 1 || len(due[0].Nodes) != spanWindows*10/9+1 {
		t.Fatalf("want the %d nodes lost within %d windows; got %+v", spanWindows*10/9+1, spanWindows, due)
	}
	if due := g.Due(20*time.Second, 16, nil); len(due) != 1 || due[0].Nodes[0].ID != 5 {
		t.Fatalf("want the rest, from node 5, as a group of its own; got %+v", due)
	}
}

func TestGrouperCut(t *testing.T) {
	const w = time.Second
	g := Grouper{Window: w}
	for id := 4; id < 8; id++ {
		g.Lost(0, id, Entry{Status: Faulty, Counter: 1})
	}
	g.Moved(0, 6) // before the loss was notified, inside the group: no evidence
	lost := g.Due(w, 8, nil)
	if len(lost) != 1 || lost[0].Group == 0 {
		t.Fatalf("want one group; got %+v", lost)
	}
	g.Moved(20*time.Second, 0) // this side's entry moved: the other side saw it fail
	for id := 4; id < 8; id++ {
		g.Back(20*time.Second, id, Entry{Status: FaultFree, Counter: 2})
	}
	due := g.Due(21*time.Second, 8, nil)
	if len(due) != 1 || !due[0].Cut || due[0].Lost != 0 {
		t.Fatalf("want a cut; got %+v", due)
	}
	// The other side lost 0..3 in the same cut: the same split.
	var o Grouper
	o.Window = w
	for id := range 4 {
		o.Lost(0, id, Entry{Status: Faulty, Counter: 1})
	}
	other := o.Due(w, 8, nil)
	if other[0].Split != lost[0].Split || other[0].Group == lost[0].Group {
		t.Fatalf("the sides of one cut: splits %d and %d, groups %d and %d", other[0].Split, lost[0].Split, other[0].Group, lost[0].Group)
	}
	// A removed id counts in no partition.
	skip := func(id int) bool { return id == 8 }
	if split([]int{4, 5, 6, 7}, 9, skip) != lost[0].Split {
		t.Fatal("a removed id changed the split")
	}
}

func TestGrouperForget(t *testing.T) {
	g := Grouper{Window: time.Second}
	g.Lost(0, 1, Entry{Status: Faulty})
	g.Lost(0, 2, Entry{Status: Faulty})
	g.Forget(2)
	due := g.Due(time.Second, 4, nil)
	if len(due) != 1 || !due[0].Single() || due[0].Nodes[0].ID != 1 {
		t.Fatalf("want node 1 alone; got %+v", due)
	}
	g.Lost(0, 1, Entry{Status: Faulty})
	g.Back(time.Second/2, 1, Entry{Status: FaultFree}) // back before the loss was told: neither is
	if due := g.Due(2*time.Second, 4, nil); len(due) != 0 {
		t.Fatalf("want nothing; got %+v", due)
	}
}

// TestGrouperSwept: a sweep that every other node answers makes a node
// alone due at once; one that some nodes do not answer makes the faults
// due as soon as the last of those is among them, past the window if need
// be; a silent node never found faulty leaves them to their span, unless
// it is forgotten.
func TestGrouperSwept(t *testing.T) {
	const w = 8 * time.Second
	bad := Entry{Status: Faulty, Counter: 1}
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

	var g Grouper
	g.Window = w
	g.Lost(sec(10), 5, bad)
	opened, nodes, ok := g.Unswept()
	if !ok || opened != sec(10) || !slices.Equal(nodes, []int{5}) {
		t.Fatalf("Unswept = %v %v %v; want 10s [5] true", opened, nodes, ok)
	}
	g.Swept(opened, sec(10.05), nil)
	if _, _, ok := g.Unswept(); ok {
		t.Fatal("still unswept after a sweep reported")
	}
	if next, ok := g.Next(); !ok || next != sec(10.05) {
		t.Fatalf("Next = %v %v; want the sweep's report, 10.05s", next, ok)
	}
	if due := g.Due(sec(10.05), 8, nil); len(due) != 1 || !due[0].Single() {
		t.Fatalf("want node 5 alone due when every other node answered; got %+v", due)
	}

	// Three silent: due when the last of them is lost, not a window later.
	g = Grouper{Window: w}
	g.Lost(sec(20), 1, bad)
	opened, _, _ = g.Unswept()
	g.Lost(sec(20.5), 2, bad) // lost while the sweep was out: in the batch already
	g.Swept(opened, sec(21), []int{2, 3, 4})
	g.Lost(sec(22), 3, bad)
	if due := g.Due(sec(23), 8, nil); len(due) != 0 {
		t.Fatalf("due while node 4, silent, is not lost yet: %+v", due)
	}
	g.Lost(sec(24), 4, bad)
	due := g.Due(sec(24), 8, nil)
	if len(due) != 1 || !slices.Equal(due[0].IDs(), []int{1, 2, 3, 4}) {
		t.Fatalf("want 1-4 due when 4 is lost; got %+v", due)
	}
	// A node lost after that is a cause of its own.
	g.Lost(sec(25), 6, bad)
	if _, _, ok := g.Unswept(); !ok {
		t.Fatal("a new batch waits for its own sweep")
	}

	// A silent node found past the window (its testers slowed by a loaded
	// machine): still one cause.
	g = Grouper{Window: w}
	g.Lost(sec(30), 1, bad)
	g.Swept(sec(30), sec(30.1), []int{2})
	if due := g.Due(sec(30)+w+sec(1), 8, nil); len(due) != 0 {
		t.Fatalf("due at the window while node 2, silent, is not lost yet: %+v", due)
	}
	g.Lost(sec(30)+w+sec(1), 2, bad)
	if due := g.Due(sec(30)+w+sec(1), 8, nil); len(due) != 1 || !slices.Equal(due[0].IDs(), []int{1, 2}) {
		t.Fatalf("want 1-2 one cause when 2 is lost past the window; got %+v", due)
	}

	// A silent node never lost: the span; forgotten (maintenance): at once.
	g = Grouper{Window: w}
	g.Lost(sec(40), 1, bad)
	g.Swept(sec(40), sec(41), []int{7})
	if next, _ := g.Next(); next != sec(40)+spanWindows*w {
		t.Fatalf("Next = %v; want the span, %v", next, sec(40)+spanWindows*w)
	}
	g.Forget(7)
	if next, _ := g.Next(); next != sec(41) {
		t.Fatalf("Next = %v after the silent node was forgotten; want the sweep's report, 41s", next)
	}

	// A sweep for faults already due is dropped.
	g = Grouper{Window: w}
	g.Lost(sec(50), 1, bad)
	old, _, _ := g.Unswept()
	g.Due(sec(50)+w, 8, nil)
	g.Lost(sec(60), 2, bad)
	g.Swept(old, sec(60.1), nil)
	if _, _, ok := g.Unswept(); !ok {
		t.Fatal("a sweep made for an earlier batch was taken for the new one")
	}
}

// TestGrouperLostBeforeItsReturnIsSent: a node of a group lost together
// comes back and is lost again before its return is due: it is still out
// of its group, as the station was told, and nothing about it is due; when
// it comes back for good, its return is the group's.
func TestGrouperLostBeforeItsReturnIsSent(t *testing.T) {
	const w = time.Second
	g := Grouper{Window: w}
	for id := 2; id < 5; id++ {
		g.Lost(0, id, Entry{Status: Faulty, Counter: 1})
	}
	lost := g.Due(w, 8, nil)
	if len(lost) != 1 || lost[0].Group == 0 {
		t.Fatalf("want one group; got %+v", lost)
	}
	g.Back(10*time.Second, 3, Entry{Status: FaultFree, Counter: 2})
	g.Lost(10*time.Second+w/2, 3, Entry{Status: Faulty, Counter: 3})
	if due := g.Due(20*time.Second, 8, nil); len(due) != 0 {
		t.Fatalf("a return and a loss that cancel were due: %+v", due)
	}
	if out := g.Out(); out[3] != lost[0].Group {
		t.Fatalf("Out = %v: node 3 is no longer out of group %d", out, lost[0].Group)
	}
	g.Back(30*time.Second, 3, Entry{Status: FaultFree, Counter: 4})
	if due := g.Due(30*time.Second+w, 8, nil); len(due) != 1 || !due[0].Back || due[0].Group != lost[0].Group || !slices.Equal(due[0].IDs(), []int{3}) {
		t.Fatalf("want node 3's return in group %d; got %+v", lost[0].Group, due)
	}
}
