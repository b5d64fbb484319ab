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
		version, flags, ok := messageHeader(d.Payload)
		switch {
		case !ok:
			t.Fatalf("%v -> %v: not an SNMP message: %x", d.Src, d.Dst, d.Payload)
		case version != 3:
			t.Fatalf("%v -> %v: SNMP version %d (a community on the wire), want SNMPv3", d.Src, d.Dst, version+1)
		case flags&byte(gosnmp.AuthPriv) == byte(gosnmp.AuthPriv):
		default:
			pkt, err := (&gosnmp.GoSNMP{}).SnmpDecodePacket(d.Payload)
			if err != nil {
				t.Fatalf("%v -> %v: a message below authPriv that does not decode: %v", d.Src, d.Dst, err)
			}
			if discovery := pkt.PDUType == gosnmp.GetRequest && len(pkt.Variables) == 0; !discovery && pkt.PDUType != gosnmp.Report {
				t.Fatalf("%v -> %v: %v with msgFlags %#x, want authPriv", d.Src, d.Dst, pkt.PDUType, flags)
			}
			discovery++
		}
	}
	if n == 0 {
		t.Fatal("the capture holds no datagram between agents")
	}
	t.Logf("agent 1 exchanged %d SNMP datagrams with its peers: all SNMPv3, all authPriv but %d discoveries and reports", n, discovery)
}

// messageHeader reads an SNMP message's version (0 v1, 1 v2c, 3 v3) and,
// for SNMPv3, its msgFlags.
func messageHeader(b []byte) (version int, flags byte, ok bool) {
	body, ok := tlv(b, 0x30)
	if !ok {
		return 0, 0, false
	}
	v, ok := tlv(body, 0x02)
	if !ok || len(v) != 1 {
		return 0, 0, false
	}
	version = int(v[0])
	if version != 3 {
		return version, 0, true
	}
	global, ok := tlv(body[tlvLen(body):], 0x30)
	if !ok {
		return 0, 0, false
	}
	for range 2 { // msgID, msgMaxSize
		if _, ok := tlv(global, 0x02); !ok {
			return 0, 0, false
		}
		global = global[tlvLen(global):]
	}
	f, ok := tlv(global, 0x04)
	if !ok || len(f) != 1 {
		return 0, 0, false
	}
	return version, f[0], true
}

// tlv returns the contents of the BER element at the start of b if its
// tag is tag.
func tlv(b []byte, tag byte) ([]byte, bool) {
	if len(b) < 2 || b[0] != tag {
		return nil, false
	}
	n, hdr := int(b[1]), 2
	if n&0x80 != 0 {
		k := n & 0x7f
		if k == 0 || k > 2 || len(b) < 2+k {
			return nil, false
		}
		n, hdr = 0, 2+k
		for _, c := range b[2 : 2+k] {
			n = n<<8 | int(c)
		}
	}
	if len(b) < hdr+n {
		return nil, false
	}
	return b[hdr : hdr+n], true
}

// tlvLen is the whole length of the BER element at the start of b, which
// tlv has read.
func tlvLen(b []byte) int {
	c, _ := tlv(b, b[0])
	if b[1]&0x80 == 0 {
		return 2 + len(c)
	}
	return 2 + int(b[1]&0x7f) + len(c)
}
