package lab

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/diagagent/diagagent/hiadsd"
)

// TestDigestsChangeNothing drives two networks through the same random
// history of faults, repairs and station changes, one whose tests bring
// digests and one whose do not, and checks after every round that every
// node holds the same entries and station in both: a skipped fetch is one
// that would have brought nothing new. It also checks that digests skip
// fetches at all, and that the network with digests reads fewer entries.
func TestDigestsChangeNothing(t *testing.T) {
	for trial := 0; trial < 24; trial++ {
		for _, algo := range hiadsd.Algorithms() { // digests are the daemon's
			if algo == hiadsd.BruteForce {
				continue // fetches nothing
			}
			rng := trialRand(trial, Algorithm(algo))
			n := 4 + rng.IntN(45)
			cfg := &hiadsd.Config{N: n, Algorithm: algo, Recheck: trial%2 == 1}
			t.Run(fmt.Sprintf("%v/n=%d/trial=%d/recheck=%v", algo, n, trial, cfg.Recheck), func(t *testing.T) {
				checkDigestsChangeNothing(t, cfg, uint64(trial))
			})
		}
	}
}

// twin is one of the two networks of TestDigestsChangeNothing with what
// its fetches cost.
type twin struct {
	nw              *Network
	rng             *rand.Rand
	skipped, fetch  int
	received, units int
}

func (tw *twin) round(t *testing.T) {
	t.Helper()
	for _, id := range tw.rng.Perm(tw.nw.Config().N) {
		if !tw.nw.Testing(id) {
			continue
		}
		rep, err := tw.nw.Step(id)
		if err != nil {
			t.Fatal(err)
		}
		tw.units += rep.Units
		for _, f := range rep.Fetches {
			if f.Skipped {
				tw.skipped++
			} else {
				tw.fetch++
				tw.received += f.Received
			}
		}
	}
}

func checkDigestsChangeNothing(t *testing.T, cfg *hiadsd.Config, seed uint64) {
	var tw [2]*twin
	for k := range tw {
		nw, err := NewNetwork(cfg)
		if err != nil {
			t.Fatal(err)
		}
		nw.SetDigests(k == 1)
		tw[k] = &twin{nw: nw, rng: rand.New(rand.NewPCG(seed, 7))}
	}
	events := rand.New(rand.NewPCG(seed, 8))
	ref := make(reference, cfg.N)
	for id := range ref {
		ref[id] = hiadsd.FaultFree
	}
	for ev := 0; ev < 10; ev++ {
		if ev%3 == 2 {
			at := events.IntN(cfg.N)
			a := netip.AddrFrom4([4]byte{192, 0, 2, byte(ev)})
			for _, w := range tw {
				if w.nw.Testing(at) {
					if _, err := w.nw.SetStation(at, a); err != nil {
						t.Fatal(err)
					}
				}
			}
		} else {
			id, st := randomEvent(ref, tw[0].nw, events)
			ref[id] = st
			for _, w := range tw {
				if err := w.nw.SetState(id, st); err != nil {
					t.Fatal(err)
				}
			}
		}
		for r := 0; r < hiadsd.LatencyBound(cfg.Algorithm, cfg.N)+2; r++ {
			for _, w := range tw {
				w.round(t)
			}
			sameViews(t, tw[0].nw, tw[1].nw, ev, r)
		}
	}
	without, with := tw[0], tw[1]
	if with.skipped == 0 || without.skipped != 0 {
		t.Fatalf("skipped fetches: %d with digests, %d without; want some, and none", with.skipped, without.skipped)
	}
	if with.received >= without.received {
		t.Fatalf("entries received: %d with digests, %d without; want fewer", with.received, without.received)
	}
}

