package hiadsd

import (
	"errors"
	"net/netip"
	"testing"
)

func TestNewer(t *testing.T) {
	cases := []struct {
		e, old Entry
		want   bool
	}{
		{Entry{FaultFree, 2}, Entry{Faulty, 1}, true},
		{Entry{Faulty, 1}, Entry{FaultFree, 2}, false},
		{Entry{Faulty, 3}, Entry{Partial, 3}, true}, // tie: worse verdict wins
		{Entry{Partial, 3}, Entry{FaultFree, 3}, true},
		{Entry{FaultFree, 0}, Entry{Unknown, 0}, true},
		{Entry{Unknown, 0}, Entry{FaultFree, 0}, false},
		{Entry{Faulty, 1}, Entry{Faulty, 1}, false},
		// Serial numbers (RFC 1982): the counter after 2^32-1 is 0.
		{Entry{FaultFree, 0}, Entry{Faulty, 1<<32 - 1}, true},
		{Entry{Faulty, 1<<32 - 1}, Entry{FaultFree, 0}, false},
		{Entry{FaultFree, 5}, Entry{Faulty, 1<<32 - 3}, true},
		{Entry{Faulty, 1<<31 + 4}, Entry{FaultFree, 5}, true},  // 2^31 - 1 ahead
		{Entry{Faulty, 1<<31 + 5}, Entry{FaultFree, 5}, false}, // 2^31 ahead: neither is after the other
		{Entry{FaultFree, 5}, Entry{Faulty, 1<<31 + 5}, false},
	}
	for _, c := range cases {
		if got := c.e.Newer(c.old); got != c.want {
			t.Errorf("%v.Newer(%v) = %v, want %v", c.e, c.old, got, c.want)
		}
	}
}

func TestObserve(t *testing.T) {
	cases := []struct {
		old  Entry
		got  Status
		want Entry
	}{
		{Entry{FaultFree, 0}, FaultFree, Entry{FaultFree, 0}},
		{Entry{FaultFree, 0}, Faulty, Entry{Faulty, 1}},
		{Entry{Faulty, 1}, Partial, Entry{Partial, 2}},
		{Entry{Unknown, 0}, Faulty, Entry{Faulty, 0}}, // first sight is not an event
	}
	for _, c := range cases {
		if got := observe(c.old, c.got); got != c.want {
			t.Errorf("observe(%v, %v) = %v, want %v", c.old, c.got, got, c.want)
		}
	}
}

func TestCatchUp(t *testing.T) {
	cases := []struct {
		mine, heard, want Entry
		refused           bool
	}{
		{Entry{Faulty, 1}, Entry{FaultFree, 0}, Entry{Faulty, 1}, false}, // heard is older
		{Entry{Faulty, 0}, Entry{Faulty, 3}, Entry{Faulty, 3}, false},    // same verdict, newer counter
		{Entry{Faulty, 1}, Entry{FaultFree, 4}, Entry{Faulty, 5}, false}, // direct verdict overtakes
		{Entry{FaultFree, 2}, Entry{Faulty, 2}, Entry{FaultFree, 3}, false},
		// A forged verdict at the top of the counters: the correction wraps to 0 and still wins.
		{Entry{FaultFree, 1<<32 - 5}, Entry{Faulty, 1<<32 - 1}, Entry{FaultFree, 0}, false},
		// From 7, 2^32-1 is 8 behind: older, nothing to correct.
		{Entry{FaultFree, 7}, Entry{Faulty, 1<<32 - 1}, Entry{FaultFree, 7}, false},
		// A lead beyond MaxLead but within MaxRebase is corrected: others may have taken it.
		{Entry{FaultFree, 7}, Entry{Faulty, 7 + MaxLead + 1}, Entry{FaultFree, 7 + MaxLead + 2}, false},
		{Entry{FaultFree, 7}, Entry{Faulty, 7 + MaxRebase}, Entry{FaultFree, 8 + MaxRebase}, false},
		// Beyond MaxRebase nobody took it: refused, the direct verdict stands as it is.
		{Entry{FaultFree, 7}, Entry{Faulty, 8 + MaxRebase}, Entry{FaultFree, 7}, true},
	}
	for _, c := range cases {
		got, refused := catchUp(c.mine, c.heard)
		if got != c.want || refused != c.refused {
			t.Errorf("catchUp(%v, %v) = %v, refused %v; want %v, %v", c.mine, c.heard, got, refused, c.want, c.refused)
		}
		if got.Status != c.mine.Status || !refused && c.heard.Newer(got) {
			t.Errorf("catchUp(%v, %v) = %v loses to what was heard", c.mine, c.heard, got)
		}
	}
}

