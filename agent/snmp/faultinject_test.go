package snmp

import (
	"testing"
	"time"
)

func TestFaultGateSecondsLeftRoundsUp(t *testing.T) {
	var g faultGate
	t0 := time.Unix(1000, 0)
	if g.silenced(t0) || g.secondsLeft(t0) != 0 {
		t.Fatal("a new gate is silenced")
	}
	g.silence(t0, 5*time.Second)
	for _, c := range []struct {
		after time.Duration
		left  int
		quiet bool
	}{{0, 5, true}, {1500 * time.Millisecond, 4, true}, {4999 * time.Millisecond, 1, true}, {5 * time.Second, 0, false}} {
		now := t0.Add(c.after)
		if got := g.secondsLeft(now); got != c.left || g.silenced(now) != c.quiet {
			t.Errorf("after %v: left %d silenced %v, want %d %v", c.after, got, g.silenced(now), c.left, c.quiet)
		}
	}
	g.silence(t0, 0)
	if g.silenced(t0) {
		t.Error("silence(0) did not lift the gate")
	}
}
