// Command diagsim simulates the diagnosis algorithms of package hiadsd on an
// in-memory network of N nodes and reports how each scheduled event spreads.
//
//	diagsim -algo hiadsd -n 64 -start sync -event "fault 5@100" -json
//
// Flags (a contract; scripts rely on the names): -algo hiadsd|vcube|vring|bruteforce
// (a comma list runs each), -n, -start sync|random (a comma list runs each),
// -seed, -interval, -jitter, -event "fault|repair|partial NODE@TIME"
// (repeatable), -rounds, -tested-only, -json, -plot FILE.png.
package main
