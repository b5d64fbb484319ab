package cpugate

import (
	"bufio"
	"strings"
	"testing"
)

// TestParse: the "some" line's avg10, whichever line comes first; none in
// a file without one.
func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"some avg10=12.50 avg60=3.00 avg300=1.00 total=123\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", 12.5, true},
		{"full avg10=9.00 avg60=0.00 avg300=0.00 total=0\nsome avg10=0.25 avg60=0.00 avg300=0.00 total=1\n", 0.25, true},
		{"full avg10=9.00 avg60=0.00 avg300=0.00 total=0\n", 0, false},
		{"some avg10=x avg60=0.00\n", 0, false},
		{"", 0, false},
	} {
		got, ok := parse(bufio.NewScanner(strings.NewReader(c.in)))
		if got != c.want || ok != c.ok {
			t.Errorf("%q: %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// TestAdmits: under the limit, or with no pressure told; not at or above
// it; CPU_GATE=100 admits at any pressure the kernel can tell.
func TestAdmits(t *testing.T) {
	if !admits(39.9, true, 40) || admits(40, true, 40) || admits(95, true, 40) || !admits(95, false, 40) {
		t.Fatal("admits against 40%")
	}
	t.Setenv("CPU_GATE", "100")
	if !admits(99.99, true, Limit()) {
		t.Fatal("CPU_GATE=100 refused 99.99%")
	}
	t.Setenv("CPU_GATE", "")
	if Limit() != 40 {
		t.Fatalf("default limit %v, want 40", Limit())
	}
}
