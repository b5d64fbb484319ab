//go:build linux

package lan

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/diagagent/diagagent/internal/netsnmptest"
)

// Station is net-snmp's snmptrapd running in a host namespace: the LAN's
// management station, which records every line it prints.
type Station struct {
	netsnmptest.Lines        // what it printed
	Addr              string // a.b.c.d:162
	proc              *Proc
}

// StartStation runs snmptrapd on addr inside ns (accepting any community)
// and waits until it says it listens.
func StartStation(ns, addr, dir string, log io.Writer) (*Station, error) {
	conf := filepath.Join(dir, "snmptrapd.conf")
	if err := os.WriteFile(conf, []byte("disableAuthorization yes\n"), 0o600); err != nil {
		return nil, fmt.Errorf("lan: station: %w", err)
	}
	s := &Station{Addr: addr}
	bin, err := netsnmptest.Find("snmptrapd")
	if err != nil {
		return nil, fmt.Errorf("lan: %w", err)
	}
	s.proc, err = Start(ns, log, s.Add, "env", "MIBS=", "SNMP_PERSISTENT_DIR="+filepath.Join(dir, "persist"),
		bin, "-f", "-Lo", "-C", "-c", conf, "-n", "-On", "-F", netsnmptest.TrapFormat, netsnmptest.ToolAddr(addr))
	if err != nil {
		return nil, err
	}
	if _, err := s.Wait(10*time.Second, 0, func(l string) bool { return strings.HasPrefix(l, "NET-SNMP version") }); err != nil {
		s.Stop()
		return nil, fmt.Errorf("lan: snmptrapd on %s did not start: %w", addr, err)
	}
	return s, nil
}

// Wait waits up to timeout for a line at index from or later that match
// accepts and returns its index.
func (s *Station) Wait(timeout time.Duration, from int, match func(string) bool) (int, error) {
	k, err := s.Lines.Wait(timeout, from, s.proc.Done(), match)
	if errors.Is(err, netsnmptest.ErrExited) {
		return k, fmt.Errorf("snmptrapd: %w: %w", ErrExited, err)
	}
	return k, err
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

// NotificationsAbout counts, among lines, the diagNodeStatusChange
// notifications about NodeID node and the others that name it
// (diagNodeFlapping, diagNodeMaintenanceEnded: its diagTree columns).
func NotificationsAbout(lines []string, node int) (status, other int) {
	kind := regexp.MustCompile(`OID: \.1\.3\.6\.1\.4\.1\.200\.2\.0\.(\d+)\b`)
	id := regexp.MustCompile(fmt.Sprintf(`\.1\.3\.6\.1\.4\.1\.200\.1\.8\.1\.2\.\d+ = INTEGER: %d\b`, node))
	col := regexp.MustCompile(fmt.Sprintf(`\.1\.3\.6\.1\.4\.1\.200\.1\.1\.1\.\d+\.%d = `, node))
	for _, l := range lines {
		m := kind.FindStringSubmatch(l)
		switch {
		case m == nil:
		case m[1] == "1" && id.MatchString(l):
			status++
		case (m[1] == "6" || m[1] == "7") && col.MatchString(l):
			other++
		}
	}
	return status, other
}

// diagNotification finds the DIAGNOSIS-MIB notification a station line
// carries: the last arc of its snmpTrapOID.
var diagNotification = regexp.MustCompile(`OID: \.1\.3\.6\.1\.4\.1\.200\.2\.0\.(\d+)\b`)

// The kinds of DIAGNOSIS-MIB notification DiagNotifications counts.
const (
	KindStatus = 1 // diagNodeStatusChange
	KindCause  = 9 // diagCauseChange
)

// DiagNotifications returns the kinds (the last arc of their OID) of the
// DIAGNOSIS-MIB notifications among lines, in order.
func DiagNotifications(lines []string) []int {
	var out []int
	for _, l := range lines {
		if m := diagNotification.FindStringSubmatch(l); m != nil {
			k := 0
			fmt.Sscan(m[1], &k)
			out = append(out, k)
		}
	}
	return out
}

// CauseSeen is a diagCauseChange as the station printed it.
type CauseSeen struct {
	Kind         int    // diagCauseKind: 1 lost, 2 back down, 3 back cut, 4 back
	Group, Split uint64 // diagCauseGroup, diagCauseSplit
	Nodes        string // diagCauseNodeList, "17-24"
	Lasted       int    // diagCauseLasted, seconds
}

// causeVar matches one of diagCause's scalars in a station line.
var causeVar = regexp.MustCompile(`\.1\.3\.6\.1\.4\.1\.200\.1\.20\.(\d)\.0 = (?:INTEGER|Gauge32|STRING): "?([^"\t]*)"?`)

// ParseCause reads a diagCauseChange line; false for any other line.
func ParseCause(line string) (CauseSeen, bool) {
	m := diagNotification.FindStringSubmatch(line)
	if m == nil || m[1] != "9" {
		return CauseSeen{}, false
	}
	var c CauseSeen
	for _, v := range causeVar.FindAllStringSubmatch(line, -1) {
		switch v[1] {
		case "1":
			fmt.Sscan(v[2], &c.Kind)
		case "2":
			fmt.Sscan(v[2], &c.Group)
		case "3":
			fmt.Sscan(v[2], &c.Split)
		case "5":
			c.Nodes = v[2]
		case "7":
			fmt.Sscan(v[2], &c.Lasted)
		}
	}
	return c, true
}
