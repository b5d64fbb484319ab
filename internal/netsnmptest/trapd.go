package netsnmptest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TrapFormat makes snmptrapd print one line per notification: the source,
// the trap OID (snmpTrapOID.0 is among the varbinds) and every varbind.
const TrapFormat = "NOTIFY %B\t%v\n"

// Trapd is a net-snmp snmptrapd a test started.
type Trapd struct {
	Addr string
	cmd  *exec.Cmd
	done chan struct{}

	mu    sync.Mutex
	lines []string
	cond  chan struct{} // closed and replaced whenever a line arrives
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
	d := &Trapd{Addr: addr, done: make(chan struct{}), cond: make(chan struct{})}
	d.cmd = exec.Command(Binary(t, "snmptrapd"), append(all, "udp:"+addr)...)
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
			d.add(s.Text())
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

func (d *Trapd) add(l string) {
	d.mu.Lock()
	d.lines = append(d.lines, l)
	close(d.cond)
	d.cond = make(chan struct{})
	d.mu.Unlock()
}

// Lines returns every line snmptrapd printed so far.
func (d *Trapd) Lines() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.lines...)
}

// Notifications returns the notification lines from line index from on.
func (d *Trapd) Notifications(from int) []string {
	var out []string
	for k, l := range d.Lines() {
		if k >= from && strings.HasPrefix(l, "NOTIFY ") {
			out = append(out, l)
		}
	}
	return out
}

// Wait waits up to timeout for a line at index from or later that match
// accepts, and returns its index.
func (d *Trapd) Wait(timeout time.Duration, from int, match func(string) bool) (int, error) {
	deadline := time.After(timeout)
	for {
		d.mu.Lock()
		for k := from; k < len(d.lines); k++ {
			if match(d.lines[k]) {
				d.mu.Unlock()
				return k, nil
			}
		}
		from = max(from, len(d.lines))
		wake := d.cond
		d.mu.Unlock()
		select {
		case <-wake:
		case <-d.done:
			return -1, fmt.Errorf("snmptrapd exited; output:\n%s", strings.Join(d.Lines(), "\n"))
		case <-deadline:
			return -1, fmt.Errorf("nothing matched within %v; output:\n%s", timeout, strings.Join(d.Lines(), "\n"))
		}
	}
}

// Stop ends snmptrapd by its PID and waits for it.
func (d *Trapd) Stop() {
	if d.cmd.Process != nil {
		_ = d.cmd.Process.Kill()
		<-d.done
	}
}
