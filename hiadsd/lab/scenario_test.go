package lab

import (
	"errors"
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
//	network algo=hiadsd n=4 [recheck] [push] [tested-only=(3)]   a converged system
//	truth                                                 set true statuses, "3 faulty" per line
//	set node=0                                            set entries of node 0's view, "3 faulty 1" per line
//	next node=0 level=3                                   the Hi-ADSD cluster node 0 tests next
//	station node=3 addr=192.0.2.9                         a SET of nmsID at node 3
//	counter id=6 value=4294967290                         every view's entry for 6 takes that counter
//	push node=1 from=2 cluster=1                          a push to node 1 that names sender 2, "6 faulty 7" per line
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
	cfg.Push = d.HasArg("push")
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
	case "counter":
		var id, value int
		d.ScanArgs(t, "id", &id)
		d.ScanArgs(t, "value", &value)
		for k := 0; k < nw.Config().N; k++ {
			if v := nw.View(k); v != nil {
				v.Set(id, hiadsd.Entry{Status: v.Get(id).Status, Counter: uint32(value)})
			}
		}
	case "push":
		return scenarioPush(t, d, nw, node)
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

// scenarioPush delivers a push to node, as if from the sender it names, and
// prints what node took, refused and passes on.
func scenarioPush(t *testing.T, d *datadriven.TestData, nw *Network, node int) string {
	var from int
	p := hiadsd.Push{To: node}
	d.ScanArgs(t, "from", &from)
	d.ScanArgs(t, "cluster", &p.Cluster)
	for _, f := range scenarioLines(t, d, 3) {
		p.Entries = append(p.Entries, hiadsd.IDEntry{ID: scenarioInt(t, d, f[0]),
			Entry: hiadsd.Entry{Status: scenarioStatus(t, d, f[1]), Counter: uint32(scenarioInt(t, d, f[2]))}})
	}
	rep, err := nw.Deliver(from, p)
	if err != nil {
		return fmt.Sprintf("error: %v\n", err)
	}
	var took, refused, to []string
	for _, u := range rep.Updates {
		took = append(took, scenarioUpdate(u))
	}
	for _, u := range rep.Refused {
		refused = append(refused, scenarioUpdate(u))
	}
	for _, q := range rep.Pushes {
		to = append(to, strconv.Itoa(q.To))
	}
	out := fmt.Sprintf("took: %s\nrefused: %s\npasses on to: %s\n", scenarioList(took), scenarioList(refused), scenarioList(to))
	if len(rep.Pushes) > 0 {
		learned := map[string][]int{}
		var keys []string
		deliverAll(t, nw, node, rep.Pushes, func(id int, u hiadsd.Update) {
			k := fmt.Sprintf("%d %v", u.ID, u.New.Status)
			if _, ok := learned[k]; !ok {
				keys = append(keys, k)
			}
			learned[k] = append(learned[k], id)
		})
		var parts []string
		for _, k := range keys {
			parts = append(parts, k+": "+scenarioIDs(learned[k]))
		}
		out += fmt.Sprintf("down the tree: %s\n", scenarioList(parts))
	}
	return out
}

// deliverAll delivers the pushes node from sends, and those they are passed
// on in, to the end, calling took (if not nil) for every status change a
// receiver makes.
func deliverAll(t *testing.T, nw *Network, from int, ps []hiadsd.Push, took func(id int, u hiadsd.Update)) {
	type hop struct {
		from int
		p    hiadsd.Push
	}
	var queue []hop
	for _, p := range ps {
		queue = append(queue, hop{from, p})
	}
	for len(queue) > 0 {
		h := queue[0]
		queue = queue[1:]
		rep, err := nw.Deliver(h.from, h.p)
		if errors.Is(err, ErrNoAnswer) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range rep.Updates {
			if took != nil {
				took(h.p.To, u)
			}
		}
		for _, p := range rep.Pushes {
			queue = append(queue, hop{h.p.To, p})
		}
	}
}

// scenarioIDs prints ids separated by spaces.
func scenarioIDs(ids []int) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(id)
	}
	return strings.Join(s, " ")
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
	add := func(id int, k key) {
		if _, ok := learned[k]; !ok {
			keys = append(keys, k)
		}
		learned[k] = append(learned[k], id)
	}
	stepEach(t, nw, func(id int, rep Report) {
		for _, u := range rep.Updates {
			add(id, key{u.ID, fmt.Sprintf("%d %v", u.ID, u.New.Status)})
		}
		for _, c := range rep.Station {
			add(id, key{-1, fmt.Sprintf("station %v", c.New.Addr)})
		}
	}, func(to int, u hiadsd.Update) {
		add(to, key{u.ID, fmt.Sprintf("%d %v (pushed)", u.ID, u.New.Status)})
	})
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
		parts = append(parts, k.what+": "+scenarioIDs(learned[k]))
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
