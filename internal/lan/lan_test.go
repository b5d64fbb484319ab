//go:build linux

package lan

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/diagagent/diagagent/mib"
)

// agent is the diagagent binary the tests that run agents build, once.
var agent Agent

// packageBegan is when the package's tests began: admit logs each LAN's
// admission against it.
var packageBegan = time.Now()

// TestMain runs the tests and removes the binary they built. The LAN
// tests are parallel (each LAN is namespaces of its own, named by the
// process and the test's tag) and each waits for room for its agents
// (admit), but those of longFirst.
func TestMain(m *testing.M) {
	flag.Parse()
	lanRoom.expectLong(flag.Lookup("test.run").Value.String(), flag.Lookup("test.skip").Value.String())
	code := m.Run()
	agent.Remove()
	os.Exit(code)
}

// longFirst are the LAN tests that wait for no room: they begin at once,
// so that the package lasts about as long as the longest of them while the
// others take turns beside them: the nemesis (three minutes) and the
// lossy member's three LANs (two steps of a minute each, and the repairs
// between them). Each with the LANs it builds at once. make test runs the
// lossy member in a go test of its own, beside the other packages' tests and
// before the other LANs (LANALONE).
var longFirst = map[string]int{"TestOperatorsNemesisLAN": 1, "TestLossyMemberLAN": 3}

// lanRoom admits the other LAN tests while the agents running stay within
// LAN_AGENTS, 48 unless set: on two cores of a machine slow at system
// calls (page-table isolation), 140 agents at once starved each other
// until their tests timed out (a clean-clone run of 2026-11-29: nine LAN
// tests failed, each passing alone). A test waits until the long ones
// that will run have begun (30 s at most: one may fail before its LAN),
// so that they never wait behind it.
var lanRoom = room{cap: 48, long: map[string]int{}}

// room is a budget of agents; see lanRoom.
type room struct {
	mu      sync.Mutex
	changed *sync.Cond
	cap     int
	used    int            // the agents of the LANs admitted
	long    map[string]int // the tests of longFirst that will run: their LANs not begun yet
	patient *time.Timer    // ends the wait for them
	held    map[string]int // the tests admitted, and their agents
}

// expectLong notes which tests of longFirst the -run and -skip patterns
// select, and reads LAN_AGENTS.
func (r *room) expectLong(run, skip string) {
	r.changed = sync.NewCond(&r.mu)
	r.held = map[string]int{}
	if s := os.Getenv("LAN_AGENTS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			panic(fmt.Sprintf("LAN_AGENTS=%q: want a count of 1 or more", s))
		}
		r.cap = v
	}
	for name, lans := range longFirst {
		if selects(run, name, true) && !selects(skip, name, false) {
			r.long[name] = lans
		}
	}
}

// selects reports whether the top-level part of a -test.run or -test.skip
// pattern matches the test name; an empty pattern matches every name when
// all is set (-run) and none otherwise (-skip).
func selects(pattern, name string, all bool) bool {
	if pattern == "" {
		return all
	}
	top, _, _ := strings.Cut(pattern, "/")
	re, err := regexp.Compile(top)
	return err == nil && re.MatchString(name)
}

// admit waits until the LAN of agents agents that t builds fits, unless t
// is one of longFirst or holds room already; the room is freed when t
// ends, after its LAN is removed. A test fits when the LANs running leave
// room for it, or when no other runs.
func admit(t *testing.T, agents int) {
	t.Helper()
	top, _, _ := strings.Cut(t.Name(), "/")
	r := &lanRoom
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.held[t.Name()]; ok {
		return
	}
	if _, ok := longFirst[top]; ok {
		r.long[top] = max(r.long[top]-1, 0)
		r.changed.Broadcast()
	} else {
		if r.patient == nil {
			r.patient = time.AfterFunc(30*time.Second, func() {
				r.mu.Lock()
				clear(r.long)
				r.changed.Broadcast()
				r.mu.Unlock()
			})
		}
		for !r.longBegun() || r.used > 0 && r.used+agents > r.cap {
			r.changed.Wait()
		}
	}
	r.used += agents
	r.held[t.Name()] = agents
	in := time.Now()
	t.Logf("room: admitted %v into the package with %d agents of %d held", in.Sub(packageBegan).Round(time.Second), r.used, r.cap)
	t.Cleanup(func() {
		t.Logf("room: held %d agents for %v", agents, time.Since(in).Round(time.Second))
		r.mu.Lock()
		r.used -= r.held[t.Name()]
		delete(r.held, t.Name())
		r.changed.Broadcast()
		r.mu.Unlock()
	})
}

