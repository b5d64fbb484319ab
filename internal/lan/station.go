package lan

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// trapFormat makes snmptrapd print one line per notification with every varbind.
const trapFormat = "NOTIFY %B\t%v\n"

// Station is net-snmp's snmptrapd running in a host namespace: the LAN's
// management station, which records every line it prints.
type Station struct {
	Addr string // a.b.c.d:162
	proc *Proc

	mu    sync.Mutex
	lines []string
	wake  chan struct{} // closed and replaced when a line arrives
}

// StartStation runs snmptrapd on addr inside ns (accepting any community)
// and waits until it says it listens.
func StartStation(ns, addr, dir string, log io.Writer) (*Station, error) {
	conf := filepath.Join(dir, "snmptrapd.conf")
	if err := os.WriteFile(conf, []byte("disableAuthorization yes\n"), 0o600); err != nil {
		return nil, fmt.Errorf("lan: station: %w", err)
	}
	s := &Station{Addr: addr, wake: make(chan struct{})}
	bin, err := netSNMP("snmptrapd")
	if err != nil {
		return nil, err
	}
	s.proc, err = Start(ns, log, s.add, "env", "MIBS=", "SNMP_PERSISTENT_DIR="+filepath.Join(dir, "persist"),
		bin, "-f", "-Lo", "-C", "-c", conf, "-n", "-On", "-F", trapFormat, "udp:"+addr)
	if err != nil {
		return nil, err
	}
	if _, err := s.Wait(10*time.Second, 0, func(l string) bool { return strings.HasPrefix(l, "NET-SNMP version") }); err != nil {
		s.Stop()
		return nil, fmt.Errorf("lan: snmptrapd on %s did not start: %w", addr, err)
	}
	return s, nil
}

func (s *Station) add(l string) {
	s.mu.Lock()
	s.lines = append(s.lines, l)
	close(s.wake)
	s.wake = make(chan struct{})
	s.mu.Unlock()
}

// Mark returns the number of lines so far, to Wait for later ones.
func (s *Station) Mark() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.lines)
}

// Notifications returns the notification lines from line index from on.
func (s *Station) Notifications(from int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, l := range s.lines[min(from, len(s.lines)):] {
		if strings.HasPrefix(l, "NOTIFY ") {
			out = append(out, l)
		}
	}
	return out
}

// Wait waits up to timeout for a line at index from or later that match
// accepts and returns its index.
func (s *Station) Wait(timeout time.Duration, from int, match func(string) bool) (int, error) {
	deadline := time.After(timeout)
	for {
		s.mu.Lock()
		for k := from; k < len(s.lines); k++ {
			if match(s.lines[k]) {
				s.mu.Unlock()
				return k, nil
			}
		}
		from = max(from, len(s.lines))
		wake := s.wake
		s.mu.Unlock()
		select {
		case <-wake:
		case <-s.proc.Done():
			return -1, fmt.Errorf("snmptrapd exited: %w", ErrExited)
		case <-deadline:
			return -1, fmt.Errorf("lan: no matching line from snmptrapd within %v", timeout)
		}
	}
}

// Stop ends snmptrapd.
func (s *Station) Stop() { _ = s.proc.Stop(5 * time.Second) }

// StatusChange matches a diagNodeStatusChange notification about NodeID node
// with the new status (0 fault-free, 1 faulty, 2 partial).
func StatusChange(node, status int) func(string) bool {
	id := regexp.MustCompile(fmt.Sprintf(`\.1\.3\.6\.1\.4\.1\.200\.1\.8\.1\.2\.\d+ = INTEGER: %d\b`, node))
	st := regexp.MustCompile(fmt.Sprintf(`\.1\.3\.6\.1\.4\.1\.200\.1\.8\.1\.3\.\d+ = INTEGER: %d\b`, status))
	return func(l string) bool {
		return strings.HasPrefix(l, "NOTIFY ") && strings.Contains(l, ".1.3.6.1.4.1.200.2.0.1") &&
			id.MatchString(l) && st.MatchString(l)
	}
}

// netSNMP finds a net-snmp program on PATH or in /usr/sbin.
func netSNMP(name string) (string, error) {
	for _, dir := range append(filepath.SplitList(os.Getenv("PATH")), "/usr/sbin") {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode()&0o111 != 0 && !st.IsDir() {
			return p, nil
		}
	}
	return "", fmt.Errorf("lan: %s not found: run scripts/test-deps.sh", name)
}
