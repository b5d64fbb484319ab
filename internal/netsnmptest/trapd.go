package netsnmptest

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TrapFormat makes snmptrapd print one line per notification: the source,
// the trap OID (snmpTrapOID.0 is among the varbinds) and every varbind.
const TrapFormat = "NOTIFY %B\t%v\n"

// Trapd is a net-snmp snmptrapd a test started.
type Trapd struct {
	Lines // what it printed
	Addr  string
	cmd   *exec.Cmd
	done  chan struct{}
}

// StartTrapd runs snmptrapd on addr ("127.0.0.1:1162") with the given
// configuration lines (plus "disableAuthorization yes" when conf is empty)
// and waits for it to say it is listening. args are extra arguments such as
// mib.NetSNMPArgs for names in its output.
func StartTrapd(t testing.TB, addr string, conf []string, args ...string) *Trapd {
	t.Helper()
	dir := t.TempDir()
	if len(conf) == 0 {
		conf = []string{"disableAuthorization yes"}
	}
	confFile := filepath.Join(dir, "snmptrapd.conf")
	if err := os.WriteFile(confFile, []byte(strings.Join(conf, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	all := append([]string{"-f", "-Lo", "-C", "-c", confFile, "-n", "-F", TrapFormat}, args...)
	d := &Trapd{Addr: addr, done: make(chan struct{})}
	d.cmd = exec.Command(Binary(t, "snmptrapd"), append(all, ToolAddr(addr))...)
	d.cmd.Env = Env(dir)
	out, err := d.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	d.cmd.Stderr = d.cmd.Stdout
	if err := d.cmd.Start(); err != nil {
		t.Fatalf("start snmptrapd: %v", err)
	}
	go func() {
		s := bufio.NewScanner(out)
		for s.Scan() {
			d.Add(s.Text())
		}
		d.cmd.Wait()
		close(d.done)
	}()
	t.Cleanup(d.Stop)
	if _, err := d.Wait(10*time.Second, 0, func(l string) bool { return strings.HasPrefix(l, "NET-SNMP version") }); err != nil {
		t.Fatalf("snmptrapd on %s did not start: %v", addr, err)
	}
	return d
}

// Wait waits up to timeout for a line at index from or later that match
// accepts, and returns its index.
func (d *Trapd) Wait(timeout time.Duration, from int, match func(string) bool) (int, error) {
	return d.Lines.Wait(timeout, from, d.done, match)
}

// Stop ends snmptrapd by its PID and waits for it.
func (d *Trapd) Stop() {
	if d.cmd.Process != nil {
		_ = d.cmd.Process.Kill()
		<-d.done
	}
}
