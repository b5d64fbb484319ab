package daemon

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/agent/notify"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/traps"
)

// addHost adds a host to the mock LAN, with no agent running yet, and
// returns its id.
func (m *mockNet) addHost() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.boards, m.agents, m.sinks = append(m.boards, board.New()), append(m.agents, nil), append(m.sinks, &sink{})
	m.state = append(m.state, hiadsd.Partial)
	return len(m.agents) - 1
}

// rowOf returns the row of NodeID id in a snapshot, nil if it has none.
func rowOf(s *board.Snapshot, id uint32) *board.Row {
	for k := range s.Nodes {
		if s.Nodes[k].ID == id {
			return &s.Nodes[k]
		}
	}
	return nil
}

// noSuspicion fails the test if any agent recorded a faulty or partial
// verdict, or notified a list conflict.
func (m *mockNet) noSuspicion() {
	m.t.Helper()
	for id, s := range m.sinks {
		s.mu.Lock()
		for _, e := range s.events {
			if e.Status == hiadsd.Faulty || e.Status == hiadsd.Partial {
				m.t.Errorf("agent %d notified node %d %v", id+1, e.NodeID, e.Status)
			}
		}
		if len(s.lists) > 0 {
			m.t.Errorf("agent %d notified list conflicts: %+v", id+1, s.lists)
		}
		s.mu.Unlock()
	}
}

// changes returns what agent id notified of list changes.
func (m *mockNet) changes(id int) []traps.ListChange {
	s := m.sinks[id]
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.change)
}

// TestMockNetJoinAndLeave: eight vCube agents run; a ninth host starts its
// agent with the list that includes it and is added by a SET on agent 3;
// then host 6 is removed by a reload on agent 2. Each change reaches every
// agent within hiadsd.MembershipBound rounds, the new node is held up
// everywhere and the removed one leaves every table, the agent where each
// change was made notifies it once, and nobody suspects anybody. An agent
// restarted with the file it started from keeps the list it learned; one
// whose file was edited while it was down makes that edit the next change.
func TestMockNetJoinAndLeave(t *testing.T) {
	m := newMockNet(t, 8, hiadsd.VCube, notify.Detected)
	m.settled(8)
	joiner := m.addHost()
	cfg := m.cfg
	cfg.Nodes = append(slices.Clone(m.cfg.Nodes), nodelist.Member{Addr: addr(joiner), Port: 161})
	cfg.StartupGrace = time.Minute // started before the change reaches everyone
	m.startWith(joiner, cfg)
	if err := m.agents[2].members.AddNode(joiner, nodelist.Member{Addr: addr(joiner), Port: 161}); err != nil {
		t.Fatal(err)
	}
	bound := hiadsd.MembershipBound(hiadsd.VCube, 9)
	r := m.until(bound, "every agent runs version 1 and holds node 9 up", func() bool {
		for _, d := range m.agents {
			if row := rowOf(d.Snapshot(), 9); d.list.Version != 1 || row == nil || row.Status != hiadsd.FaultFree {
				return false
			}
		}
		return true
	})
	t.Logf("join: %d rounds (bound %d)", r, bound)
	if got := m.changes(2); len(got) != 1 || got[0].Node != 9 || got[0].Removed || got[0].Version != 1 {
		t.Errorf("agent 3 notified %+v, want node 9 added at version 1", got)
	}

	file := slices.Delete(slices.Clone(cfg.Nodes), 5, 6)
	if v, changed, err := m.agents[1].members.Reload(file, nil); err != nil || !changed || v != 2 {
		t.Fatalf("Reload = %d, %v, %v; want version 2", v, changed, err)
	}
	bound = hiadsd.MembershipBound(hiadsd.VCube, 9)
	r = m.until(bound, "every agent runs version 2 without node 6", func() bool {
		for id, d := range m.agents {
			if d.list.Version != 2 || (id != 5 && rowOf(d.Snapshot(), 6) != nil) {
				return false
			}
		}
		return true
	})
	t.Logf("leave: %d rounds (bound %d)", r, bound)
	if !m.agents[5].removed {
		t.Error("agent 6 does not know it was removed")
	}
	if got := m.changes(1); len(got) != 1 || got[0].Node != 6 || !got[0].Removed || got[0].Version != 2 {
		t.Errorf("agent 2 notified %+v, want node 6 removed at version 2", got)
	}
	for id := range m.agents {
		if id != 1 && id != 2 && len(m.changes(id)) > 0 {
			t.Errorf("agent %d notified a change it did not make: %+v", id+1, m.changes(id))
		}
	}
	m.noSuspicion()

	m.stop(3, false) // restarted with the file it started from: the list it learned stands
	m.start(3)
	if got := m.agents[3].list.Version; got != 2 || rowOf(m.agents[3].Snapshot(), 9) == nil || rowOf(m.agents[3].Snapshot(), 6) != nil {
		t.Errorf("agent 4 restarted on list version %d, want 2 (with node 9, without node 6)", got)
	}

	m.stop(3, false) // its file edited while it was down: a change made there at its first interval
	edited := cfg
	edited.Nodes = slices.Delete(slices.Clone(file), 6, 7) // node 8 (host 7) goes too
	m.startWith(3, edited)
	m.until(bound, "every agent runs version 3", func() bool {
		for id, d := range m.agents {
			if id != 5 && id != 7 && d.list.Version != 3 {
				return false
			}
		}
		return true
	})
	if got := m.changes(3); len(got) != 1 || got[0].Node != 8 || !got[0].Removed || got[0].Version != 3 {
		t.Errorf("agent 4 notified %+v, want node 8 removed at version 3", got)
	}
}

