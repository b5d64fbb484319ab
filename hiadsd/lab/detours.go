package lab

import "github.com/diagagent/diagagent/hiadsd"

// hiadsdDetours runs Hi-ADSD with Detours (seed 004, section 2.1.3).
func (r *run) hiadsdDetours() {
	r.hierarchical(r.detourLevel)
}

// detourLevel tests the head j = i xor 2^(s-1) of c_{i,s}. If j is a source it
// supplies the whole cluster, as in Hi-ADSD. Otherwise each subcluster c_{j,t},
// t < s, is taken from the detour node i xor 2^(t-1), whose own level-s tests
// reach c_{j,t} in the same number of hops; only when that node is not held
// fault-free or does not answer are the members of c_{j,t} tested. It reports
// whether any source answered.
func (r *run) detourLevel(lvl int) bool {
	b := r.b
	size := b.cfg.N
	j := b.id ^ 1<<(lvl-1)
	if j < size && r.isSource(j, r.test(j)) && r.fetch(j, []hiadsd.Range{clusterRange(b.id, lvl, size)}, true) {
		return true
	}
	found := false
	for t := 1; t < lvl; t++ {
		sub := []hiadsd.Range{clusterRange(j, t, size)}
		if sub[0].Len() == 0 {
			continue
		}
		if k := DetourVia(b.id, t); k < size && b.isTester(k) && r.fetch(k, sub, true) {
			found = true
			continue
		}
		if r.searchList(hiadsd.ClusterHiADSD(j, t, size), sub) {
			found = true
		}
	}
	return found
}

// DetourVia returns the node through which node i reaches the subcluster
// c_{j,t} of its faulty cluster head j: i xor 2^(t-1), the head of c_{i,t}.
func DetourVia(i, t int) int { return i ^ 1<<(t-1) }
