package traps

import (
	"errors"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/diagagent/diagagent/internal/netsnmptest"
	"github.com/diagagent/diagagent/mib"
)

// outputWait bounds how long a notification may take to show in snmptrapd's output.
const outputWait = 10 * time.Second

// trapdFormat prints one line per notification: security, v1 enterprise
// and specific, varbinds, and last the v1 generic trap.
const trapdFormat = "NOTIFY %P\t%N\t%q\t%v\tgeneric %w\n"

// trapd is a net-snmp snmptrapd the test started on 127.0.0.1, printing names
// from the DIAGNOSIS-MIB; expect reads its notifications in order.
type trapd struct {
	*netsnmptest.Trapd
	addr string
	next int // the first output line expect has not looked at
}

// startTrapd runs snmptrapd with the given configuration lines and waits until
// it is listening.
func startTrapd(t testing.TB, conf ...string) *trapd {
	t.Helper()
	addr := "127.0.0.1:" + strconv.Itoa(netsnmptest.FreeUDPPort(t, "127.0.0.1"))
	return startTrapdAt(t, addr, conf...)
}

// startTrapdAt is startTrapd on a given address (a station restarted there).
func startTrapdAt(t testing.TB, addr string, conf ...string) *trapd {
	t.Helper()
	mibDir, err := filepath.Abs("../mib")
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-F", trapdFormat}, mib.NetSNMPArgs(mibDir)...)
	return &trapd{Trapd: netsnmptest.StartTrapd(t, addr, conf, args...), addr: addr}
}

// expect waits for the next notification line containing every fragment and returns it.
func (d *trapd) expect(t testing.TB, fragments ...string) string {
	t.Helper()
	return d.wait(t, append([]string{"NOTIFY "}, fragments...))
}

// wait waits for the next output line containing every fragment and returns it.
func (d *trapd) wait(t testing.TB, fragments []string) string {
	t.Helper()
	k, err := d.Wait(outputWait, d.next, func(l string) bool { return containsAll(l, fragments) })
	if err != nil {
		t.Fatalf("no line with %q: %v", fragments, err)
	}
	d.next = k + 1
	return d.All()[k]
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