// TestTakes: a learned entry is taken when newer and within the bound,
// MaxLead for another status and MaxRebase for the same one; newer and
// beyond it, refused; older or equal, neither.
func TestTakes(t *testing.T) {
	held := Entry{FaultFree, 10}
	cases := []struct {
		e            Entry
		take, refuse bool
	}{
		{Entry{Faulty, 11}, true, false},
		{Entry{Faulty, 10 + MaxLead}, true, false},
		{Entry{Faulty, 11 + MaxLead}, false, true},
		{Entry{FaultFree, 11 + MaxLead}, true, false}, // the counter only
		{Entry{FaultFree, 10 + MaxRebase}, true, false},
		{Entry{FaultFree, 11 + MaxRebase}, false, true},
		{Entry{Faulty, 9}, false, false},
		{Entry{FaultFree, 10}, false, false},
		{Entry{Faulty, 10}, true, false}, // equal counters: the worse verdict
	}
	for _, c := range cases {
		if take, refuse := c.e.takes(held); take != c.take || refuse != c.refuse {
			t.Errorf("%v.takes(%v) = %v, %v; want %v, %v", c.e, held, take, refuse, c.take, c.refuse)
		}
	}
	wrap := Entry{Partial, 1<<32 - 2}
	if take, _ := (Entry{Faulty, 3}).takes(wrap); !take {
		t.Errorf("a counter 5 past the wrap is not taken")
	}
}

func TestParseAlgorithm(t *testing.T) {
	for _, a := range Algorithms() {
		got, err := ParseAlgorithm(a.String())
		if err != nil || got != a {
			t.Errorf("ParseAlgorithm(%q) = %v, %v", a.String(), got, err)
		}
	}
	if _, err := ParseAlgorithm("adsd"); !errors.Is(err, ErrBadAlgorithm) {
		t.Errorf("ParseAlgorithm(adsd) error = %v, want ErrBadAlgorithm", err)
	}
}

func TestConfigValidate(t *testing.T) {
	bad := []Config{
		{N: 1},
		{N: 8, Algorithm: Algorithm(9)},
		{N: 8, TestedOnly: []int{8}},
		{N: 8, TestedOnly: []int{3, 3}},
		{N: 8, TestedOnly: []int{5, 2}},
		{N: 2, TestedOnly: []int{0, 1}},
	}
	for _, c := range bad {
		if err := c.Validate(); !errors.Is(err, ErrBadConfig) {
			t.Errorf("Validate(%+v) = %v, want ErrBadConfig", c, err)
		}
	}
	good := Config{N: 8, Algorithm: VCube, TestedOnly: []int{2, 6}}
	if err := good.Validate(); err != nil {
		t.Fatalf("Validate(%+v) = %v", good, err)
	}
	if !good.IsTestedOnly(6) || good.IsTestedOnly(5) {
		t.Error("IsTestedOnly disagrees with TestedOnly")
	}
}

// TestSerialVersions: the station's and the list's counters compare as the
// entries' do, past the wrap too, and a list version leads within MaxLead.
func TestSerialVersions(t *testing.T) {
	a, b := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	if !(Station{Addr: a, Counter: 0}).Newer(Station{Addr: b, Counter: 1<<32 - 1}) {
		t.Error("the station SET after counter 2^32-1 is not newer")
	}
	top := ListVersion{Counter: 1<<32 - 1, Hash: 7}
	if !(ListVersion{Counter: 2, Hash: 5}).Newer(top) {
		t.Error("the list version 3 changes past the wrap is not newer")
	}
	for _, c := range []struct {
		v, old uint32
		want   bool
	}{{10 + MaxLead, 10, true}, {11 + MaxLead, 10, false}, {9, 10, true}, {MaxLead - 3, 1<<32 - 3, true}, {MaxLead - 2, 1<<32 - 3, false}} {
		if got := (ListVersion{Counter: c.v, Hash: 1}).Within(ListVersion{Counter: c.old, Hash: 1}); got != c.want {
			t.Errorf("version %d within MaxLead of %d: %v, want %v", c.v, c.old, got, c.want)
		}
	}
}
