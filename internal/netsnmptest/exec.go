package netsnmptest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
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

// FreeUDPPort returns a UDP port that was free on host (IPv4 or IPv6) a
// moment ago, and that no other call in this process returned: tests side
// by side never get the same one.
func FreeUDPPort(t testing.TB, host string) int {
	t.Helper()
	return freePort(t, "udp", host)
}

// FreeTCPPort is FreeUDPPort for TCP.
func FreeTCPPort(t testing.TB, host string) int {
	t.Helper()
	return freePort(t, "tcp", host)
}

// handedOut holds the ports FreeUDPPort and FreeTCPPort returned, by
// network.
var handedOut struct {
	sync.Mutex
	ports map[string]map[int]bool
}

// Reserve reports whether port, on network, was not handed out yet in this
// process, and hands it out: for a caller that found a port free by its
// own means (on several addresses at once).
func Reserve(network string, port int) bool {
	handedOut.Lock()
	defer handedOut.Unlock()
	if handedOut.ports == nil {
		handedOut.ports = map[string]map[int]bool{}
	}
	if handedOut.ports[network] == nil {
		handedOut.ports[network] = map[int]bool{}
	}
	if handedOut.ports[network][port] {
		return false
	}
	handedOut.ports[network][port] = true
	return true
}

// freePort finds a port free on host for network and hands it out.
func freePort(t testing.TB, network, host string) int {
	t.Helper()
	for range 100 {
		var port int
		if network == "udp" {
			c, err := net.ListenPacket("udp", net.JoinHostPort(host, "0"))
			if err != nil {
				t.Fatalf("free UDP port on %s: %v", host, err)
			}
			port = c.LocalAddr().(*net.UDPAddr).Port
			c.Close()
		} else {
			l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
			if err != nil {
				t.Fatalf("free TCP port on %s: %v", host, err)
			}
			port = l.Addr().(*net.TCPAddr).Port
			l.Close()
		}
		if Reserve(network, port) {
			return port
		}
	}
	t.Fatalf("no %s port on %s that this process did not hand out already", network, host)
	return 0
}

// Env is the environment for net-snmp programs: no MIBs loaded unless asked,
// and persistent files kept in dir instead of /var/lib/snmp.
func Env(dir string) []string {
	return append(os.Environ(), "MIBS=", "SNMP_PERSISTENT_DIR="+filepath.Join(dir, "persist"), "SNMPCONFPATH="+dir)
}
