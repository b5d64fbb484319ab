package membership

import (
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/agent/state"
)

// fakeHost counts what the room asks of the agent.
type fakeHost struct {
	now                    time.Time
	saves, publishes, runs int
	saveErr                error
}

func (h *fakeHost) Now() time.Time       { return h.now }
func (h *fakeHost) Save() error          { h.saves++; return h.saveErr }
func (h *fakeHost) PublishNext()         { h.publishes++ }
func (h *fakeHost) Apply()               { h.runs++ }
func (h *fakeHost) Conflict(int, string) {}

func node(k int) nodelist.Member {
	return nodelist.Member{Addr: netip.AddrFrom4([4]byte{198, 18, 0, byte(k + 1)}), Port: 161}
}

// newTestRoom builds the room of agent self among n nodes of a file, on
// state st.
func newTestRoom(t *testing.T, n, self int, st state.State) (*Membership, *fakeHost, Start) {
	t.Helper()
	var nodes []nodelist.Member
	for k := range n {
		nodes = append(nodes, node(k))
	}
	h := &fakeHost{now: time.Date(2026, 11, 29, 4, 0, 0, 0, time.UTC)}
	m, s, err := New(Options{Nodes: nodes, Self: self, StateDir: t.TempDir(), Interval: 2 * time.Second, Host: h}, st, h.now)
	if err != nil {
		t.Fatal(err)
	}
	return m, h, s
}

// TestAChangeIsQueuedAndSavedBeforeItReturns: an added node is on the
// latest list, queued for the next interval, served as the next id and
// saved before AddNode returns; a failed save says so (ErrUnsaved) and
// the change still holds.
func TestAChangeIsQueuedAndSavedBeforeItReturns(t *testing.T) {
	m, h, s := newTestRoom(t, 4, 0, state.State{})
	if s.ID != 0 || s.List.Count() != 4 || m.Pending() != nil {
		t.Fatalf("start: id %d, %d nodes, queued %v", s.ID, s.List.Count(), m.Pending())
	}
	printer := node(9)
	printer.TestedOnly = true
	if err := m.AddNode(int(m.NextID())-1, printer); err != nil {
		t.Fatal(err)
	}
	if p := m.Pending(); p == nil || p.IndexOf(printer) != 4 || h.saves != 1 || h.publishes != 1 || m.NextID() != 6 {
		t.Fatalf("queued %v, saves %d, publishes %d, next id %d", p, h.saves, h.publishes, m.NextID())
	}
	var st state.State
	m.Saved(&st)
	if st.Pending == nil || st.Pending.IndexOf(printer) != 4 {
		t.Fatalf("the state to save holds no queued change: %+v", st.Pending)
	}
	h.saveErr = errors.New("disk full")
	if err := m.RemoveNode(4); !errors.Is(err, ErrUnsaved) {
		t.Fatalf("a change not saved: %v, want ErrUnsaved", err)
	}
	if m.Latest().IndexOf(printer) >= 0 {
		t.Errorf("the removal not saved is lost in memory too")
	}
	next := m.Pending()
	m.Applied(next)
	if m.Pending() != nil {
		t.Errorf("the list run is still queued after Applied")
	}
}

// TestAnAgentDoesNotRemoveItself: its own node is removed through another
// agent, never here, and CheckNode says so before any change.
func TestAnAgentDoesNotRemoveItself(t *testing.T) {
	m, h, _ := newTestRoom(t, 4, 2, state.State{})
	if err := m.CheckNode(2, nil); !errors.Is(err, ErrRemoveSelf) {
		t.Errorf("CheckNode of its own node: %v", err)
	}
	if err := m.RemoveNode(2); !errors.Is(err, ErrRemoveSelf) || m.Pending() != nil || h.saves != 0 {
		t.Errorf("RemoveNode of its own node: %v, queued %v, saves %d", err, m.Pending(), h.saves)
	}
}

// TestStartRunsTheStatesList: an agent restarted with a list its state
// holds (changed since the file) runs that list with the change it had
// queued, and a reload of the file it last read changes nothing; a reload
// that drops a node removes it.
func TestStartRunsTheStatesList(t *testing.T) {
	m, h, s := newTestRoom(t, 4, 0, state.State{})
	if err := m.RemoveNode(3); err != nil {
		t.Fatal(err)
	}
	var st state.State
	m.Saved(&st)
	st.List = &s.List
	again, _, s2 := newTestRoom(t, 4, 0, st)
	if p := again.Pending(); p == nil || p.IndexOf(node(3)) >= 0 {
		t.Fatalf("a restart before the change ran lost it: queued %v", p)
	}
	file := []nodelist.Member{node(0), node(1), node(2), node(3)}
	if _, changed, err := again.Reload(file, nil); err != nil || changed {
		t.Errorf("reloading the file last read: changed %v, %v", changed, err)
	}
	if _, changed, err := again.Reload([]nodelist.Member{node(0), node(1), node(3)}, nil); err != nil || !changed || again.Latest().IndexOf(node(2)) >= 0 {
		t.Errorf("reloading a file without node 3: changed %v, %v", changed, err)
	}
	if s2.List.Count() != 4 || h.saves != 1 {
		t.Errorf("start list of %d nodes, first room's saves %d", s2.List.Count(), h.saves)
	}
}

// TestAMovedDeviceIsToldEachMove: a device added here whose id a merge
// moved is told once for that id, and again when a later merge moves it
// once more, so the station's last word names the id it holds.
func TestAMovedDeviceIsToldEachMove(t *testing.T) {
	m, _, _ := newTestRoom(t, 4, 0, state.State{})
	added := nodelist.Stamp{Time: 7 << 16, Origin: 1}
	at := func(entry int) nodelist.List {
		l := nodelist.List{Members: make([]nodelist.Member, 12)}
		l.Members[entry].Added = added
		return l
	}
	moved := func(entry int) []nodelist.Conflict {
		return []nodelist.Conflict{{Kind: "id", Node: entry, Entry: entry, Change: added}}
	}
	for _, step := range []struct {
		entry int
		told  bool
	}{{8, true}, {8, false}, {10, true}, {10, false}} {
		got := m.untold(moved(step.entry), at(step.entry))
		if told := len(got) == 1; told != step.told {
			t.Errorf("moved to node %d: told %v, want %v", step.entry+1, told, step.told)
		}
	}
}