// longBegun reports whether every test of longFirst that will run has
// begun. The caller holds r.mu.
func (r *room) longBegun() bool {
	for _, waiting := range r.long {
		if waiting > 0 {
			return false
		}
	}
	return true
}

// binPath returns the diagagent binary, built at its first call.
func binPath(t testing.TB) string {
	t.Helper()
	p, err := agent.Path()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// ciSpec is the CI-sized LAN: a 1 s interval, and a retry and timeouts long
// enough that one lost datagram or a busy shared machine does not make a
// node faulty (a round lasts at most 1.1 s + 2 x 500 ms + 1 s = 3.1 s).
// LAN_KEEP=dir keeps the agents' logs and state in dir/<tag> after the test.
func ciSpec(t *testing.T, tag, algo string, agents int, printer bool) Spec {
	dir := t.TempDir()
	if keep := os.Getenv("LAN_KEEP"); keep != "" {
		dir = filepath.Join(keep, tag)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return Spec{Tag: tag, Bin: binPath(t), Dir: dir, Algorithm: algo, Agents: agents, Printer: printer,
		Interval: time.Second, Timeout: 500 * time.Millisecond, Retries: 1,
		PingTimeout: time.Second, PingCount: 1, RecoveryHold: 2 * time.Second}
}

// startCluster builds the LAN and its agents and waits until every agent
// holds every node fault-free; the LAN is removed when the test ends.
func startCluster(t *testing.T, s Spec) *Cluster {
	t.Helper()
	c := buildCluster(t, s)
	if err := c.StartAgents(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	took, err := c.Poll(2*c.Bound(), func() bool { return c.AllSee(ids(c.Agents), nodeIDs(c.Nodes()), 0) })
	if err != nil {
		t.Fatalf("every agent holds every node fault-free: %v", err)
	}
	t.Logf("%s, %d nodes: all fault-free everywhere %v after start; round %v, bound %v",
		s.Algorithm, c.Nodes(), took.Round(time.Millisecond), c.RoundTime(), c.Bound())
	return c
}

// buildCluster builds the LAN, with no agent running; the LAN is removed,
// and the logs shown if the test failed, when the test ends.
func buildCluster(t *testing.T, s Spec) *Cluster {
	t.Helper()
	admit(t, s.Agents)
	c, err := NewCluster(s)
	if err != nil {
		t.Fatalf("build the LAN (the test needs root for network namespaces): %v", err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("clean up the LAN: %v", err)
		}
		if t.Failed() {
			logTail(t, s.Dir)
		}
	})
	return c
}

// logTail logs the last lines of every file of a failed test's directory.
func logTail(t *testing.T, dir string) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if len(b) > 4000 {
			b = b[len(b)-4000:]
		}
		t.Logf("%s (tail):\n%s", filepath.Base(f), b)
	}
}

// expect waits until every observer holds node at status want (within the
// bound) and the station received a notification saying so.
func expect(t *testing.T, c *Cluster, what string, mark int, observers []int, node, want int) {
	t.Helper()
	took, err := c.Poll(c.Bound(), func() bool { return c.AllSee(observers, []int{node}, want) })
	if err != nil {
		t.Fatalf("%s: every fault-free agent holds node %d at %d: %v", what, node, want, err)
	}
	t.Logf("%s: node %d at %d (%s) everywhere after %v = %.1f rounds (bound %v)", what, node, want,
		statusName(want), took.Round(time.Millisecond), float64(took)/float64(c.RoundTime()), c.Bound())
	wait := c.Bound()
	switch want {
	case 0: // a repair is notified once it has held (traps.recovery_hold)
		wait += c.RepairHeld()
	case 2: // and a partial verdict too (traps.partial_hold)
		wait += c.PartialHeld()
	}
	if _, err := c.Station.Wait(wait, mark, StatusChange(node, want)); err != nil {
		t.Fatalf("%s: snmptrapd got no notification that node %d is %s: %v", what, node, statusName(want), err)
	}
}

// settled waits until every agent holds every node fault-free again: the
// host that was cut off believed everyone faulty and must unlearn it.
func settled(t *testing.T, c *Cluster, what string) {
	t.Helper()
	took, err := c.Poll(c.Bound(), func() bool { return c.AllSee(ids(c.Agents), nodeIDs(c.Nodes()), 0) })
	if err != nil {
		for k := range c.Agents {
			st, err := c.Statuses(k)
			t.Logf("agent %d holds %v (%v)", k+1, st, err)
		}
		t.Fatalf("%s: every agent holds every node fault-free: %v", what, err)
	}
	t.Logf("%s: every node fault-free at every agent %v later", what, took.Round(time.Millisecond))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// statusName names the status a nodeStatus value stands for.
func statusName(v int) string {
	st, err := mib.StatusOf(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return st.String()
}
