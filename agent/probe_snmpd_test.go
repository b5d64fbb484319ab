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
)

// probeSNMPD is one net-snmp daemon started by a test on a loopback port.
type probeSNMPD struct {
	port    uint16
	cmd     *exec.Cmd
	done    chan error
	logPath string
}

// probeFreePort returns a loopback UDP port that was free a moment ago.
func probeFreePort(t *testing.T) uint16 {
	t.Helper()
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("free port: %v", err)
	}
	defer c.Close()
	return uint16(c.LocalAddr().(*net.UDPAddr).Port)
}

// startProbeSNMPD runs snmpd in the foreground with a private config made of
// the given lines plus agentaddress and rocommunity public, and waits until it
// answers. A port taken by someone else between probeFreePort and snmpd's bind
// is detected (snmpd exits, or a foreign agent answers) and another is tried.
func startProbeSNMPD(t *testing.T, lines ...string) *probeSNMPD {
	t.Helper()
	for attempt := 0; attempt < 3; attempt++ {
		if s := launchProbeSNMPD(t, probeFreePort(t), lines); s != nil {
			return s
		}
	}
	t.Fatal("snmpd could not bind a free loopback port in 3 attempts")
	return nil
}

// launchProbeSNMPD starts snmpd on port; nil means the port was lost to another process.
func launchProbeSNMPD(t *testing.T, port uint16, lines []string) *probeSNMPD {
	t.Helper()
	dir := t.TempDir()
	token := fmt.Sprintf("probe-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	conf := append([]string{
		fmt.Sprintf("agentaddress udp:127.0.0.1:%d", port),
		"rocommunity public 127.0.0.1",
		"dontLogTCPWrappersConnects yes",
		"sysContact " + token,
	}, lines...)
	path := filepath.Join(dir, "snmpd.conf")
	if err := os.WriteFile(path, []byte(strings.Join(conf, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	logf, err := os.Create(filepath.Join(dir, "snmpd.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	s := &probeSNMPD{port: port, done: make(chan error, 1), logPath: logf.Name()}
	s.cmd = exec.Command("snmpd", "-f", "-Lo", "-C", "-I", "-smux", "-c", path)
	s.cmd.Env = append(os.Environ(), "SNMP_PERSISTENT_DIR="+filepath.Join(dir, "persist"), "MIBS=")
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("start snmpd (scripts/test-deps.sh installs it): %v", err)
	}
	go func() { s.done <- s.cmd.Wait() }()
	t.Cleanup(s.stop)
	if !s.awaitReady(t, token) {
		s.stop()
		return nil
	}
	return s
}

// awaitReady reads sysContact.0 with short timeouts until this snmpd answers
// with its token (true), it exits or a foreign agent answers (false); it
// fails the test after 10 s.
func (s *probeSNMPD) awaitReady(t *testing.T, token string) bool {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		select {
		case err := <-s.done:
			s.done <- err
			t.Logf("snmpd on port %d exited (%v): %s", s.port, err, s.logText())
			return false
		default:
		}
		g := &gosnmp.GoSNMP{Target: "127.0.0.1", Port: s.port, Version: gosnmp.Version2c,
			Community: "public", Timeout: 200 * time.Millisecond, Retries: 0}
		if g.Connect() != nil {
			continue
		}
		pkt, err := g.Get([]string{".1.3.6.1.2.1.1.4.0"}) // sysContact.0
		g.Conn.Close()
		if err == nil {
			got, _ := pkt.Variables[0].Value.([]byte)
			return string(got) == token
		}
	}
	t.Fatalf("snmpd on port %d did not answer within 10 s: %s", s.port, s.logText())
	return false
}

// logText returns what snmpd logged so far.
func (s *probeSNMPD) logText() string {
	b, err := os.ReadFile(s.logPath)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// stop ends this test's snmpd by its PID and waits for it.
func (s *probeSNMPD) stop() {
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
func (s *probeSNMPD) target() Target {
	return Target{Addr: netip.MustParseAddr("127.0.0.1"), Port: s.port}
}

// newTestProber returns a Prober with short timeouts for loopback tests.
func newTestProber(t *testing.T, edit func(*ProbeConfig)) *Prober {
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

// probeContext is a context bounded by the test's deadline or 30 s.
func probeContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}
