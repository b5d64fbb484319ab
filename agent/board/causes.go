package board

import "github.com/diagagent/diagagent/hiadsd"

// Out reports whether a node of status st is a cause of faults: faulty or
// partial, and not in a maintenance window. A degraded node is up, and an
// unknown one has not been tested yet; neither is a cause.
func Out(st hiadsd.Status, inMaintenance bool) bool {
	return (st == hiadsd.Faulty || st == hiadsd.Partial) && !inMaintenance
}

// Causes groups nodes out as the agent grouped its notifications, the one
// grouping every display uses (the page, the metrics, members -causes and
// check): the nodes of one group (group returns its diagCauseGroup,
// nodeCauseGroup's value, 0 for a node out alone) are one cause, and every
// other node is a cause of its own. Causes keep the order of their first
// node in nodes; the caller gives only the nodes out.
func Causes[T any](nodes []T, group func(T) uint32) [][]T {
	var out [][]T
	at := map[uint32]int{} // group id → its cause's index in out
	for _, n := range nodes {
		g := group(n)
		if k, ok := at[g]; ok && g != 0 {
			out[k] = append(out[k], n)
			continue
		}
		if g != 0 {
			at[g] = len(out)
		}
		out = append(out, []T{n})
	}
	return out
}
