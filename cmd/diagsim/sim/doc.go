// Package sim is the discrete-event simulator behind cmd/diagsim.
//
// Run builds a lab.Network, gives every testing node a testing interval of
// Interval plus or minus a uniform amount up to Jitter, applies a schedule of
// faults, partial faults and repairs, and steps each node's hiadsd.Node when
// its interval ends. It counts, per event, how many fault-free nodes hold the
// new status after k of their own intervals (Tables 3 and 4 of seed 002) and
// in how many testing rounds; a round ends when every fault-free testing node
// has finished at least one interval since the round began. Everything is
// driven by one seeded *rand.Rand, so a run is reproducible.
package sim
