//go:build integration && linux

package netsnmptest

import (
	"bytes"
	"net"
	"strconv"
	"testing"
)

func TestSNMPDReceivedDecodesDump(t *testing.T) {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(FreeUDPPort(t, "127.0.0.1")))
	s := StartSNMPD(t, addr, "printers", []string{"rocommunity printers 127.0.0.1"})
	got := s.Received()
	if len(got) == 0 {
		t.Fatalf("no packet decoded from the log:\n%s", s.Log())
	}
	// The readiness probe is a v2c GET (0x30 SEQUENCE, version 1, community "printers").
	want := append([]byte{0x02, 0x01, 0x01, 0x04, 0x08}, "printers"...)
	if !bytes.Contains(got[0], want) || got[0][0] != 0x30 || int(got[0][1])+2 != len(got[0]) {
		t.Fatalf("first packet % X does not look like the v2c GET sent", got[0])
	}
}
