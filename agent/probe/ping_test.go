package probe

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestCheckICMPPrivileged: with CAP_NET_RAW in the effective set (root
// normally has it; root in a container or under a unit's bounding set may
// not) a raw ICMP socket opens; without it the error names the fix.
func TestCheckICMPPrivileged(t *testing.T) {
	err := CheckICMP()
	if hasNetRaw(t) {
		if err != nil {
			t.Fatalf("with CAP_NET_RAW: %v", err)
		}
		return
	}
	if err == nil || !errors.Is(err, ErrICMPUnavailable) || !strings.Contains(err.Error(), "CAP_NET_RAW") {
		t.Fatalf("without CAP_NET_RAW: %v, want an error that names the fix", err)
	}
}

// hasNetRaw reports whether CAP_NET_RAW (capability 13) is in this
// process's effective set, as /proc/self/status shows it.
func hasNetRaw(t *testing.T) bool {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if hex, ok := strings.CutPrefix(line, "CapEff:"); ok {
			caps, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
			if err != nil {
				t.Fatalf("CapEff %q: %v", hex, err)
			}
			return caps&(1<<13) != 0
		}
	}
	t.Fatal("/proc/self/status has no CapEff line")
	return false
}

// pingGroupAllows reports whether ping_group_range includes this process's group.
func pingGroupAllows(t *testing.T) bool {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ping_group_range")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		t.Fatalf("ping_group_range %q: want two numbers", b)
	}
	lo, err1 := strconv.Atoi(f[0])
	hi, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil {
		t.Fatalf("ping_group_range %q: want two numbers", b)
	}
	gid := os.Getegid()
	return lo <= gid && gid <= hi
}

func TestCheckUnprivilegedICMPFollowsPingGroupRange(t *testing.T) {
	err := CheckUnprivilegedICMP()
	if pingGroupAllows(t) {
		if err != nil {
			t.Fatalf("group allowed by ping_group_range, yet: %v", err)
		}
		return
	}
	if !errors.Is(err, ErrICMPUnavailable) || !strings.Contains(err.Error(), "net.ipv4.ping_group_range") {
		t.Fatalf("got %v, want ErrICMPUnavailable naming net.ipv4.ping_group_range", err)
	}
}
