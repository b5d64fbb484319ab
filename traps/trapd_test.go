package traps

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/diagagent/diagagent/mib"
)

// trapdStartWait bounds how long snmptrapd may take to bind its port.
const trapdStartWait = 10 * time.Second

// outputWait bounds how long a notification may take to show in snmptrapd's output.
const outputWait = 10 * time.Second

// trapdFormat prints one line per notification: security, v1 enterprise and specific, varbinds.
const trapdFormat = "NOTIFY %P\t%N\t%q\t%v\n"

// trapd is a net-snmp snmptrapd the test started on 127.0.0.1.
type trapd struct {
	addr  string
	lines chan string
	exit  chan error
}

// trapdPath finds snmptrapd, which Debian installs in /usr/sbin.
func trapdPath(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("snmptrapd"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/snmptrapd"); err == nil {
		return "/usr/sbin/snmptrapd"
	}
	t.Fatal("snmptrapd not found: run scripts/test-deps.sh to install the test dependencies")
	return ""
}

// freeUDPPort returns a port that was free on 127.0.0.1 a moment ago.
func freeUDPPort(t testing.TB) int {
	t.Helper()
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}

// startTrapd runs snmptrapd with the given configuration lines and waits until
// it is listening; it retries with another port if the first one was taken.
func startTrapd(t testing.TB, conf ...string) *trapd {
	t.Helper()
	var lastErr string
	for try := 0; try < 3; try++ {
		d, errText := launchTrapd(t, conf)
		if d != nil {
			return d
		}
		lastErr = errText
	}
	t.Fatalf("snmptrapd did not start: %s", lastErr)
	return nil
}

// launchTrapd makes one start attempt; it returns nil and the output on failure.
func launchTrapd(t testing.TB, conf []string) (*trapd, string) {
	t.Helper()
	dir := t.TempDir()
	confFile := filepath.Join(dir, "snmptrapd.conf")
	if err := os.WriteFile(confFile, []byte(strings.Join(conf, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mibDir, err := filepath.Abs("../mib")
	if err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(freeUDPPort(t))
	args := []string{"-f", "-Lo", "-C", "-c", confFile, "-n", "-F", trapdFormat}
	args = append(append(args, mib.NetSNMPArgs(mibDir)...), "udp:"+addr)
	cmd := exec.Command(trapdPath(t), args...)
	cmd.Env = append(os.Environ(), "SNMP_PERSISTENT_DIR="+filepath.Join(dir, "persist"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatalf("start snmptrapd: %v", err)
	}
	d := &trapd{addr: addr, lines: make(chan string, 256), exit: make(chan error, 1)}
	go d.scan(out, cmd)
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-d.exit
	})
	return d.ready()
}

// scan forwards snmptrapd's output line by line and reports its exit.
func (d *trapd) scan(out io.Reader, cmd *exec.Cmd) {
	s := bufio.NewScanner(out)
	for s.Scan() {
		d.lines <- s.Text()
	}
	close(d.lines)
	d.exit <- cmd.Wait()
}

// ready waits for the version banner snmptrapd prints once it listens.
func (d *trapd) ready() (*trapd, string) {
	var seen []string
	deadline := time.After(trapdStartWait)
	for {
		select {
		case l, ok := <-d.lines:
			if !ok {
				return nil, strings.Join(seen, "\n")
			}
			seen = append(seen, l)
			if strings.HasPrefix(l, "NET-SNMP version") {
				return d, ""
			}
		case <-deadline:
			return nil, "no banner within " + trapdStartWait.String() + ": " + strings.Join(seen, "\n")
		}
	}
}

// expect waits for a notification line containing every fragment and returns it.
func (d *trapd) expect(t testing.TB, fragments ...string) string {
	t.Helper()
	return d.wait(t, append([]string{"NOTIFY "}, fragments...))
}

// wait waits for any output line containing every fragment and returns it.
func (d *trapd) wait(t testing.TB, fragments []string) string {
	t.Helper()
	var seen []string
	deadline := time.After(outputWait)
	for {
		select {
		case l, ok := <-d.lines:
			if !ok {
				t.Fatalf("snmptrapd exited; output:\n%s", strings.Join(seen, "\n"))
			}
			seen = append(seen, l)
			if containsAll(l, fragments) {
				return l
			}
		case <-deadline:
			t.Fatalf("no line with %q within %v; output:\n%s", fragments, outputWait, strings.Join(seen, "\n"))
		}
	}
}

// containsAll reports whether s contains every fragment.
func containsAll(s string, fragments []string) bool {
	for _, f := range fragments {
		if !strings.Contains(s, f) {
			return false
		}
	}
	return true
}

// blackhole is a UDP port that receives notifications and never answers.
type blackhole struct {
	conn net.PacketConn
}

// newBenchBlackhole binds a silent station for a benchmark.
func newBenchBlackhole() (net.PacketConn, error) {
	return net.ListenPacket("udp", "127.0.0.1:0")
}

// newBlackhole binds a silent station on 127.0.0.1.
func newBlackhole(t testing.TB) *blackhole {
	t.Helper()
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &blackhole{conn: c}
}

// addr returns the station address of the black hole.
func (b *blackhole) addr() string {
	return b.conn.LocalAddr().String()
}

// receive waits up to wait for one datagram and returns it, or nil.
func (b *blackhole) receive(t testing.TB, wait time.Duration) []byte {
	t.Helper()
	if err := b.conn.SetReadDeadline(time.Now().Add(wait)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 65536)
	n, _, err := b.conn.ReadFrom(buf)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return nil
		}
		t.Fatal(err)
	}
	return buf[:n]
}
