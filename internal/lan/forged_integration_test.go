//go:build integration && linux

package lan

import (
	"encoding/hex"
	"strconv"
	"strings"
	"testing"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// TestForgedPushLAN replays, on eight agents, the forged pushes that once
// poisoned the diagnosis: one snmpset of diagPush.0 to agent 1, in agent 2's
// name, with the list version and fingerprint agent 1 serves (as anyone with
// the read community can learn them), holding three live nodes down:
//   - node 4 faulty with a counter 1,000 ahead (within hiadsd.MaxLead): agent 1
//     takes it, finds the disagreement at its next interval, tests node 4 and
//     pushes the truth; the verdict may not outlive the bound;
//   - node 5 faulty 65,537 ahead (past MaxLead): refused, logged, never taken;
//   - node 6 faulty at 4294967295, the top of the counters: behind node 6's
//     counter as a serial number, so older news, never taken.
func TestForgedPushLAN(t *testing.T) {
	t.Parallel()
	c := startCluster(t, ciSpec(t, "fp", "vcube", 8, false))
	all := ids(c.Agents)
	settled(t, c, "before the forgery")
	version, err := c.snmp("snmpget", "public", c.AgentAddr(0), "-Oqv", mib.DiagNodeListVersion0)
	must(t, err)
	v, err := strconv.ParseUint(strings.TrimSpace(version), 10, 32)
	must(t, err)
	hash, err := c.snmp("snmpget", "public", c.AgentAddr(0), "-Oqvx", mib.DiagNodeListHash0)
	must(t, err)
	h, err := hex.DecodeString(strings.Join(strings.Fields(strings.Trim(strings.TrimSpace(hash), `"`)), ""))
	if err != nil || len(h) != 8 {
		t.Fatalf("diagNodeListHash.0 reads %q: %v", hash, err)
	}
	counter := func(node int) uint32 {
		out, err := c.snmp("snmpget", "public", c.AgentAddr(0), "-Oqv", mib.NodeEventCounter+"."+strconv.Itoa(node))
		must(t, err)
		n, err := strconv.ParseUint(strings.TrimSpace(out), 10, 32)
		must(t, err)
		return uint32(n)
	}
	held4, held5, held6 := counter(4), counter(5), counter(6)
	p := board.Push{From: 2, Cluster: 1, ListVersion: uint32(v), Entries: []board.PushEntry{
		{NodeID: 4, Status: hiadsd.Faulty, Counter: held4 + 1000},
		{NodeID: 5, Status: hiadsd.Faulty, Counter: held5 + hiadsd.MaxLead + 1},
		{NodeID: 6, Status: hiadsd.Faulty, Counter: 1<<32 - 1},
	}}
	copy(p.ListHash[:], h)
	b, err := board.MarshalPush(p)
	must(t, err)
	mark := c.Mark()
	if out, err := c.snmp("snmpset", "private", c.AgentAddr(0), mib.DiagPush0, "x", hex.EncodeToString(b)); err != nil {
		t.Fatalf("snmpset diagPush.0: %v\n%s", err, out)
	}
	refused := func(evs []Event) bool {
		for _, e := range evs {
			if e.Self == 1 && e.Node == 5 && e.New == Refused {
				return true
			}
		}
		return false
	}
	took := func(evs []Event) bool {
		for _, e := range evs {
			if e.Self == 1 && e.Node == 4 && e.New == "faulty" {
				return true
			}
		}
		return false
	}
	must(t, c.WaitEvents(c.Bound(), mark, func(evs []Event) bool { return refused(evs) && took(evs) }))
	took4, err := c.Poll(c.Bound(), func() bool { return c.AllSee(all, []int{4}, 0) })
	if err != nil {
		t.Fatalf("node 4, held faulty by a forged push, is not fault-free again everywhere within the bound (%v): %v", c.Bound(), err)
	}
	settled(t, c, "after the forgery")
	down := map[int]bool{}
	for _, e := range c.Events(mark) {
		switch {
		case e.Node == 5 || e.Node == 6:
			if e.Change() {
				t.Errorf("agent %d logged node %d %s -> %s (%s): the forged entry about it changed a view", e.Self, e.Node, e.Old, e.New, e.How)
			}
			if e.Node == 6 && e.New == Refused {
				t.Errorf("agent %d refused node 6 at 4294967295 as too far ahead: as a serial number it is behind the counter held", e.Self)
			}
		case e.Node == 4 && e.New == "faulty":
			down[e.Self] = true
		}
	}
	if got := counter(6); got == 1<<32-1 {
		t.Errorf("agent 1 holds node 6 at counter %d, the forged one", got)
	}
	t.Logf("node 4 held faulty by %d agents, fault-free again everywhere %v after the forgery took (interval %v, bound %v); node 5 refused, node 6 older news (counters held: %d, %d, %d)",
		len(down), took4, c.Spec.Interval, c.Bound(), held4, held5, held6)
}
