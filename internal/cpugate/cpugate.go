// Package cpugate admits the heavy tests (a LAN of agents, a build for
// several platforms) while the machine has CPU to spare, so that the suite
// runs as many at once as the machine holds rather than a count fixed for
// one machine. It reads the kernel's pressure stall information for the CPU
// (/proc/pressure/cpu, Linux 4.20 and later): "some avg10" is the share of
// the last ten seconds in which at least one runnable task waited for a
// core. The agents of a LAN test time their replies, so a starved machine
// turns into late replies and false verdicts: on a 2-core machine whose
// system calls cost about twice another's (page-table isolation on), the
// same four LANs at once that passed on the other starved it.
package cpugate

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Limit is the pressure, in percent, under which Wait admits: CPU_GATE in
// the environment, 40 unless set; 100 admits at once.
func Limit() float64 {
	if s := os.Getenv("CPU_GATE"); s != "" {
		if v, err := strconv.ParseFloat(s, 64); err == nil && v > 0 {
			return v
		}
		panic(fmt.Sprintf("CPU_GATE=%q: want a percentage above 0", s))
	}
	return 40
}

// Wait returns once the CPU pressure is under Limit, or after most (a test
// is never held for good: the gate orders, it does not refuse), or at once
// where the kernel tells no pressure. It reports how long it waited.
func Wait(most time.Duration) time.Duration {
	limit, begun := Limit(), time.Now()
	for time.Since(begun) < most {
		if p, ok := Pressure(); admits(p, ok, limit) {
			break
		}
		time.Sleep(time.Second)
	}
	return time.Since(begun)
}

// admits reports whether a test may start at pressure p (ok: read) under
// limit: where no pressure is told, it starts.
func admits(p float64, ok bool, limit float64) bool { return !ok || p < limit }

// Pressure reads "some avg10" of /proc/pressure/cpu; ok is false where the
// file is absent or unreadable.
func Pressure() (avg10 float64, ok bool) {
	f, err := os.Open("/proc/pressure/cpu")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	return parse(bufio.NewScanner(f))
}

// parse finds avg10 on the "some" line of a pressure file.
func parse(s *bufio.Scanner) (float64, bool) {
	for s.Scan() {
		kind, rest, _ := strings.Cut(s.Text(), " ")
		if kind != "some" {
			continue
		}
		for _, field := range strings.Fields(rest) {
			if v, found := strings.CutPrefix(field, "avg10="); found {
				p, err := strconv.ParseFloat(v, 64)
				return p, err == nil
			}
		}
	}
	return 0, false
}
