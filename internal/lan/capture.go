//go:build linux

package lan

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"strings"
	"time"
)

// Capture runs tcpdump on host k's interface, writing the UDP datagrams
// that match filter (a pcap filter such as "udp port 161") to path, until
// the Proc is stopped; it returns once tcpdump listens. It runs in
// immediate mode: otherwise libpcap's TPACKET_V3 ring hands packets over
// a block at a time, and a block not yet handed over when tcpdump is
// stopped is lost (a run of 2 s once captured nothing).
func (nw *Net) Capture(k int, path, filter string) (*Proc, error) {
	ready := make(chan struct{})
	var once bool
	args := append([]string{"-i", "eth0", "--immediate-mode", "-U", "-n", "-Z", "root", "-w", path}, strings.Fields(filter)...)
	p, err := Start(nw.Hosts[k], nil, func(line string) {
		if !once && strings.Contains(line, "listening on") {
			once = true
			close(ready)
		}
	}, "tcpdump", args...)
	if err != nil {
		return nil, err
	}
	select {
	case <-ready:
		return p, nil
	case <-p.Done():
		return nil, fmt.Errorf("lan: tcpdump in %s exited before listening", nw.Hosts[k])
	case <-time.After(10 * time.Second):
		_ = p.Stop(time.Second)
		return nil, fmt.Errorf("lan: tcpdump in %s did not listen within 10 s", nw.Hosts[k])
	}
}

// Datagram is one UDP datagram of a capture.
type Datagram struct {
	Src, Dst netip.AddrPort
	Payload  []byte
}

// ReadCapture reads the IPv4 UDP datagrams of a pcap file that tcpdump
// wrote from an Ethernet interface; anything else is skipped.
func ReadCapture(path string) ([]Datagram, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) < 24 {
		return nil, errors.New("lan: capture shorter than a pcap header")
	}
	var bo binary.ByteOrder = binary.LittleEndian
	switch binary.LittleEndian.Uint32(b) {
	case 0xa1b2c3d4, 0xa1b23c4d:
	case 0xd4c3b2a1, 0x4d3cb2a1:
		bo = binary.BigEndian
	default:
		return nil, errors.New("lan: not a pcap file")
	}
	if link := bo.Uint32(b[20:]); link != 1 {
		return nil, fmt.Errorf("lan: capture of link type %d, want Ethernet (1)", link)
	}
	var out []Datagram
	for b = b[24:]; len(b) >= 16; {
		n := int(bo.Uint32(b[8:]))
		if len(b) < 16+n {
			break // the last record, cut short when tcpdump stopped
		}
		if d, ok := udpOfFrame(b[16 : 16+n]); ok {
			out = append(out, d)
		}
		b = b[16+n:]
	}
	return out, nil
}

// udpOfFrame returns the UDP datagram an Ethernet frame carries over IPv4.
func udpOfFrame(f []byte) (Datagram, bool) {
	if len(f) < 14+20 || binary.BigEndian.Uint16(f[12:]) != 0x0800 {
		return Datagram{}, false
	}
	ip := f[14:]
	hl := int(ip[0]&0x0f) * 4
	total := int(binary.BigEndian.Uint16(ip[2:]))
	if ip[0]>>4 != 4 || ip[9] != 17 || hl < 20 || total < hl+8 || len(ip) < total {
		return Datagram{}, false
	}
	src, dst := netip.AddrFrom4([4]byte(ip[12:16])), netip.AddrFrom4([4]byte(ip[16:20]))
	udp := ip[hl:total]
	return Datagram{
		Src:     netip.AddrPortFrom(src, binary.BigEndian.Uint16(udp[0:])),
		Dst:     netip.AddrPortFrom(dst, binary.BigEndian.Uint16(udp[2:])),
		Payload: udp[8:],
	}, true
}
