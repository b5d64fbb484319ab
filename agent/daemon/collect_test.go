package daemon

import (
	"fmt"
	"slices"
	"testing"

	"github.com/diagagent/diagagent/agent/keyring"
	"github.com/diagagent/diagagent/agent/membership"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/agent/notify"
	"github.com/diagagent/diagagent/hiadsd"
)

// TestMockNetCollectsOnceEveryAgentRunsTheList: printers added and removed
// at one agent stay in every list, as removed entries, while one agent is
// down; once it is back and runs the list too, the list is collected
// everywhere (one list, a stamp of collection), the removed printers'
// ids are free, and the next add takes the first of them at every agent.
func TestMockNetCollectsOnceEveryAgentRunsTheList(t *testing.T) {
	const n = 6
	m := newMockNet(t, n, hiadsd.VCube, notify.Detected)
	m.settled(n)
	bound := hiadsd.MembershipBound(hiadsd.VCube, n+4)
	var printers []nodelist.Member
	for range 4 {
		p := nodelist.Member{Addr: addr(m.addHost()), Port: 161, TestedOnly: true}
		if err := m.agents[0].members.AddNode((int(m.agents[0].members.NextID()) - 1), p); err != nil {
			t.Fatal(err)
		}
		printers = append(printers, p)
	}
	m.until(bound, "every agent lists the printers", func() bool {
		return m.agree(func(d *Daemon) bool { return d.list.Count() == n+4 })
	})
	m.stop(4, true)
	for _, p := range printers[:3] {
		if err := m.agents[1].members.RemoveNode(m.agents[1].list.IndexOf(p)); err != nil {
			t.Fatal(err)
		}
	}
	m.until(bound, "every running agent has the printers removed", func() bool {
		return m.agree(func(d *Daemon) bool { return d.list.Count() == n+1 })
	})
	for range 3 * membership.CollectEvery {
		m.round()
	}
	for id, d := range m.agents {
		if d != nil && !d.list.Stable.IsZero() {
			t.Fatalf("agent %d collected its list while agent 5, down, had not seen the removals", id+1)
		}
	}
	m.start(4)
	m.until(4*membership.CollectEvery+bound, "every agent runs one collected list", func() bool {
		return m.agree(func(d *Daemon) bool { return !d.list.Stable.IsZero() && d.list.Hash == m.agents[0].list.Hash })
	})
	l := m.agents[0].list
	if l.Count() != n+1 || l.NextID() != n || l.IndexOf(printers[3]) != n+3 {
		t.Fatalf("collected list: %d members, next id %d, the printer that stays at id %d", l.Count(), l.NextID()+1, l.IndexOf(printers[3])+1)
	}
	again := nodelist.Member{Addr: addr(m.addHost()), Port: 161, TestedOnly: true}
	if err := m.agents[2].members.AddNode(n, again); err != nil {
		t.Fatalf("an add at the first freed id: %v", err)
	}
	m.until(bound, "every agent lists the new printer at the freed id", func() bool {
		return m.agree(func(d *Daemon) bool {
			return d.list.IndexOf(again) == n && d.Snapshot().Nodes[n].Member.Addr == again.Addr
		})
	})
}

// TestMockNetChangesTravelAsChanges: once every agent holds a change, one
// more add costs each agent about the add itself, not the list: at 64
// agents, the octets of lists read to spread it stay within 4 x its
// encoding x N (BenchmarkSpreadOneAdd measures 1,024).
func TestMockNetChangesTravelAsChanges(t *testing.T) {
	spreadOneAdd(t, 64)
}

// BenchmarkSpreadOneAdd measures, at 1,024 agents on the mock network,
// the octets of lists read to spread one add to every agent, against the
// bound 4 x its encoding x N: go test -run '^$' -bench SpreadOneAdd
// ./agent/daemon.
func BenchmarkSpreadOneAdd(b *testing.B) {
	for b.Loop() {
		spent, size := spreadOneAdd(b, 1024)
		b.ReportMetric(float64(spent)/1024, "octets/agent")
		b.ReportMetric(float64(size), "octets/add")
	}
}

// spreadOneAdd runs n agents until each holds a first add, then spreads a
// second and returns the octets of lists read for it and the add's
// encoding; past 4 x its encoding x n it fails tb.
func spreadOneAdd(tb testing.TB, n int) (int, int) {
	m := newMockNet(tb, n, hiadsd.VCube, notify.Detected)
	m.settled(n)
	bound := hiadsd.MembershipBound(hiadsd.VCube, n+2)
	first := nodelist.Member{Addr: addr(m.addHost()), Port: 161, TestedOnly: true, Name: "printer 1"}
	if err := m.agents[0].members.AddNode(n, first); err != nil {
		tb.Fatal(err)
	}
	m.until(bound, "every agent lists the first printer", func() bool {
		return m.agree(func(d *Daemon) bool { return d.list.IndexOf(first) >= 0 })
	})
	m.mu.Lock()
	whole := m.listOctets
	m.listOctets = 0
	m.mu.Unlock()
	second := nodelist.Member{Addr: addr(m.addHost()), Port: 161, TestedOnly: true, Name: "printer 2"}
	if err := m.agents[5].members.AddNode(n+1, second); err != nil {
		tb.Fatal(err)
	}
	m.until(bound, "every agent lists the second printer", func() bool {
		return m.agree(func(d *Daemon) bool { return d.list.IndexOf(second) >= 0 })
	})
	l := m.agents[0].list
	size := l.Members[l.IndexOf(second)].EncodedSize()
	m.mu.Lock()
	spent := m.listOctets
	m.mu.Unlock()
	tb.Logf("N = %d: the first add (each agent holding no change yet, whole lists): %d octets read; the second: %d octets, %.1f per agent, the add's encoding %d octets, the list's %d",
		n, whole, spent, float64(spent)/float64(n), size, len(l.Marshal()))
	if spent > 4*size*n {
		tb.Fatalf("%d octets read to spread an add of %d octets to %d agents: more than 4 x its encoding x N (%d)", spent, size, n, 4*size*n)
	}
	return spent, size
}