// lost returns what agent id notified of changes that lost.
func (m *mockNet) lost(id int) []traps.ListConflict {
	s := m.sinks[id]
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.lost)
}

// agree reports whether every running agent runs one list (one
// fingerprint) and ok holds of it at each.
func (m *mockNet) agree(ok func(d *Daemon) bool) bool {
	var hash [8]byte
	first := true
	for _, d := range m.agents {
		if d == nil {
			continue
		}
		if (!first && d.list.Hash != hash) || !ok(d) {
			return false
		}
		hash, first = d.list.Hash, false
	}
	return true
}

// TestMockNetChangesAtOnce: the two findings of issue 41, on eight vCube
// agents. Windows set at once on nodes 3 and 5 at agents 1 and 2 are both
// kept everywhere. Two nodes added at once at agents 1 and 2, each as the
// next id (9), are both listed everywhere, under ids 9 and 10: the one
// stamped later moved, and only its agent says so (diagNodeListConflict).
// Two windows set at once on node 4 at agents 3 and 4 settle everywhere on
// the one stamped last, and only the agent whose window lost says so. Each
// change reaches every agent within hiadsd.MembershipBound rounds.
func TestMockNetChangesAtOnce(t *testing.T) {
	m := newMockNet(t, 8, hiadsd.VCube, notify.Detected)
	m.settled(8)
	bound := hiadsd.MembershipBound(hiadsd.VCube, 10)
	until := m.clock.Now().Add(10 * time.Minute)
	for _, c := range []struct{ agent, node int }{{0, 3}, {1, 5}} {
		if err := m.agents[c.agent].SetMaintenance(uint32(c.node), until); err != nil {
			t.Fatal(err)
		}
	}
	r := m.until(bound, "every agent holds both windows", func() bool {
		return m.agree(func(d *Daemon) bool { return d.inMaintenance(2) && d.inMaintenance(4) })
	})
	t.Logf("two windows at once: both everywhere after %d rounds (bound %d)", r, bound)

	j1, j2 := m.addHost(), m.addHost()
	for k, j := range []int{j1, j2} {
		cfg := m.cfg // each new host's file lists the hosts up to it (the mock's id is its host)
		for h := 8; h <= j; h++ {
			cfg.Nodes = append(slices.Clone(cfg.Nodes), nodelist.Member{Addr: addr(h), Port: 161})
		}
		cfg.StartupGrace = time.Minute
		m.startWith(j, cfg)
		if next := (int(m.agents[k].members.NextID()) - 1); next != 8 {
			t.Fatalf("agent %d gives id %d next, want 9", k+1, next+1)
		}
		if err := m.agents[k].members.AddNode(8, nodelist.Member{Addr: addr(j), Port: 161, Name: fmt.Sprintf("new-%d", k+1)}); err != nil {
			t.Fatal(err)
		}
	}
	r = m.until(bound, "every agent lists both new nodes, under ids 9 and 10, up", func() bool {
		return m.agree(func(d *Daemon) bool {
			a, b := d.list.Find(addr(j1), 161), d.list.Find(addr(j2), 161)
			return min(a, b) == 8 && max(a, b) == 9 && rowOf(d.Snapshot(), 9) != nil && rowOf(d.Snapshot(), 9).Status == hiadsd.FaultFree &&
				rowOf(d.Snapshot(), 10) != nil && rowOf(d.Snapshot(), 10).Status == hiadsd.FaultFree
		})
	})
	t.Logf("two nodes at once as id 9: both everywhere after %d rounds (bound %d)", r, bound)
	moved := 0 // the agent whose node is at id 10 now
	if m.agents[0].list.Find(addr(j1), 161) == 8 {
		moved = 1
	}
	if l := m.lost(moved); len(l) != 1 || l[0].Node != 10 || l[0].Winner != uint32(2-moved) || !strings.Contains(l[0].Reason, "is node 10") {
		t.Errorf("agent %d, whose node moved: notified %+v, want one conflict about node 10 won by agent %d", moved+1, l, 2-moved)
	}
	if l := m.lost(1 - moved); len(l) != 0 {
		t.Errorf("agent %d, whose node kept id 9: notified %+v", 2-moved, l)
	}
	if c := m.changes(moved); len(c) != 1 || c[0].Removed || c[0].Addr != addr([]int{j1, j2}[moved]) {
		t.Errorf("agent %d notified the list changes %+v, want its node added", moved+1, c)
	}
	for _, j := range []int{j1, j2} {
		if s := m.agents[j].Snapshot(); s.Self != uint32(m.agents[j].list.Find(addr(j), 161)+1) {
			t.Errorf("the new agent on host %d serves itself as node %d", j+1, s.Self)
		}
	}

	u3, u4 := m.clock.Now().Add(time.Hour), m.clock.Now().Add(2*time.Hour)
	if err := m.agents[2].SetMaintenance(4, u3); err != nil {
		t.Fatal(err)
	}
	if err := m.agents[3].SetMaintenance(4, u4); err != nil {
		t.Fatal(err)
	}
	r = m.until(bound, "every agent holds one window on node 4", func() bool {
		return m.agree(func(d *Daemon) bool { return d.inMaintenance(3) })
	})
	t.Logf("two windows at once on node 4: one list after %d rounds", r)
	won := m.agents[0].list.Members[3].Maint.Until
	loser := 2
	if won.Equal(u3.Truncate(time.Second)) {
		loser = 3
	}
	if l := m.lost(loser); len(l) != 1 || l[0].Node != 4 || !strings.Contains(l[0].Reason, "replaced by one set at once") {
		t.Errorf("agent %d, whose window lost: notified %+v, want one conflict about node 4", loser+1, l)
	}
	for id := range m.agents {
		if id != loser && id != moved && len(m.lost(id)) > 0 {
			t.Errorf("agent %d notified a conflict of a change it did not make: %+v", id+1, m.lost(id))
		}
	}
	m.noSuspicion()
}