// sameViews fails unless every node of a and b holds the same entries and station.
func sameViews(t *testing.T, a, b *Network, ev, r int) {
	t.Helper()
	for h := 0; h < a.Config().N; h++ {
		if a.Testing(h) != b.Testing(h) {
			t.Fatalf("event %d round %d: node %d testing %v without digests, %v with", ev, r, h, a.Testing(h), b.Testing(h))
		}
		if !a.Testing(h) {
			continue
		}
		if sa, sb := a.Node(h).Station, b.Node(h).Station; sa != sb {
			t.Fatalf("event %d round %d: node %d holds station %v without digests, %v with", ev, r, h, sa, sb)
		}
		for k := 0; k < a.Config().N; k++ {
			if ea, eb := a.View(h).Get(k), b.View(h).Get(k); ea != eb {
				t.Fatalf("event %d round %d: node %d holds %v for node %d without digests, %v with", ev, r, h, ea, k, eb)
			}
		}
	}
}

// TestSparseDigest checks that a Sparse view's digest follows its entries,
// not its shape: views that reach the same entries by other roads (another
// default, a table, a grown view) have the same digest, and any change of
// status or counter changes it.
func TestSparseDigest(t *testing.T) {
	a := NewSparse(40, hiadsd.Entry{Status: hiadsd.FaultFree})
	b := NewSparse(40, hiadsd.Entry{}) // all unknown: a table, rebased once it knows every id
	for id := range 40 {
		b.Set(id, hiadsd.Entry{Status: hiadsd.FaultFree})
	}
	if a.Digest() != b.Digest() || a.Digest() != 0 {
		t.Fatalf("digests %x and %x of two all-fault-free views; want both 0", a.Digest(), b.Digest())
	}
	seen := map[uint64]string{0: "fault-free"}
	for _, c := range []struct {
		id int
		e  hiadsd.Entry
	}{{3, hiadsd.Entry{Status: hiadsd.Faulty, Counter: 1}}, {3, hiadsd.Entry{Status: hiadsd.Partial, Counter: 1}}, {3, hiadsd.Entry{Status: hiadsd.Partial, Counter: 2}}, {4, hiadsd.Entry{Status: hiadsd.Partial, Counter: 2}}, {39, hiadsd.Entry{Status: hiadsd.Unknown, Counter: 0}}} {
		a.Set(c.id, c.e)
		name := fmt.Sprint(c)
		if was, ok := seen[a.Digest()]; ok {
			t.Fatalf("after %s the digest is %x, as after %s", name, a.Digest(), was)
		}
		seen[a.Digest()] = name
		b.Set(c.id, c.e)
		if a.Digest() != b.Digest() {
			t.Fatalf("after %s: digests %x and %x of equal views", name, a.Digest(), b.Digest())
		}
	}
	for id := range 40 { // a turns into a table and back
		a.Set(id, hiadsd.Entry{Status: hiadsd.Faulty, Counter: 9})
	}
	for id := range 40 {
		a.Set(id, b.Get(id))
	}
	if a.Digest() != b.Digest() {
		t.Fatalf("after a round trip through a table: %x, want %x", a.Digest(), b.Digest())
	}
	grown := NewSparse(44, hiadsd.Entry{Status: hiadsd.FaultFree})
	for id := range 40 {
		grown.Set(id, b.Get(id))
	}
	for id := 40; id < 44; id++ {
		grown.Set(id, hiadsd.Entry{})
	}
	if got := b.Grow(44).(*Sparse).Digest(); got != grown.Digest() {
		t.Fatalf("extended view: %x, want %x", got, grown.Digest())
	}
}