// TestMockNet500KeyRotations: four agents with the cluster key rotate it
// 500 times, one agent after another (install, use, remove the old one,
// as diagagent keyring does); after each, once every agent runs the list,
// it is collected. Every agent's list decodes all along (1.0 refused the
// 128th rotation) and keeps one size.
func TestMockNet500KeyRotations(t *testing.T) {
	first, _ := keyring.Generate()
	m := newMockNetWith(t, 4, func(c *Config) { c.Keys = []keyring.Key{first} })
	m.settled(4)
	bound := hiadsd.MembershipBound(hiadsd.VCube, 4)
	cur, size := first, 0
	for r := range 500 {
		next, err := keyring.Generate()
		if err != nil {
			t.Fatal(err)
		}
		rotateKeys(t, m.agents[r%4], cur, next)
		cur = next
		m.until(4*membership.CollectEvery+3*bound, fmt.Sprintf("rotation %d: every agent runs one collected list sending with the new key", r+1), func() bool {
			return m.agree(func(d *Daemon) bool { return d.list.Keys[0] == next.Index() && d.list.Collectable() == 0 })
		})
		for id, d := range m.agents {
			got, err := nodelist.Unmarshal(d.list.Marshal())
			if err != nil || got.Hash != d.list.Hash {
				t.Fatalf("rotation %d: agent %d's list does not decode: %v", r+1, id+1, err)
			}
		}
		if n := len(m.agents[0].list.Marshal()); r == 0 {
			size = n
		} else if n != size {
			t.Fatalf("rotation %d: the list is %d octets, %d after the first", r+1, n, size)
		}
	}
	t.Logf("500 rotations: every agent's list %d octets, %d key slots", size, len(m.agents[0].list.KeySlots))
}

// TestMockNetFreedIDLeavesItsGroup: two agents added to a running LAN
// are lost together, one group out; once both are removed and the list
// collected, no agent holds their ids out in a group any more, and a node
// added at one of them is no part of it (nodeCauseGroup).
func TestMockNetFreedIDLeavesItsGroup(t *testing.T) {
	const n = 8
	m := newMockNetWith(t, n, func(c *Config) { c.GroupWindow, c.Notify = c.Interval+c.TestBudget, notify.Owner })
	m.settled(n)
	bound := hiadsd.MembershipBound(hiadsd.VCube, n+2)
	var added []nodelist.Member
	cfg := m.cfg
	for range 2 {
		k := m.addHost()
		a := nodelist.Member{Addr: addr(k), Port: 161}
		cfg.Nodes = append(slices.Clone(cfg.Nodes), a)
		added = append(added, a)
	}
	for k, a := range added {
		m.startWith(n+k, cfg)
		if err := m.agents[0].members.AddNode(n+k, a); err != nil {
			t.Fatal(err)
		}
	}
	m.settled(n + 2)
	m.stop(n, true)
	m.stop(n+1, true)
	window := hiadsd.PullBound(hiadsd.VCube, n+2, true) + 2
	m.until(3*window, "agent 1 holds the two added agents out in one group", func() bool {
		c := m.agents[0].Snapshot().Causes
		return c[n+1] != 0 && c[n+1] == c[n+2]
	})
	for _, a := range added {
		if err := m.agents[0].members.RemoveNode(m.agents[0].list.IndexOf(a)); err != nil {
			t.Fatal(err)
		}
	}
	m.until(4*membership.CollectEvery+3*bound, "every agent runs one list collected without them", func() bool {
		return m.agree(func(d *Daemon) bool { return d.list.NextID() == n })
	})
	for id, d := range m.agents {
		if d == nil {
			continue
		}
		if c := d.pol.CauseGroups(); c[n+1] != 0 || c[n+2] != 0 {
			t.Fatalf("agent %d holds ids %d and %d, removed and collected, out in groups %d and %d", id+1, n+1, n+2, c[n+1], c[n+2])
		}
	}
	printer := nodelist.Member{Addr: addr(m.addHost()), Port: 161, TestedOnly: true}
	if err := m.agents[0].members.AddNode(n, printer); err != nil {
		t.Fatal(err)
	}
	m.until(bound, "every agent lists the printer at the first freed id", func() bool {
		return m.agree(func(d *Daemon) bool { return d.list.IndexOf(printer) == n })
	})
	for id, d := range m.agents {
		if d == nil {
			continue
		}
		if g := d.Snapshot().Causes[n+1]; g != 0 {
			t.Fatalf("agent %d holds the printer at NodeID %d out in group %d, the removed agent's", id+1, n+1, g)
		}
	}
}
