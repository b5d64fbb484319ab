// Command diagsim simulates the diagnosis algorithms of package hiadsd on an
// in-memory network of N nodes and reports how each scheduled event spreads.
//
//	diagsim -algo hiadsd -n 64 -start sync -event "fault 5@100" -json
//
// Flags (a contract; scripts rely on the names): -algo hiadsd|vcube|vring|bruteforce|
// adsdwi|hiadsd-detours|hiadsd-timestamps|hicomp (a comma list runs each), -n, -start sync|random (a comma list runs each),
// -seed, -interval, -jitter, -event "fault|repair|partial|station NODE@TIME"
// (repeatable), -rounds, -tested-only, -json, -plot FILE.png.
//
// The compare subcommand measures every algorithm on a list of sizes and
// writes one markdown table, with the seeds' figures beside the measured ones
// and an explanation of each difference, plus log-log plots:
//
//	diagsim compare -n 8,16,32,64,128,256,512,1024 -out docs/compare.md -plots docs
package main
