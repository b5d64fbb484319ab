//go:build integration && linux

package lan

import (
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/keyring"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// TestVCubeLANKeyring runs eight agents and a printer with a keyring: the
// agents test, read and push each other as the SNMPv3 user derived from the
// cluster key, while the harness and the station keep the communities.
// tcpdump at agent 1 captures every SNMP datagram it exchanges with its
// peers while an agent is stopped and restarted (its engine boots change)
// and a push is forged with the write community: every one is SNMPv3, no
// community crosses the wire between agents, and every request, response
// and push is authPriv but the engine discoveries (one per peer, and one
// per restart) and their reports. The forged push gets noAccess and
// changes nothing.
func TestVCubeLANKeyring(t *testing.T) {
	t.Parallel()
	s := ciSpec(t, "kr", "vcube", 8, true)
	s.Keyring = true
	c := startCluster(t, s)
	all := ids(c.Agents)
	pcap := filepath.Join(c.Dir, "agent1.pcap")
	tcpdump, err := c.Net.Capture(0, pcap, "udp port 161")
	must(t, err)
	stopped := false
	defer func() {
		if !stopped {
			_ = tcpdump.Stop(5 * time.Second)
		}
	}()

	mark := c.Station.Mark()
	must(t, c.StopAgent(4))
	expect(t, c, "keyring: agent 5 stopped", mark, without(all, 4), 5, 2)
	mark = c.Station.Mark()
	must(t, c.StartAgent(4))
	expect(t, c, "keyring: agent 5 restarted", mark, all, 5, 0)
	// It said hello to its testers, one of which tested it at once.
	if n := c.LogLines(`"msg":"hello: asked to test the node now, testing it","node":5,`); n == 0 {
		t.Error("no agent tested agent 5 on its hello")
	}

	evMark := c.Mark()
	b, err := board.MarshalPush(board.Push{From: 2, Cluster: 1, Entries: []board.PushEntry{{NodeID: 4, Status: hiadsd.Faulty, Counter: 50}}})
	must(t, err)
	out, err := c.snmp("snmpset", "private", c.AgentAddr(0), mib.DiagPush0, "x", hex.EncodeToString(b))
	if err == nil || !strings.Contains(out, "noAccess") {
		t.Fatalf("a push with the write community under a keyring: snmpset printed %q (%v), want noAccess", out, err)
	}
	settled(t, c, "keyring: after the forged push")
	for _, e := range c.Events(evMark) {
		if e.Node == 4 {
			t.Errorf("agent %d logged node 4 %s -> %s after a push forged with the write community", e.Self, e.Old, e.New)
		}
	}

	must(t, tcpdump.Stop(5*time.Second))
	stopped = true
	dgs, err := ReadCapture(pcap)
	must(t, err)
	agents := map[netip.Addr]bool{}
	for _, k := range all {
		agents[c.Net.Addrs[k]] = true
	}
	var n, discovery int
	for _, d := range dgs {
		if !agents[d.Src.Addr()] || !agents[d.Dst.Addr()] {
			continue // the harness's snmpget and snmpset, and the printer's tests
		}
		n++
		// gosnmp reads the header of an authPriv message it cannot decrypt
		// and returns it with the error.
		pkt, err := (&gosnmp.GoSNMP{}).SnmpDecodePacket(d.Payload)
		switch {
		case pkt == nil:
			t.Fatalf("%v -> %v: not an SNMP message (%v): %x", d.Src, d.Dst, err, d.Payload)
		case pkt.Version != gosnmp.Version3:
			t.Fatalf("%v -> %v: %v (a community on the wire), want SNMPv3", d.Src, d.Dst, pkt.Version)
		case pkt.MsgFlags&gosnmp.AuthPriv == gosnmp.AuthPriv:
		case pkt.MsgFlags&gosnmp.AuthNoPriv != 0 && authReport(c.Key, d.Payload):
			discovery++ // RFC 3414's notInTimeWindow report, authenticated without privacy: a restarted peer's boots
		case err != nil:
			t.Fatalf("%v -> %v: a message below authPriv that does not decode: %v", d.Src, d.Dst, err)
		case pkt.PDUType == gosnmp.Report, pkt.PDUType == gosnmp.GetRequest && len(pkt.Variables) == 0:
			discovery++
		default:
			t.Fatalf("%v -> %v: %v with msgFlags %#x, want authPriv", d.Src, d.Dst, pkt.PDUType, pkt.MsgFlags)
		}
	}
	if n == 0 {
		t.Fatal("the capture holds no datagram between agents")
	}
	t.Logf("agent 1 exchanged %d SNMP datagrams with its peers: all SNMPv3, all authPriv but %d discoveries and reports", n, discovery)
}

// authReport reports whether b is a Report PDU authenticated (without
// privacy) by the user of key k: a report of an agent's USM that carries
// no data, such as notInTimeWindow.
func authReport(k keyring.Key, b []byte) bool {
	u := k.User()
	sp := u.USM()
	pkt, err := (&gosnmp.GoSNMP{SecurityParameters: sp}).SnmpDecodePacket(b)
	return err == nil && pkt.PDUType == gosnmp.Report && pkt.MsgFlags&gosnmp.AuthPriv == gosnmp.AuthNoPriv
}

// TestKeyRotationLAN rotates the cluster key of eight agents from one of
// them with diagagent keyring (install, use, remove: Consul's verbs), while
// agent 6 is down, then brings agent 6 back with the old key only:
//   - each step, typed right after the one before (-use and -remove by the
//     key's ID), waits until it reaches every running agent (keyring -list,
//     run at agent 1 at once, exits 0: every agent answering runs agent 1's
//     keys), and no agent logs a status change of any node meanwhile: no
//     false verdict;
//   - -use before every agent holds the key is refused;
//   - agent 6, back with the old key, is refused by every agent it tests: it
//     sends one diagNodeKeyRefused about itself and notifies none of its
//     verdicts about its peers; they hold it partial and -list names it;
//   - its keyring file given the new key and a SIGHUP let it back in: every
//     agent holds every node fault-free and runs the new key alone, kept in
//     its state_dir (mode 0600).
//
// LANTEST_ROTATION_AGENTS (default 8) and LANTEST_ROTATION_HOLD (default none: a
// duration held after each step, fault-free but for agent 6) make it the
// longer run of docs/security.md.
func TestKeyRotationLAN(t *testing.T) {
	t.Parallel()
	agents, hold := 8, time.Duration(0)
	if v := os.Getenv("LANTEST_ROTATION_AGENTS"); v != "" {
		n, err := strconv.Atoi(v)
		must(t, err)
		agents = n
	}
	if v := os.Getenv("LANTEST_ROTATION_HOLD"); v != "" {
		d, err := time.ParseDuration(v)
		must(t, err)
		hold = d
	}
	s := ciSpec(t, "rot", "vcube", agents, false)
	s.Keyring = true
	c := startCluster(t, s)
	began := time.Now()
	all := ids(c.Agents)
	settled(t, c, "rotation: before")
	old := c.Key
	lag := 5
	mark := c.Station.Mark()
	must(t, c.StopAgent(lag))
	expect(t, c, "rotation: agent 6 stopped", mark, without(all, lag), lag+1, 2)

	keys := func(args ...string) (string, int) {
		cmd := exec.Command("ip", append([]string{"netns", "exec", c.Net.Hosts[0], c.Bin, "keyring", "-config", c.conf}, args...)...)
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatalf("diagagent keyring %v: %v", args, err)
		}
		return string(out), cmd.ProcessState.ExitCode()
	}
	// spread waits until keyring -list, at agent 1, exits 0 (every agent
	// answering runs agent 1's keys) with row, the fields of a key's line
	// (ID, held by, sent with by, at agent 1), among its lines, or with no
	// line for the key when row holds the ID alone.
	spread := func(what string, row ...string) string {
		var out string
		took, err := c.Poll(c.Bound(), func() bool {
			var code int
			out, code = keys("-list")
			found := false
			for _, l := range strings.Split(out, "\n") {
				f := strings.Fields(l)
				found = found || len(f) > 0 && f[0] == row[0] && (len(row) == 1 || slices.Equal(f, row))
			}
			return code == 0 && found == (len(row) > 1)
		})
		if err != nil {
			t.Fatalf("%s: keyring -list never showed %v: %v\n%s", what, row, err, out)
		}
		t.Logf("%s: every running agent runs it after %v:\n%s", what, took.Round(time.Millisecond), out)
		return out
	}
	of := func(n int) string { return fmt.Sprintf("%d/%d", n, agents) }
	next, err := keyring.Generate()
	must(t, err)
	evMark, stMark := c.Mark(), c.Station.Mark()
	if out, code := keys("-use", next.String()); code == 0 || !strings.Contains(out, "does not hold it yet") {
		t.Fatalf("keyring -use of a key no agent holds: exit %d, %s; want a refusal", code, out)
	}
	// Typed one after another, as an operator does (the key's ID for -use
	// and -remove): each waits until every agent answering runs it, so the
	// next is never refused, and -list at once finds it everywhere.
	for _, step := range []struct {
		verb, key string
		row       []string
	}{
		{"-install", next.String(), []string{next.ID(), of(agents - 1), of(0), "accepted"}},
		{"-use", next.ID(), []string{next.ID(), of(agents - 1), of(agents - 1), "in", "use"}},
		{"-remove", old.ID(), []string{old.ID()}},
	} {
		out, code := keys(step.verb, step.key)
		if code != 0 || !strings.Contains(out, "every answering agent (7 of 8) holds the change") {
			t.Fatalf("keyring %s: exit %d: %s", step.verb, code, out)
		}
		t.Logf("keyring %s %s:\n%s", step.verb, step.key, out)
		list, code := keys("-list")
		found := false
		for _, l := range strings.Split(list, "\n") {
			f := strings.Fields(l)
			found = found || len(f) > 0 && f[0] == step.row[0] && (len(step.row) == 1 || slices.Equal(f, step.row))
		}
		if code != 0 || found != (len(step.row) > 1) {
			t.Fatalf("keyring -list right after %s (exit %d) does not show %v:\n%s", step.verb, code, step.row, list)
		}
		time.Sleep(hold)
	}
	for _, e := range c.Events(evMark) {
		if e.Change() {
			t.Errorf("during the rotation agent %d logged node %d %s -> %s", e.Self, e.Node, e.Old, e.New)
		}
	}
	if n := c.Station.Notifications(stMark); len(n) > 0 {
		t.Errorf("the station got %d notifications during the rotation, want none: %v", len(n), n)
	}

	// Agent 6 comes back with the old key only.
	stMark = c.Station.Mark()
	must(t, c.StartAgent(lag))
	refusedNote := func(l string) bool {
		return strings.HasPrefix(l, "NOTIFY ") && strings.Contains(l, mib.DiagNodeKeyRefused)
	}
	if _, err := c.Station.Wait(c.Bound(), stMark, refusedNote); err != nil {
		t.Fatalf("agent 6, back with the old key: no diagNodeKeyRefused: %v\n%v", err, c.Station.Notifications(stMark))
	}
	if _, err := c.Poll(c.Bound(), func() bool {
		out, _ := keys("-list")
		// Run at agent 1, whose keyring file still holds the old key too,
		// the command reads agent 6 with it: agent 6 lags.
		return strings.Contains(out, "node 6 (") && strings.Contains(out, "lags") && strings.Contains(out, old.ID()+"*")
	}); err != nil {
		out, _ := keys("-list")
		t.Fatalf("keyring -list does not name agent 6 as lagging with the old key: %v\n%s", err, out)
	}
	if !c.AllSee(without(all, lag), []int{lag + 1}, 2) {
		t.Errorf("the agents running the new key do not all hold agent 6 partial")
	}
	got := 0
	for _, l := range c.Station.Notifications(stMark) {
		switch {
		case refusedNote(l):
			got++
		case strings.Contains(l, mib.DiagNodeStatusChange):
			t.Errorf("a status notification while agent 6 lags: %s", l)
		}
	}
	if got != 1 {
		t.Errorf("%d diagNodeKeyRefused notifications, want 1", got)
	}

	// Let it back in: its keyring file holds the new key, and a SIGHUP.
	stMark = c.Station.Mark()
	must(t, os.WriteFile(filepath.Join(c.Dir, "keyring"), []byte(next.String()+"\n"), 0o600))
	must(t, c.Agent(lag).Hangup())
	settled(t, c, "rotation: agent 6 back in")
	spread("rotation: agent 6 back in", next.ID(), of(agents), of(agents), "in", "use")
	if _, err := c.Station.Wait(c.Bound()+c.RepairHeld(), stMark, StatusChange(lag+1, 0)); err != nil {
		t.Errorf("no notification that agent 6 is fault-free again: %v", err)
	}
	evMark = c.Mark()
	time.Sleep(hold)
	for _, e := range c.Events(evMark) {
		if e.Change() {
			t.Errorf("after the rotation agent %d logged node %d %s -> %s", e.Self, e.Node, e.Old, e.New)
		}
	}
	t.Logf("rotation: %d agents, %v from start to end", agents, time.Since(began).Round(time.Second))
	for _, k := range all {
		path := filepath.Join(c.Dir, fmt.Sprintf("state%d", k), "keyring")
		r, err := keyring.Load(path) // refuses a file open to others
		if err != nil || len(r.Keys) != 1 || r.Keys[0] != next {
			t.Errorf("agent %d keeps %v (%v) in %s, want the new key alone", k+1, r.Keys, err, path)
		}
	}
}

// TestReinstalledAgentLAN: an agent started on an empty state_dir (a
// reinstall: a new SNMPv3 engine ID) is tested and read by its peers with
// the cluster key at once. Their probers knew its old engine; the report of
// the unknown engine is unauthenticated, and the answers authenticated
// against the old engine fail until they discover the new one.
func TestReinstalledAgentLAN(t *testing.T) {
	t.Parallel()
	spec := ciSpec(t, "ri", "vcube", 4, false)
	spec.Keyring = true
	c := startCluster(t, spec)
	must(t, c.StopAgent(3))
	must(t, os.Rename(c.StateDir(3), c.StateDir(3)+".aside"))
	must(t, c.StartAgent(3))
	settledIn(t, c, "agent 4 reinstalled", c.Bound())
}
