//go:build integration && linux

package agentx

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diagagent/diagagent/internal/netsnmptest"
)

// master is a net-snmp snmpd acting as AgentX master on a loopback port.
type master struct {
	*netsnmptest.SNMPD
	socket string // what the subagent dials: a path or host:port
	net    string
}

// startMaster runs snmpd with master agentx on the given transport, the
// community public read-only and private read-write.
func startMaster(t *testing.T, transport string) *master {
	t.Helper()
	m := &master{net: transport}
	var sock string
	switch transport {
	case "unix":
		m.socket = filepath.Join(t.TempDir(), "agentx.sock")
		sock = "unix:" + m.socket
	case "tcp":
		m.socket = fmt.Sprintf("127.0.0.1:%d", netsnmptest.FreeTCPPort(t, "127.0.0.1"))
		sock = "tcp:" + m.socket
	}
	addr := fmt.Sprintf("127.0.0.1:%d", netsnmptest.FreeUDPPort(t, "127.0.0.1"))
	m.SNMPD = netsnmptest.StartSNMPD(t, addr, "public", []string{
		"master agentx", "agentXSocket " + sock, "agentXTimeout 2", "agentXRetries 0",
		"rocommunity public 127.0.0.1", "rwcommunity private 127.0.0.1",
		"createUser mon SHA-256 authpass123 AES privpass123", "rouser mon priv .1.3.6.1.4.1.200",
	})
	return m
}

// run starts a subagent serving h to m and waits until it is registered.
func (m *master) run(t *testing.T, h Handler) *Subagent {
	t.Helper()
	cfg := Default()
	cfg.Network, cfg.Address, cfg.Subtree = m.net, m.socket, diag
	cfg.ID, cfg.Descr = diag, "test subagent"
	cfg.Ping, cfg.Retry, cfg.MaxRetry = time.Second, 100*time.Millisecond, 500*time.Millisecond
	s, err := New(cfg, h)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	waitConnected(t, s, 0)
	return s
}

// waitConnected waits until s has opened more than after sessions and is connected.
func waitConnected(t *testing.T, s *Subagent, after int) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		ch := s.Changed()
		if st := s.State(); st.Connected && st.Sessions > after {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("no session with the master: %+v", s.State())
		}
	}
}

// tool runs a net-snmp tool against m with community c.
func (m *master) tool(t *testing.T, name, c string, args ...string) (string, error) {
	t.Helper()
	all := append([]string{"-v2c", "-c", c, "-t", "3", "-r", "0", "-On", m.Addr}, args...)
	out, err := exec.Command(netsnmptest.Binary(t, name), all...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func TestThroughSNMPD(t *testing.T) {
	for _, transport := range []string{"unix", "tcp"} {
		t.Run(transport, func(t *testing.T) {
			m := startMaster(t, transport)
			h := newFakeMIB()
			s := m.run(t, h)

			walk, err := m.tool(t, "snmpwalk", "public", ".1.3.6.1.4.1.200")
			want := strings.Join([]string{
				".1.3.6.1.4.1.200.1.1.1.3.1 = INTEGER: 0", ".1.3.6.1.4.1.200.1.1.1.3.2 = INTEGER: 2",
				".1.3.6.1.4.1.200.1.1.1.3.3 = INTEGER: 1", ".1.3.6.1.4.1.200.1.3.0 = IpAddress: 127.0.0.9",
				`.1.3.6.1.4.1.200.1.4.0 = STRING: "1"`, ".1.3.6.1.4.1.200.1.9.0 = Counter64: 1099511627776",
			}, "\n")
			if err != nil || walk != want {
				t.Fatalf("snmpwalk through snmpd: %v\n%s\nwant\n%s", err, walk, want)
			}
			v3 := exec.Command(netsnmptest.Binary(t, "snmpwalk"), "-v3", "-u", "mon", "-l", "authPriv", "-a", "SHA-256",
				"-A", "authpass123", "-x", "AES", "-X", "privpass123", "-t", "3", "-r", "0", "-On", m.Addr, ".1.3.6.1.4.1.200")
			// The user's view ends at the subtree, and snmpwalk says so after the last object.
			out, err := v3.CombinedOutput()
			got, rest, _ := strings.Cut(strings.TrimSpace(string(out)), "\n.1.3.6.1.4.1.200.1.9.0 = No more variables left in this MIB View")
			if err != nil || got != want || strings.Contains(rest, "\n") {
				t.Errorf("snmpwalk -v3 through snmpd's user: %v\n%s", err, out)
			}
			bulk, err := m.tool(t, "snmpbulkget", "public", "-Cn1", "-Cr2", ".1.3.6.1.4.1.200.1.3", ".1.3.6.1.4.1.200.1.1.1.3")
			wantBulk := ".1.3.6.1.4.1.200.1.3.0 = IpAddress: 127.0.0.9\n.1.3.6.1.4.1.200.1.1.1.3.1 = INTEGER: 0\n.1.3.6.1.4.1.200.1.1.1.3.2 = INTEGER: 2"
			if err != nil || bulk != wantBulk {
				t.Errorf("snmpbulkget through snmpd: %v\n%s\nwant\n%s", err, bulk, wantBulk)
			}
			if out, err := m.tool(t, "snmpset", "private", ".1.3.6.1.4.1.200.1.3.0", "a", "192.0.2.9"); err != nil {
				t.Errorf("snmpset with the write community: %v\n%s", err, out)
			}
			if got, _ := m.tool(t, "snmpget", "public", ".1.3.6.1.4.1.200.1.3.0"); got != ".1.3.6.1.4.1.200.1.3.0 = IpAddress: 192.0.2.9" {
				t.Errorf("after the set: %s", got)
			}
			// snmpd's access control refuses before the subagent hears of it.
			if out, err := m.tool(t, "snmpset", "public", ".1.3.6.1.4.1.200.1.3.0", "a", "192.0.2.10"); err == nil || !strings.Contains(out, "noAccess") {
				t.Errorf("snmpset with the read community: %v\n%s", err, out)
			}
			if out, err := m.tool(t, "snmpset", "private", ".1.3.6.1.4.1.200.1.4.0", "s", "0"); err == nil || !strings.Contains(out, "notWritable") {
				t.Errorf("snmpset of a read-only object: %v\n%s", err, out)
			}
			h.mu.Lock()
			sets := h.sets
			h.mu.Unlock()
			if sets != 1 {
				t.Errorf("%d sets reached the subagent, want 1", sets)
			}

			// snmpd restarted under the running subagent: it registers again.
			before := s.State().Sessions
			m.Stop()
			m.Start(t)
			waitConnected(t, s, before)
			if got, err := m.tool(t, "snmpget", "public", ".1.3.6.1.4.1.200.1.4.0"); err != nil || got != `.1.3.6.1.4.1.200.1.4.0 = STRING: "1"` {
				t.Errorf("after snmpd's restart: %v %s", err, got)
			}
			// Silenced (fault injection), reads go unanswered and snmpd times them out.
			h.mu.Lock()
			h.silent = true
			h.mu.Unlock()
			if got, err := m.tool(t, "snmpget", "public", ".1.3.6.1.4.1.200.1.4.0"); err == nil && strings.Contains(got, `STRING: "1"`) {
				t.Errorf("a silenced subagent was answered for: %s", got)
			}
		})
	}
}