// TestQuietSystemReadsNothing: after a history of faults and restarts, once
// every node is repaired and the news has spread, every node serves the same
// digest (a restarted node included, whose own counter it takes from its
// testers) and an interval with nothing new reads no view. Before a node
// took its own counter, every restarted one kept an older counter about
// itself than its peers held, and every test between it and them read a
// view for good.
func TestQuietSystemReadsNothing(t *testing.T) {
	cases := []struct {
		name string
		cfg  hiadsd.Config
	}{
		{"vcube", hiadsd.Config{Algorithm: hiadsd.VCube}},
		{"vcube rotating", hiadsd.Config{Algorithm: hiadsd.VCube, Rotate: true}},
		{"vcube rotating push", hiadsd.Config{Algorithm: hiadsd.VCube, Rotate: true, Push: true}},
		{"hi-adsd", hiadsd.Config{Algorithm: hiadsd.HiADSD}},
	}
	for trial := range 6 {
		for _, c := range cases {
			rng := rand.New(rand.NewPCG(uint64(trial), 13))
			cfg := c.cfg
			cfg.N = 4 + rng.IntN(80)
			t.Run(fmt.Sprintf("%s/n=%d/trial=%d", c.name, cfg.N, trial), func(t *testing.T) {
				nw, ref := newHistory(t, Algorithm(cfg.Algorithm), &cfg)
				nw.SetDigests(true)
				l := hiadsd.Levels(cfg.N)
				settle := 2*hiadsd.LatencyBound(cfg.Algorithm, cfg.N) + 2
				round := func() (reads int) {
					for _, id := range rng.Perm(cfg.N) {
						if !nw.Testing(id) {
							continue
						}
						rep, err := nw.Step(id)
						if err != nil {
							t.Fatal(err)
						}
						for _, f := range rep.Fetches {
							if !f.Skipped {
								reads++
							}
						}
						flood(t, nw, id, rep.Pushes, 0, rng)
					}
					return reads
				}
				for ev := 0; ev < 6; ev++ {
					happen(t, ref, nw, rng)
					for range l {
						round()
					}
				}
				for id := range ref {
					if ref[id] != hiadsd.FaultFree {
						ref[id] = hiadsd.FaultFree
						if err := nw.SetState(id, hiadsd.FaultFree); err != nil {
							t.Fatal(err)
						}
					}
				}
				for range settle {
					round()
				}
				want := nw.digestOf(0)
				for id := range cfg.N {
					if d := nw.digestOf(id); d != want {
						t.Fatalf("after %d quiet intervals node %d serves digest %x, node 0 %x; node %d holds itself %v, node 0 holds it %v",
							settle, id, d, want, id, nw.View(id).Get(id), nw.View(0).Get(id))
					}
				}
				if reads := round(); reads != 0 {
					t.Fatalf("a quiet interval read %d views, want 0", reads)
				}
			})
		}
	}
}

// TestCatchUpSkipsAnEqualView: a node catching up reads every source in
// full, but not one whose digest is its own: equal digests are equal
// views, and the read would bring nothing. Agents started together agree
// within a few intervals, and before this each still read a whole view per
// test for its first log2 N intervals (on the LAN at N = 64, 2.6 kB a
// read, in the first minute of make versus's steady window).
func TestCatchUpSkipsAnEqualView(t *testing.T) {
	nw, err := NewNetwork(&hiadsd.Config{N: 16, Algorithm: hiadsd.VCube})
	if err != nil {
		t.Fatal(err)
	}
	nw.SetDigests(true)
	for range 2 * hiadsd.Levels(16) {
		for id := range 16 {
			if _, err := nw.Step(id); err != nil {
				t.Fatal(err)
			}
		}
	}
	nw.Node(3).CatchUp = hiadsd.Levels(16)
	rep, err := nw.Step(3)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Fetches) == 0 {
		t.Fatal("no fetch to check")
	}
	for _, f := range rep.Fetches {
		if !f.Skipped {
			t.Fatalf("catching up, node 3 read node %d, whose view equals its own", f.From)
		}
	}
	if err := nw.SetState(9, hiadsd.Faulty); err != nil {
		t.Fatal(err)
	}
	nw.Node(3).CatchUp = hiadsd.Levels(16)
	for id := range 16 { // node 3's sources now know of node 9 and it does not
		if id != 3 && nw.Testing(id) {
			if _, err := nw.Step(id); err != nil {
				t.Fatal(err)
			}
		}
	}
	if rep, err = nw.Step(3); err != nil {
		t.Fatal(err)
	}
	read := 0
	for _, f := range rep.Fetches {
		if !f.Skipped {
			read++
		}
	}
	if read == 0 {
		t.Fatal("catching up, node 3 read no source although their views differ from its own")
	}
}
