package hiadsd

import (
	"errors"
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
	}{
		{Entry{Faulty, 1}, Entry{FaultFree, 0}, Entry{Faulty, 1}}, // heard is older
		{Entry{Faulty, 0}, Entry{Faulty, 3}, Entry{Faulty, 3}},    // same verdict, newer counter
		{Entry{Faulty, 1}, Entry{FaultFree, 4}, Entry{Faulty, 5}}, // direct verdict overtakes
		{Entry{FaultFree, 2}, Entry{Faulty, 2}, Entry{FaultFree, 3}},
	}
	for _, c := range cases {
		got := catchUp(c.mine, c.heard)
		if got != c.want {
			t.Errorf("catchUp(%v, %v) = %v, want %v", c.mine, c.heard, got, c.want)
		}
		if got.Status != c.mine.Status || c.heard.Newer(got) {
			t.Errorf("catchUp(%v, %v) = %v loses to what was heard", c.mine, c.heard, got)
		}
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
