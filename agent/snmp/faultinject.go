package snmp

import (
	"sync/atomic"
	"time"
)

// faultGate silences the responder until a deadline (diagFaultInject).
type faultGate struct {
	until atomic.Int64 // Unix nanoseconds; 0 when not silenced
}

// silence makes the responder drop requests for d from now; d == 0 lifts it.
func (g *faultGate) silence(now time.Time, d time.Duration) {
	if d <= 0 {
		g.until.Store(0)
		return
	}
	g.until.Store(now.Add(d).UnixNano())
}

// silenced reports whether requests arriving at now must be dropped.
func (g *faultGate) silenced(now time.Time) bool {
	u := g.until.Load()
	return u != 0 && now.UnixNano() < u
}

// secondsLeft is the value diagFaultInject reads: whole seconds left, rounded up.
func (g *faultGate) secondsLeft(now time.Time) int {
	left := g.until.Load() - now.UnixNano()
	if g.until.Load() == 0 || left <= 0 {
		return 0
	}
	return int((time.Duration(left) + time.Second - 1) / time.Second)
}
