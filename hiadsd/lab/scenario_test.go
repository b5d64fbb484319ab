package lab

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/diagagent/diagagent/hiadsd"
)

// TestScenarios replays the papers' examples and the cases found on a LAN,
// written as testdata/*.txt, against an in-memory Network. Commands:
//
//	network algo=hiadsd n=4 [recheck] [tested-only=(3)]   a converged system
//	truth                                                 set true statuses, "3 faulty" per line
//	set node=0                                            set entries of node 0's view, "3 faulty 1" per line
//	next node=0 level=3                                   the Hi-ADSD cluster node 0 tests next
//	station node=3 addr=192.0.2.9                         a SET of nmsID at node 3
//	interval node=0                                       one interval of node 0, batch by batch
//	round [rounds=R] [watch=0]                            every testing node steps once, in id order;
//	                                                      with watch, only what node 0 learned
//	view node=0                                           what node 0 holds
//
// go test ./hiadsd/lab -run TestScenarios -rewrite regenerates the outputs.
func TestScenarios(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var nw *Network
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd == "network" {
				nw = newScenarioNetwork(t, d)
				return ""
			}
			if nw == nil {
				d.Fatalf(t, "%s before network", d.Cmd)
			}
			return scenarioCommand(t, d, nw)
		})
	})
}

// newScenarioNetwork builds the network a "network" command describes.
func newScenarioNetwork(t *testing.T, d *datadriven.TestData) *Network {
	var algo string
	cfg := &hiadsd.Config{}
	d.ScanArgs(t, "algo", &algo)
	d.ScanArgs(t, "n", &cfg.N)
	d.MaybeScanArgs(t, "tested-only", &cfg.TestedOnly)
	cfg.Recheck = d.HasArg("recheck")
	a, err := ParseAlgorithm(algo)
	if err != nil {
		d.Fatalf(t, "%v", err)
	}
	nw, err := New(a, cfg)
	if err != nil {
		d.Fatalf(t, "%v", err)
	}
	return nw
}

// scenarioCommand runs every command but "network".
func scenarioCommand(t *testing.T, d *datadriven.TestData, nw *Network) string {
	var node int
	if d.HasArg("node") {
		d.ScanArgs(t, "node", &node)
	}
	switch d.Cmd {
	case "truth":
		for _, f := range scenarioLines(t, d, 2) {
			if err := nw.SetState(scenarioInt(t, d, f[0]), scenarioStatus(t, d, f[1])); err != nil {
				d.Fatalf(t, "%v", err)
			}
		}
	case "set":
		for _, f := range scenarioLines(t, d, 3) {
			nw.View(node).Set(scenarioInt(t, d, f[0]), hiadsd.Entry{Status: scenarioStatus(t, d, f[1]), Counter: uint32(scenarioInt(t, d, f[2]))})
		}
	case "next":
		d.ScanArgs(t, "level", &nw.Node(node).Next)
	case "station":
		var addr string
		d.ScanArgs(t, "addr", &addr)
		a, err := netip.ParseAddr(addr)
		if err != nil {
			d.Fatalf(t, "%v", err)
		}
		ch, err := nw.SetStation(node, a)
		if err != nil {
			d.Fatalf(t, "%v", err)
		}
		return fmt.Sprintf("node %d holds %v/%d\n", node, ch.New.Addr, ch.New.Counter)
	case "interval":
		return scenarioInterval(t, d, nw, node)
	case "round":
		rounds, watch := 1, -1
		d.MaybeScanArgs(t, "rounds", &rounds)
		d.MaybeScanArgs(t, "watch", &watch)
		var b strings.Builder
		for r := 1; r <= rounds; r++ {
			fmt.Fprintf(&b, "round %d: %s\n", r, scenarioRound(t, nw, watch))
		}
		return b.String()
	case "view":
		return scenarioView(nw, node) + "\n"
	default:
		d.Fatalf(t, "unknown command %q", d.Cmd)
	}
	return ""
}

// scenarioInterval runs one interval of node through Begin, Ready and
// Advance, answering each batch from the network, and prints the batches and
// what the interval reported.
func scenarioInterval(t *testing.T, d *datadriven.TestData, nw *Network, node int) string {
	var m hiadsd.Interval
	if err := m.Begin(nw.Node(node)); err != nil {
		return fmt.Sprintf("error: %v\n", err)
	}
	var b strings.Builder
	nw.entries = nw.entries[:0]
	for k := 1; !m.Done(); k++ {
		ops := m.Ready()
		var names []string
		for _, op := range ops {
			names = append(names, scenarioOp(op))
		}
		fmt.Fprintf(&b, "batch %d: %s\n", k, strings.Join(names, ", "))
		if err := m.Advance(nw.answer(node, ops)); err != nil {
			d.Fatalf(t, "%v", err)
		}
	}
	rep := m.Report()
	var tests, fetches, updates []string
	for _, tr := range rep.Tests {
		tests = append(tests, fmt.Sprintf("%d=%v", tr.Target, tr.Status))
	}
	for _, f := range rep.Fetches {
		s := fmt.Sprintf("%d%s", f.From, scenarioRanges(f.Ranges))
		if f.Err != nil {
			s += " (no answer)"
		}
		fetches = append(fetches, s)
	}
	for _, u := range rep.Updates {
		updates = append(updates, scenarioUpdate(u))
	}
	for _, c := range rep.Station {
		updates = append(updates, fmt.Sprintf("station %v/%d (from %d)", c.New.Addr, c.New.Counter, c.From))
	}
	fmt.Fprintf(&b, "tests: %s\nfetches: %s\nupdates: %s\nunused answers: %d\n",
		scenarioList(tests), scenarioList(fetches), scenarioList(updates), rep.Wasted)
	return b.String()
}

