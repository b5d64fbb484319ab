//go:build integration && linux

package lan

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// namespaces lists the network namespaces whose name starts with prefix.
func namespaces(t *testing.T, prefix string) []string {
	t.Helper()
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		t.Fatalf("ip netns list: %v", err)
	}
	var got []string
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) > 0 && strings.HasPrefix(f[0], prefix) {
			got = append(got, f[0])
		}
	}
	return got
}

// ping sends one echo from host a to host b and reports whether it came back.
func ping(nw *Net, a, b int) bool {
	return exec.Command("ip", "netns", "exec", nw.Hosts[a], "ping", "-c", "1", "-W", "1",
		nw.Addrs[b].String()).Run() == nil
}

// TestBuildLinkLossClose builds three hosts, checks they reach each other,
// that a link down and 100% loss cut a host off and their repairs undo it,
// and that Close leaves no namespace behind.
func TestBuildLinkLossClose(t *testing.T) {
	nw, err := Build("t", 3)
	if err != nil {
		t.Fatalf("build (needs root): %v", err)
	}
	t.Cleanup(func() { _ = nw.Close() })
	if got := namespaces(t, nw.Prefix); len(got) != 4 {
		t.Fatalf("namespaces %v, want 3 hosts and the switch", got)
	}
	awaitPing(t, nw, 0, 2)
	must(t, nw.LinkDown(2))
	if ping(nw, 0, 2) {
		t.Fatal("host 3 answered ping with its link down")
	}
	must(t, nw.LinkUp(2))
	awaitPing(t, nw, 0, 2)

	must(t, nw.SetLoss(1, 100))
	if ping(nw, 0, 1) {
		t.Fatal("host 2 answered ping with 100% loss")
	}
	drops, err := nw.LossDrops(1)
	if err != nil || drops < 1 {
		t.Fatalf("drop counter %d, %v: want at least the echo request", drops, err)
	}
	must(t, nw.SetLoss(1, 0))
	awaitPing(t, nw, 0, 1)
	if err := nw.SetLoss(1, 101); err == nil {
		t.Fatal("SetLoss accepted 101%")
	}

	must(t, nw.Close())
	if got := namespaces(t, nw.Prefix); len(got) != 0 {
		t.Fatalf("Close left %v", got)
	}
}

// awaitPing pings from host a to b until it answers, for at most 10 s: a
// link needs a moment after coming up.
func awaitPing(t *testing.T, nw *Net, a, b int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if ping(nw, a, b) {
			return
		}
	}
	t.Fatalf("host %d never answered host %d's ping", b+1, a+1)
}

// TestSweepStaleRemovesDeadRuns makes a namespace named for a process that
// has exited and checks that SweepStale removes it and nothing else.
func TestSweepStaleRemovesDeadRuns(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	name := NamePrefix + strconv.Itoa(dead.ProcessState.Pid()) + "-stale"
	if err := ip("netns", "add", name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ip("netns", "del", name) })
	mine, err := Build("keep", 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mine.Close() })
	if got := namespaces(t, name); len(got) != 0 {
		t.Fatalf("a dead run's namespace survived the sweep: %v", got)
	}
	if got := namespaces(t, mine.Prefix); len(got) != 2 {
		t.Fatalf("the sweep touched this run's namespaces: %v", got)
	}
	// An interrupted run sweeps its own, and a dead run's are not its.
	if err := ip("netns", "add", name); err != nil {
		t.Fatal(err)
	}
	if err := SweepOwn(); err != nil {
		t.Fatal(err)
	}
	if got := namespaces(t, mine.Prefix); len(got) != 0 {
		t.Fatalf("SweepOwn left this run's namespaces: %v", got)
	}
	if got := namespaces(t, name); len(got) != 1 {
		t.Fatalf("SweepOwn touched another run's namespace: %v", got)
	}
}
