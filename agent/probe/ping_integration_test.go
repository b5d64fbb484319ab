//go:build integration && linux

package probe

import (
	"net/netip"
	"testing"
	"time"
)

func TestICMPPingerLoopback(t *testing.T) {
	pg := &ICMPPinger{Privileged: true, Count: 3, Timeout: 2 * time.Second}
	start := time.Now()
	rtt, err := pg.Ping(probeContext(t), netip.MustParseAddr("127.0.0.1"))
	if err != nil || rtt <= 0 || rtt > time.Since(start) {
		t.Fatalf("ping 127.0.0.1 = %s, %v; want a positive RTT within the call", rtt, err)
	}
}