// scenarioRound steps every testing node in id order and groups what they
// learned: "15 faulty: 7 11 13 14" lists the nodes that came to hold node 15
// faulty in this round. With watch >= 0 it lists what node watch learned
// instead: "fault-free: 1 2 4 8 (4)".
func scenarioRound(t *testing.T, nw *Network, watch int) string {
	if watch >= 0 {
		return scenarioWatch(t, nw, watch)
	}
	type key struct {
		id   int // -1 for the station
		what string
	}
	learned := map[key][]int{}
	var keys []key
	reps := stepAll(t, nw)
	for id := 0; id < nw.Config().N; id++ {
		rep, ok := reps[id]
		if !ok {
			continue
		}
		add := func(k key) {
			if _, ok := learned[k]; !ok {
				keys = append(keys, k)
			}
			learned[k] = append(learned[k], id)
		}
		for _, u := range rep.Updates {
			add(key{u.ID, fmt.Sprintf("%d %v", u.ID, u.New.Status)})
		}
		for _, c := range rep.Station {
			add(key{-1, fmt.Sprintf("station %v", c.New.Addr)})
		}
	}
	if len(keys) == 0 {
		return "nothing new"
	}
	slices.SortFunc(keys, func(a, b key) int {
		if a.id != b.id {
			return a.id - b.id
		}
		return strings.Compare(a.what, b.what)
	})
	var parts []string
	for _, k := range keys {
		ids := make([]string, len(learned[k]))
		for i, id := range learned[k] {
			ids[i] = strconv.Itoa(id)
		}
		parts = append(parts, k.what+": "+strings.Join(ids, " "))
	}
	return strings.Join(parts, "; ")
}

// scenarioWatch steps every testing node in id order and lists the statuses
// node watch came to hold, with the ids: "fault-free: 1 2 4 8 (4)".
func scenarioWatch(t *testing.T, nw *Network, watch int) string {
	learned := map[hiadsd.Status][]string{}
	for _, u := range stepAll(t, nw)[watch].Updates {
		learned[u.New.Status] = append(learned[u.New.Status], strconv.Itoa(u.ID))
	}
	var parts []string
	for _, st := range []hiadsd.Status{hiadsd.FaultFree, hiadsd.Faulty, hiadsd.Partial, hiadsd.Unknown} {
		if ids := learned[st]; len(ids) > 0 {
			parts = append(parts, fmt.Sprintf("%v: %s (%d)", st, strings.Join(ids, " "), len(ids)))
		}
	}
	if len(parts) == 0 {
		return fmt.Sprintf("node %d learned nothing", watch)
	}
	return fmt.Sprintf("node %d learned %s", watch, strings.Join(parts, "; "))
}

// scenarioView prints node's view: "0=fault-free/0 1=faulty/2 ...".
func scenarioView(nw *Network, node int) string {
	v := nw.View(node)
	if v == nil {
		return "tested-only"
	}
	var parts []string
	for id := 0; id < v.Len(); id++ {
		e := v.Get(id)
		parts = append(parts, fmt.Sprintf("%d=%v/%d", id, e.Status, e.Counter))
	}
	st := nw.Node(node).Station
	if st.Addr.IsValid() {
		parts = append(parts, fmt.Sprintf("station=%v/%d", st.Addr, st.Counter))
	}
	return strings.Join(parts, " ")
}

func scenarioOp(op hiadsd.Op) string {
	if op.Kind == hiadsd.OpFetch {
		return fmt.Sprintf("fetch %d%s", op.Target, scenarioRanges(op.Ranges))
	}
	return fmt.Sprintf("test %d", op.Target)
}

func scenarioRanges(rs []hiadsd.Range) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, " [%d,%d)", r.Lo, r.Hi)
	}
	return b.String()
}

func scenarioUpdate(u hiadsd.Update) string {
	how := "direct"
	if !u.IsDirect() {
		how = fmt.Sprintf("from %d", u.From)
	}
	return fmt.Sprintf("%d %v/%d -> %v/%d (%s)", u.ID, u.Old.Status, u.Old.Counter, u.New.Status, u.New.Counter, how)
}

func scenarioList(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, "; ")
}

// scenarioLines splits the input into lines of exactly n fields.
func scenarioLines(t *testing.T, d *datadriven.TestData, n int) [][]string {
	var out [][]string
	for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
		f := strings.Fields(line)
		if len(f) != n {
			d.Fatalf(t, "line %q: want %d fields", line, n)
		}
		out = append(out, f)
	}
	return out
}

func scenarioInt(t *testing.T, d *datadriven.TestData, s string) int {
	v, err := strconv.Atoi(s)
	if err != nil {
		d.Fatalf(t, "%q is not an integer", s)
	}
	return v
}

func scenarioStatus(t *testing.T, d *datadriven.TestData, s string) hiadsd.Status {
	for _, st := range []hiadsd.Status{hiadsd.Unknown, hiadsd.FaultFree, hiadsd.Faulty, hiadsd.Partial} {
		if st.String() == s {
			return st
		}
	}
	d.Fatalf(t, "%q is not a status", s)
	return hiadsd.Unknown
}
