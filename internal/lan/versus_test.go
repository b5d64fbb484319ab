//go:build linux

package lan

import (
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestKnowledge checks first, median and last, an observer that took its
// verdict back, and one that never knew.
func TestKnowledge(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	evs := []Event{
		{At: at(1), Read: at(1.1), Self: 1, Node: 4, New: "partial"},
		{At: at(2), Read: at(2), Self: 2, Node: 4, New: "faulty"},
		{At: at(2.5), Read: at(2.5), Self: 2, Node: 4, New: "fault-free"}, // took back
		{At: at(3), Read: at(4.5), Self: 3, Node: 4, New: "partial"},      // its line came out late
		{At: at(4), Read: at(4.2), Self: 2, Node: 4, New: "partial"},
		{At: at(0.5), Read: at(9), Self: 3, Node: 5, New: "partial"}, // another node
	}
	g := diagGroup{}
	k := knowledge(evs, []int{0, 1, 2}, 4, g.Down, t0)
	if k.Knew != 3 || k.Of != 3 || k.First != time.Second || k.Median != 3*time.Second || k.Last != 4*time.Second ||
		k.LastRead != 4500*time.Millisecond {
		t.Errorf("knowledge = %+v: want 3 of 3, first 1 s, median 3 s, last 4 s, last as read 4.5 s", k)
	}
	k = knowledge(evs, []int{0, 1, 2, 5}, 4, g.Down, t0)
	if k.Knew != 3 || k.Of != 4 || k.Last != 0 {
		t.Errorf("with a member that never knew: %+v: want 3 of 4 and no last", k)
	}
}

// TestAlarms checks memberlist's episodes: suspect then dead is one
// episode that reached a verdict, a refuted suspicion is one that did not,
// one left open counts until the end, and raised and refuted lines are
// counted apart.
func TestAlarms(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	evs := []Event{
		{At: at(1), Self: 1, Node: 3, New: Raised},
		{At: at(1), Self: 1, Node: 3, New: "suspect"},
		{At: at(3), Self: 1, Node: 3, New: "dead"},
		{At: at(5), Self: 1, Node: 3, New: "alive"},
		{At: at(2), Self: 3, Node: 3, New: Refuted},
		{At: at(2), Self: 2, Node: 4, New: "suspect"},
		{At: at(4), Self: 2, Node: 4, New: "alive"},
		{At: at(6), Self: 4, Node: 3, New: "suspect"},
	}
	nz := alarms(evs, map[[2]int]string{}, &Swim{}, 3, at(16))
	want := Noise{Episodes: 3, AboutBusy: 2, Nodes: 2, Verdicts: 1, Median: 4 * time.Second, Max: 10 * time.Second, Open: 1, Raised: 1, Refuted: 1}
	if nz != want {
		t.Errorf("alarms = %+v\nwant     %+v", nz, want)
	}
}

// TestParseCounters reads nft's listing of named counters.
func TestParseCounters(t *testing.T) {
	out := "table inet diaglan_count {\n\tcounter ping {\n\t\tpackets 3 bytes 252\n\t}\n\n\tcounter c0 {\n\t\tpackets 120 bytes 9000\n\t}\n}\n"
	got, err := parseCounters(out)
	if err != nil {
		t.Fatal(err)
	}
	if got["ping"] != (Traffic{3, 252}) || got["c0"] != (Traffic{120, 9000}) || len(got) != 2 {
		t.Errorf("parseCounters = %v", got)
	}
	if _, err := parseCounters("table inet x {\n}\n"); err == nil {
		t.Error("a listing without counters gave no error")
	}
}

// TestVersusSpecCheck: a spec that cannot run is refused before any
// namespace is built, with the reason.
func TestVersusSpecCheck(t *testing.T) {
	ok := VersusSpec{N: 4, SwimProbe: time.Second}
	for _, tc := range []struct {
		name string
		edit func(*VersusSpec)
		want string // "" for no error
	}{
		{"memberlist alone", func(*VersusSpec) {}, ""},
		{"diagagent alone", func(s *VersusSpec) { s.SwimProbe, s.Settings = 0, []Setting{{Label: "d"}} }, ""},
		{"steady only", func(s *VersusSpec) { s.Kinds = []string{"steady"} }, ""},
		{"unknown kind", func(s *VersusSpec) { s.Kinds = []string{"crash", "partition"} }, `kind "partition"`},
		{"no system", func(s *VersusSpec) { s.SwimProbe = 0 }, "no system"},
		{"negative probe", func(s *VersusSpec) { s.SwimProbe = -time.Second }, "want positive"},
		{"one member", func(s *VersusSpec) { s.N = 1 }, "1 members"},
		{"negative wave", func(s *VersusSpec) { s.SwimWave = -8 }, "waves of -8"},
	} {
		s := ok
		tc.edit(&s)
		err := s.check()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want one naming %q", tc.name, err, tc.want)
		}
	}
	// Versus checks first: no root, no namespace, the same error.
	if _, err := Versus(VersusSpec{N: 4}, io.Discard); err == nil || !strings.Contains(err.Error(), "no system") {
		t.Errorf("Versus of no system: %v", err)
	}
}

