package daemon

import (
	"encoding/binary"

	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/hiadsd"
)

// isolation is hiadsd.Config.Isolation for the daemon: an agent that
// reaches none of the peers it tests holds its verdicts back for this many
// intervals, suspecting its own link (hiadsd/isolation.go).
const isolation = 2

// core returns the core's configuration the daemon runs on list l: its
// size and its tested-only and removed ids.
func (c Config) core(l nodelist.List) *hiadsd.Config {
	cc := &hiadsd.Config{Algorithm: c.Algorithm, Recheck: true, Push: true, Isolation: isolation, Vantage: c.Vantage,
		Rotate: c.Rotate && c.Algorithm == hiadsd.VCube, N: len(l.Members)}
	for k, m := range l.Members {
		switch {
		case m.Removed:
			cc.Removed = append(cc.Removed, k)
		case m.TestedOnly:
			cc.TestedOnly = append(cc.TestedOnly, k)
		}
	}
	return cc
}

// coreVersion is list l's version as the core compares lists.
func coreVersion(l nodelist.List) hiadsd.ListVersion {
	return hiadsd.ListVersion{Counter: l.Version, Hash: binary.BigEndian.Uint64(l.Hash[:])}
}
