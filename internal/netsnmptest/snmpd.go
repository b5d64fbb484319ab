package netsnmptest

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// SNMPD is a net-snmp snmpd a test started, for instance to play a printer.
type SNMPD struct {
	Addr    string
	dir     string
	conf    string
	logPath string
	cmd     *exec.Cmd
	done    chan struct{}
}

// StartSNMPD runs snmpd on addr with the given configuration lines (plus the
// agentaddress line) and waits until it answers community's GET of
// sysUpTime.0. It logs every packet it receives (-d), which Received parses.
func StartSNMPD(t testing.TB, addr, community string, lines []string) *SNMPD {
	t.Helper()
	s := &SNMPD{Addr: addr, dir: t.TempDir()}
	s.conf = filepath.Join(s.dir, "snmpd.conf")
	conf := append([]string{"agentaddress " + ToolAddr(addr)}, lines...)
	if err := os.WriteFile(s.conf, []byte(strings.Join(conf, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s.logPath = filepath.Join(s.dir, "snmpd.log")
	s.Start(t)
	t.Cleanup(s.Stop)
	if err := s.awaitAnswer(t, community); err != nil {
		t.Fatalf("snmpd on %s: %v", addr, err)
	}
	return s
}

// Start (re)starts snmpd with its configuration; its log grows across restarts.
func (s *SNMPD) Start(t testing.TB) {
	t.Helper()
	logf, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	s.cmd = exec.Command(Binary(t, "snmpd"), "-f", "-Lo", "-C", "-I", "-smux", "-d", "-c", s.conf)
	s.cmd.Env = Env(s.dir)
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("start snmpd: %v", err)
	}
	s.done = make(chan struct{})
	go func(c *exec.Cmd, done chan struct{}) { c.Wait(); close(done) }(s.cmd, s.done)
}

// awaitAnswer polls with snmpget until snmpd answers or 10 s pass.
func (s *SNMPD) awaitAnswer(t testing.TB, community string) error {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			return fmt.Errorf("exited: %s", s.Log())
		default:
		}
		out, err := exec.Command(Binary(t, "snmpget"), "-v2c", "-c", community, "-t", "0.2", "-r", "0",
			"-On", ToolAddr(s.Addr), ".1.3.6.1.2.1.1.3.0").CombinedOutput()
		if err == nil && bytes.Contains(out, []byte("Timeticks")) {
			return nil
		}
	}
	return fmt.Errorf("no answer within 10 s: %s", s.Log())
}

// Stop ends snmpd by its PID and waits for it.
func (s *SNMPD) Stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// Log returns what snmpd logged so far.
func (s *SNMPD) Log() string {
	b, err := os.ReadFile(s.logPath)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// Received returns every datagram snmpd logged as received, decoded from its
// hex dump ("Received N byte packet from ..." followed by "0000: 30 3B ..." lines).
func (s *SNMPD) Received() [][]byte {
	var out [][]byte
	var cur []byte
	in := false
	sc := bufio.NewScanner(strings.NewReader(s.Log()))
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "Received ") && strings.Contains(l, " byte packet"):
			if in {
				out = append(out, cur)
			}
			cur, in = nil, true
		case in && len(l) > 6 && l[4] == ':':
			cur = append(cur, hexBytes(l[6:min(len(l), 6+dumpHexWidth)])...)
		case in:
			out, cur, in = append(out, cur), nil, false
		}
	}
	if in {
		out = append(out, cur)
	}
	return out
}

// dumpHexWidth is the width of the hex columns of a dump line: four groups of
// four "XX " separated by an extra space; the text column follows.
const dumpHexWidth = 4*4*3 + 3

// hexBytes decodes the hex columns of one dump line.
func hexBytes(cols string) []byte {
	var out []byte
	for _, f := range strings.Fields(cols) {
		if len(f) != 2 {
			break
		}
		b, err := hex.DecodeString(f)
		if err != nil {
			break
		}
		out = append(out, b...)
	}
	return out
}
