package lab

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/diagagent/diagagent/hiadsd"
)

// TestSparseMatchesDense drives a Sparse and a hiadsd.Dense view with the same random
// writes and checks every read, the non-fault-free list and the stored list.
func TestSparseMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, def := range []hiadsd.Entry{{}, {Status: hiadsd.FaultFree}} {
		const n = 200
		sp, de := NewSparse(n, def), hiadsd.NewDense(n)
		for id := range de {
			de[id] = def
		}
		for step := 0; step < 5000; step++ {
			id := rng.IntN(n)
			e := hiadsd.Entry{Status: hiadsd.Status(rng.IntN(4)), Counter: uint32(rng.IntN(3))}
			if rng.IntN(3) == 0 {
				e = hiadsd.Entry{Status: hiadsd.FaultFree}
			}
			sp.Set(id, e)
			de.Set(id, e)
			if got := sp.Get(id); got != e {
				t.Fatalf("step %d: Get(%d) = %v after Set %v", step, id, got, e)
			}
		}
		for id := range de {
			if sp.Get(id) != de.Get(id) {
				t.Fatalf("id %d: sparse %v dense %v", id, sp.Get(id), de.Get(id))
			}
		}
		if got, want := collect(sp), collect(de); !slices.Equal(sortedCopy(got), want) {
			t.Fatalf("EachNotFaultFree: sparse %v dense %v", got, want)
		}
		unknowns := 0
		for _, e := range de {
			if e.Status == hiadsd.Unknown {
				unknowns++
			}
		}
		if sp.Unknowns() != unknowns {
			t.Fatalf("Unknowns() = %d, want %d", sp.Unknowns(), unknowns)
		}
		stored := sp.AppendStored(nil, []hiadsd.Range{{Lo: 0, Hi: n}})
		if len(stored) != sp.Stored() {
			t.Fatalf("AppendStored gave %d entries, Stored() = %d", len(stored), sp.Stored())
		}
		for _, ie := range stored {
			if ie.Entry == sp.Default() || de[ie.ID] != ie.Entry {
				t.Fatalf("stored entry %+v is the default or wrong", ie)
			}
		}
	}
}

// TestSparseRebase checks that a restarted (all-unknown) view that relearns
// every node drops back to a small list of differences.
func TestSparseRebase(t *testing.T) {
	const n = 1000
	v := NewSparse(n, hiadsd.Entry{})
	for id := 0; id < n; id++ {
		e := hiadsd.Entry{Status: hiadsd.FaultFree}
		if id == 7 {
			e = hiadsd.Entry{Status: hiadsd.Faulty, Counter: 3}
		}
		v.Set(id, e)
	}
	if v.Default() != (hiadsd.Entry{Status: hiadsd.FaultFree}) || v.Stored() != 1 || v.Unknowns() != 0 {
		t.Fatalf("after relearning: default %v, stored %d, unknowns %d; want fault-free, 1, 0",
			v.Default(), v.Stored(), v.Unknowns())
	}
	if got := v.Get(7); got != (hiadsd.Entry{Status: hiadsd.Faulty, Counter: 3}) {
		t.Fatalf("Get(7) = %v after rebase", got)
	}
	if got := v.AppendStored(nil, []hiadsd.Range{{Lo: 0, Hi: 5}, {Lo: 5, Hi: 10}}); len(got) != 1 || got[0].ID != 7 {
		t.Fatalf("AppendStored = %v, want only id 7", got)
	}
}

func collect(v hiadsd.View) []int {
	var ids []int
	v.EachNotFaultFree(func(id int) { ids = append(ids, id) })
	return ids
}

func sortedCopy(ids []int) []int {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}

// countingView is a Sparse view that counts the entries read.
type countingView struct {
	*Sparse
	gets int
}

func (c *countingView) Get(id int) hiadsd.Entry { c.gets++; return c.Sparse.Get(id) }

// TestNewNodeReadsNoWholeView checks that building a node on a view that
// counts its hiadsd.Unknown entries reads a constant number of entries, not all N:
// building N nodes is then linear in N (the simulator builds 65,536).
func TestNewNodeReadsNoWholeView(t *testing.T) {
	for _, def := range []hiadsd.Entry{{Status: hiadsd.FaultFree}, {}} {
		v := &countingView{Sparse: NewSparse(4096, def)}
		n, err := hiadsd.NewNode(&hiadsd.Config{N: 4096, Algorithm: hiadsd.VCube}, 7, v)
		if err != nil {
			t.Fatal(err)
		}
		if v.gets > 2 {
			t.Errorf("default %v: hiadsd.NewNode read %d entries of 4096", def, v.gets)
		}
		if wantCatchUp := def.Status == hiadsd.Unknown; (n.CatchUp > 0) != wantCatchUp {
			t.Errorf("default %v: CatchUp = %d", def, n.CatchUp)
		}
	}
}
