package daemon

import (
	"slices"
	"testing"
	"time"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/nodelist"
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
	m := newMockNet(t, 8, hiadsd.VCube, NotifyDetected)
	m.until(2*hiadsd.Levels(8), "every agent knows every node", func() bool {
		for k := range 8 {
			if !m.everyone(k, hiadsd.FaultFree, -1) {
				return false
			}
		}
		return true
	})
	joiner := m.addHost()
	cfg := m.cfg
	cfg.Nodes = append(slices.Clone(m.cfg.Nodes), nodelist.Member{Addr: addr(joiner), Port: 161})
	cfg.StartupGrace = time.Minute // started before the change reaches everyone
	m.startWith(joiner, cfg)
	if err := m.agents[2].AddNode(joiner, nodelist.Member{Addr: addr(joiner), Port: 161}); err != nil {
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
	if v, changed, err := m.agents[1].Reload(file, nil); err != nil || !changed || v != 2 {
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