// TestMergeVersus: phases run apart line up system by system, row by row.
func TestMergeVersus(t *testing.T) {
	kn := func(s time.Duration) Knowledge { return Knowledge{First: s, Median: s, Last: s, Knew: 3, Of: 3} }
	a := VersusResult{N: 4, Date: "d", Systems: []string{"memberlist"}, Settings: []string{"ml"}, Load: 2, ICMP: 0,
		Steady: []Cost{{BytesPerSec: 170}},
		Events: []EventRow{{Event: "crash", Host: 3, Per: []Knowledge{kn(6 * time.Second)}},
			{Event: "crash repaired", Host: 3, Per: []Knowledge{kn(time.Second)}}},
		Noise: []NoiseRow{{What: "no fault", Per: []Noise{{Episodes: 0}}}}}
	b := VersusResult{N: 4, Date: "e", Systems: []string{"diagagent 4s"}, Settings: []string{"dg"}, Load: 5, ICMP: 0.5,
		Steady: []Cost{{BytesPerSec: 4000}},
		Events: []EventRow{{Event: "crash", Host: 3, Per: []Knowledge{kn(2 * time.Second)}}}, // its run ended early
		Noise:  []NoiseRow{{What: "no fault", Per: []Noise{{Episodes: 7}}}}}
	m := mergeVersus([]VersusResult{a, b}, []string{"diagagent defaults: did not converge"})
	if !slices.Equal(m.Systems, []string{"memberlist", "diagagent 4s"}) || len(m.Steady) != 2 || m.Steady[1].BytesPerSec != 4000 {
		t.Fatalf("systems %v, steady %v", m.Systems, m.Steady)
	}
	if !m.Apart || !strings.Contains(VersusTables(m), "Each system ran alone") {
		t.Error("the merged tables do not say the systems ran apart")
	}
	if !strings.Contains(VersusTables(m), "did not finish**, so absent from the tables: diagagent defaults: did not converge") {
		t.Error("the merged tables do not name the phase that failed")
	}
	if m.Load != 5 || m.ICMP != 0.5 || m.Date != "d" {
		t.Errorf("load %v, ICMP %v, date %q: want the highest, the sum and the first", m.Load, m.ICMP, m.Date)
	}
	if len(m.Events) != 1 || len(m.Events[0].Per) != 2 || m.Events[0].Per[1].Last != 2*time.Second {
		t.Errorf("events %+v: want the one row both ran, per system", m.Events)
	}
	if len(m.Noise) != 1 || m.Noise[0].Per[1].Episodes != 7 {
		t.Errorf("noise %+v", m.Noise)
	}
	if len(a.Events[0].Per) != 1 {
		t.Errorf("merging changed the first phase's rows: %+v", a.Events[0])
	}
}
