package netsnmptest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Binary returns the path of a net-snmp program, also looking in /usr/sbin
// where Debian installs the daemons; a missing one fails the test.
func Binary(t testing.TB, name string) string {
	t.Helper()
	p, err := Find(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Find returns the path of a net-snmp program on PATH or in /usr/sbin.
func Find(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	if p := filepath.Join("/usr/sbin", name); isExecutable(p) {
		return p, nil
	}
	return "", fmt.Errorf("%s not found: run scripts/test-deps.sh to install the test dependencies", name)
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode()&0o111 != 0
}

// ToolAddr is how net-snmp's tools and snmpd.conf name the UDP address
// host:port: as it is for IPv4, as udp6:[host]:port for IPv6.
func ToolAddr(addr string) string {
	if host, _, err := net.SplitHostPort(addr); err == nil && strings.Contains(host, ":") {
		return "udp6:" + addr
	}
	return "udp:" + addr
}

// FreeUDPPort returns a UDP port that was free on host (IPv4 or IPv6) a moment ago.
func FreeUDPPort(t testing.TB, host string) int {
	t.Helper()
	c, err := net.ListenPacket("udp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Fatalf("free UDP port on %s: %v", host, err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}

// FreeTCPPort returns a TCP port that was free on host (IPv4 or IPv6) a moment ago.
func FreeTCPPort(t testing.TB, host string) int {
	t.Helper()
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Fatalf("free TCP port on %s: %v", host, err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Env is the environment for net-snmp programs: no MIBs loaded unless asked,
// and persistent files kept in dir instead of /var/lib/snmp.
func Env(dir string) []string {
	return append(os.Environ(), "MIBS=", "SNMP_PERSISTENT_DIR="+filepath.Join(dir, "persist"), "SNMPCONFPATH="+dir)
}
