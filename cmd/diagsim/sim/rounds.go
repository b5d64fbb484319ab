package sim

// rounds counts testing rounds: a round ends when every node that is testing
// has finished at least one interval since the round began.
type rounds struct {
	index int      // the round in progress, from 1
	mark  []uint32 // the last round each node finished an interval in
	left  int      // testing nodes yet to finish one in this round
}

// newRounds starts round 1 now, over the nodes for which testing is true.
func newRounds(n int, testing func(int) bool) *rounds {
	r := &rounds{index: 1, mark: make([]uint32, n)}
	r.recount(testing)
	return r
}

// recount recomputes who is still owed an interval after the set of testing
// nodes changed; it reports whether that closed the round.
func (r *rounds) recount(testing func(int) bool) bool {
	r.left = 0
	for id := range r.mark {
		if testing(id) && r.mark[id] != uint32(r.index) {
			r.left++
		}
	}
	return r.closeIfDone(testing)
}

// finished records that node id ended an interval; it reports whether that
// closed the round.
func (r *rounds) finished(id int, testing func(int) bool) bool {
	if r.mark[id] == uint32(r.index) {
		return false
	}
	r.mark[id] = uint32(r.index)
	r.left--
	return r.closeIfDone(testing)
}

func (r *rounds) closeIfDone(testing func(int) bool) bool {
	if r.left > 0 {
		return false
	}
	r.index++
	for id := range r.mark {
		if testing(id) {
			r.left++
		}
	}
	return true
}
