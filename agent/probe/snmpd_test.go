package probe

import (
	"context"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/diagagent/diagagent/internal/netsnmptest"
)

// probeSNMPD is one net-snmp daemon started by a test on a loopback port,
// with community public readable from 127.0.0.1.
type probeSNMPD struct {
	*netsnmptest.SNMPD
	port uint16
}

// probeFreePort returns a loopback UDP port that was free a moment ago.
func probeFreePort(t *testing.T) uint16 {
	t.Helper()
	return uint16(netsnmptest.FreeUDPPort(t, "127.0.0.1"))
}

// startProbeSNMPD runs snmpd with the given configuration lines and waits
// until it answers.
func startProbeSNMPD(t *testing.T, lines ...string) *probeSNMPD {
	t.Helper()
	port := probeFreePort(t)
	conf := append([]string{"rocommunity public 127.0.0.1", "dontLogTCPWrappersConnects yes"}, lines...)
	return &probeSNMPD{SNMPD: netsnmptest.StartSNMPD(t, fmt.Sprintf("127.0.0.1:%d", port), "public", conf), port: port}
}

// stop ends this test's snmpd by its PID and waits for it.
func (s *probeSNMPD) stop() { s.Stop() }

// target is the loopback Target of this snmpd.
func (s *probeSNMPD) target() Target {
	return Target{Addr: netip.MustParseAddr("127.0.0.1"), Port: s.port}
}

// newTestProber returns a Prober with short timeouts for loopback tests.
func newTestProber(t *testing.T, edit func(*Config)) *Prober {
	t.Helper()
	cfg := Default()
	cfg.Timeout, cfg.Retries = 300*time.Millisecond, 1
	cfg.PingTimeout, cfg.PingCount = time.Second, 2
	if edit != nil {
		edit(&cfg)
	}
	p, err := New(cfg, nil)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(p.idle.close)
	return p
}

// probeContext is a context bounded by the test's deadline or 30 s.
func probeContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}
