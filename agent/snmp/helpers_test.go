package snmp

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/agent/usm"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// fakeClock is a settable clock for tests; it only moves when told to.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Test credentials shared by the tests.
const (
	roCommunity = "public"
	rwCommunity = "private"
	authPass    = "authpass123"
	privPass    = "privpass123"
)

// testEngineID is a fixed engine ID so captured v3 packets stay valid.
var testEngineID = []byte{0x80, 0x00, 0x00, 0xc8, 0x04, 't', 'e', 's', 't'}

// testConfig is a configuration with the communities and users the tests use.
func testConfig(clock *fakeClock) Config {
	cfg := Default()
	cfg.Workers = 4
	cfg.EngineID = testEngineID
	cfg.SysName = "node-under-test"
	cfg.Now = clock.Now
	cfg.FaultInjection = true
	loop := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	cfg.Communities = []Community{
		{Name: roCommunity, Sources: loop},
		{Name: rwCommunity, Write: true, Sources: loop},
		{Name: "elsewhere", Sources: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}},
	}
	user := func(name, auth, priv string, write bool) User {
		u := User{User: usm.User{Name: name, AuthProtocol: auth, PrivProtocol: priv}}
		if auth != "" {
			u.AuthPassphrase = authPass
		}
		if priv != "" {
			u.PrivPassphrase = privPass
		}
		if write {
			u.Write = true
		}
		return u
	}
	cfg.Users = []User{
		user("noauth", "", "", false),
		user("authsha", "sha", "", false),
		user("authsha224", "sha224", "", false),
		user("authsha384", "sha384", "aes", false),
		user("privsha", "sha", "aes", true),
		user("privsha256", "sha256", "aes", true),
		user("privsha512", "sha512", "aes256", false),
		// SHA-1 keys are too short for AES-192/256: these need the key extensions.
		user("aes192blumenthal", "sha", "aes192", false),
		user("aes256reeder", "sha", "aes256c", false),
	}
	return cfg
}

// testSnapshot is a view of three nodes and two events.
func testSnapshot() *board.Snapshot {
	at := time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)
	return &board.Snapshot{
		Nodes: []board.Row{
			{ID: 1, Member: nodelist.Member{Addr: netip.MustParseAddr("127.0.0.1")}, Status: hiadsd.FaultFree, Counter: 2, How: mib.SourceDirect},
			{ID: 2, Member: nodelist.Member{Addr: netip.MustParseAddr("127.0.0.2")}, Status: hiadsd.Faulty, Counter: 3, LastChange: 500, How: mib.SourceLearned},
			{ID: 3, Member: nodelist.Member{Addr: netip.MustParseAddr("127.0.0.3"), TestedOnly: true}, Status: hiadsd.Partial, Counter: 1, How: mib.SourceDirect},
		},
		Events: []mib.Event{
			{Seq: 7, NodeID: 2, Status: hiadsd.Faulty, Prev: hiadsd.FaultFree, Counter: 3, Time: at, How: mib.SourceLearned, Detector: 3, Source: 2},
			{Seq: 8, NodeID: 3, Status: hiadsd.Partial, Prev: hiadsd.FaultFree, Counter: 1, Time: at, How: mib.SourceDirect, Detector: 1},
		},
		Up:           true,
		Station:      hiadsd.Station{Addr: netip.MustParseAddr("127.0.0.9"), Counter: 4},
		NodeListHash: []byte{0xd1, 0xa9, 0, 0, 0, 0, 0, 0x17},
	}
}

// harness is a responder serving on a loopback port.
type harness struct {
	r     *Responder
	addr  string
	clock *fakeClock
	done  chan error
}

// startHarness starts a responder with cfg (nil edit keeps testConfig) on 127.0.0.1:0.
func startHarness(t *testing.T, edit func(*Config)) *harness {
	t.Helper()
	clock := &fakeClock{t: time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)}
	cfg := testConfig(clock)
	if edit != nil {
		edit(&cfg)
	}
	r, err := NewResponder(cfg)
	if err != nil {
		t.Fatalf("NewResponder: %v", err)
	}
	if err := r.Publish(testSnapshot()); err != nil {
		t.Fatalf("Publish: %v", err)
	}
	conn, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	h := &harness{r: r, addr: conn.LocalAddr().String(), clock: clock, done: make(chan error, 1)}
	go func() { h.done <- r.Serve(conn) }()
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		select {
		case err := <-h.done:
			if err != nil && !errors.Is(err, ErrClosed) {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("Serve did not return after Close")
		}
	})
	return h
}

// run executes a net-snmp tool against the harness with numeric output and no
// MIB files, returning its combined output and error.
func (h *harness) run(t *testing.T, tool string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	dir := t.TempDir()
	full := append([]string{"-On", "-m", "", "-M", dir}, args...)
	cmd := exec.CommandContext(ctx, tool, full...)
	cmd.Env = []string{"SNMPCONFPATH=" + dir, "SNMP_PERSISTENT_DIR=" + dir, "HOME=" + dir}
	out, err := cmd.CombinedOutput()
	var keep []string
	for line := range strings.SplitSeq(string(out), "\n") {
		if !strings.HasPrefix(line, "Created directory:") {
			keep = append(keep, line)
		}
	}
	return strings.TrimSpace(strings.Join(keep, "\n")), err
}

// v2 and v1 prefix a tool's arguments with a community and the agent address;
// the generous timeout only matters on a loaded machine (see silent).
func (h *harness) v2(community string, args ...string) []string {
	return append([]string{"-v2c", "-c", community, "-t", "5", "-r", "0", h.addr}, args...)
}

func (h *harness) v1(community string, args ...string) []string {
	return append([]string{"-v1", "-c", community, "-t", "5", "-r", "0", h.addr}, args...)
}

// v3 prefixes a tool's arguments with SNMPv3 USM options and the agent address.
func (h *harness) v3(usm []string, args ...string) []string {
	base := append([]string{"-v3", "-t", "5", "-r", "0"}, usm...)
	return append(append(base, h.addr), args...)
}

// silent shortens the timeout of arguments built by v1, v2 or v3 to one
// second, for requests the agent must not answer.
func silent(args []string) []string {
	out := append([]string(nil), args...)
	for i := range out[:len(out)-1] {
		if out[i] == "-t" {
			out[i+1] = "1"
		}
	}
	return out
}

// must runs a tool that has to succeed and returns its output.
func (h *harness) must(t *testing.T, tool string, args ...string) string {
	t.Helper()
	out, err := h.run(t, tool, args...)
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", tool, args, err, out)
	}
	return out
}

// usmArgs returns net-snmp options for a test user at a security level.
func usmArgs(user, level, auth, priv string) []string {
	o := []string{"-u", user, "-l", level}
	if auth != "" {
		o = append(o, "-a", auth, "-A", authPass)
	}
	if priv != "" {
		o = append(o, "-x", priv, "-X", privPass)
	}
	return o
}
