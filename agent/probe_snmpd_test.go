package agent

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/mib"
)

// snmpd is one net-snmp daemon started by a test on a loopback port.
type snmpd struct {
	port uint16
	cmd  *exec.Cmd
	done chan error
	log  *strings.Builder
}

// freeUDPPort returns a loopback UDP port that was free a moment ago.
func freeUDPPort(t *testing.T) uint16 {
	t.Helper()
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("free port: %v", err)
	}
	defer c.Close()
	return uint16(c.LocalAddr().(*net.UDPAddr).Port)
}

// startSNMPD runs snmpd in the foreground with a private config made of the
// given lines plus agentaddress and rocommunity public, and waits until it answers.
func startSNMPD(t *testing.T, lines ...string) *snmpd {
	t.Helper()
	dir := t.TempDir()
	port := freeUDPPort(t)
	conf := append([]string{
		fmt.Sprintf("agentaddress udp:127.0.0.1:%d", port),
		"rocommunity public 127.0.0.1",
		"dontLogTCPWrappersConnects yes",
	}, lines...)
	path := filepath.Join(dir, "snmpd.conf")
	if err := os.WriteFile(path, []byte(strings.Join(conf, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &snmpd{port: port, done: make(chan error, 1), log: &strings.Builder{}}
	s.cmd = exec.Command("snmpd", "-f", "-Lo", "-C", "-c", path)
	s.cmd.Env = append(os.Environ(), "SNMP_PERSISTENT_DIR="+filepath.Join(dir, "persist"), "MIBS=")
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("start snmpd (scripts/test-deps.sh installs it): %v", err)
	}
	go func() { s.done <- s.cmd.Wait() }()
	t.Cleanup(s.stop)
	s.awaitReady(t)
	return s
}

// awaitReady polls sysUpTime.0 with short timeouts until snmpd answers,
// failing after 10 s or as soon as the process exits.
func (s *snmpd) awaitReady(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-s.done:
			s.done <- err
			t.Fatalf("snmpd exited: %v\n%s", err, s.log)
		default:
		}
		g := &gosnmp.GoSNMP{Target: "127.0.0.1", Port: s.port, Version: gosnmp.Version2c,
			Community: "public", Timeout: 200 * time.Millisecond, Retries: 0}
		if g.Connect() == nil {
			_, err := g.Get([]string{mib.SysUpTime0})
			g.Conn.Close()
			if err == nil {
				return
			}
		}
	}
	t.Fatalf("snmpd on port %d did not answer within 10 s\n%s", s.port, s.log)
}

// stop ends this test's snmpd by its PID and waits for it.
func (s *snmpd) stop() {
	if s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case err := <-s.done:
		s.done <- err
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		s.done <- <-s.done
	}
}

// target is the loopback Target of this snmpd.
func (s *snmpd) target() Target {
	return Target{Addr: netip.MustParseAddr("127.0.0.1"), Port: s.port}
}

// testProber returns a Prober with short timeouts for loopback tests.
func testProber(t *testing.T, edit func(*ProbeConfig)) *Prober {
	t.Helper()
	cfg := DefaultProbeConfig()
	cfg.Timeout, cfg.Retries = 300*time.Millisecond, 1
	cfg.PingTimeout, cfg.PingCount = time.Second, 2
	if edit != nil {
		edit(&cfg)
	}
	p, err := NewProber(cfg, nil)
	if err != nil {
		t.Fatalf("NewProber: %v", err)
	}
	return p
}

// testContext is a context bounded by the test's deadline or 30 s.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}
