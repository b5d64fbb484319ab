package probe

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestCheckICMPPrivileged(t *testing.T) {
	err := CheckICMP()
	if os.Geteuid() == 0 {
		if err != nil {
			t.Fatalf("as root: %v", err)
		}
		return
	}
	// Not root: a raw socket needs CAP_NET_RAW; either way the answer must be clear.
	if err != nil && (!errors.Is(err, ErrICMPUnavailable) || !strings.Contains(err.Error(), "CAP_NET_RAW")) {
		t.Fatalf("error %q does not name the fix", err)
	}
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
