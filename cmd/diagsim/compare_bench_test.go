package main

import (
	"testing"

	"github.com/diagagent/diagagent/cmd/diagsim/sim"
	"github.com/diagagent/diagagent/hiadsd/lab"
)

// BenchmarkMeasure1024 times one comparison cell at the largest size of make
// compare with one fault position: the fault-free run plus one fault run. The
// whole report is 8 sizes by 8 algorithms, up to 16 positions each.
func BenchmarkMeasure1024(b *testing.B) {
	so := sweepOptions{Samples: 1, Start: sim.Random, Seed: 1, Rounds: 8}
	for _, a := range lab.Algorithms() {
		b.Run(a.String(), func(b *testing.B) {
			for b.Loop() {
				if _, err := measure(a, 1024, so); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
