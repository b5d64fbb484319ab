//go:build integration

package lan

import (
	"encoding/hex"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/agent/board"
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
