//go:build integration && linux

package lan

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/diagagent/diagagent/agent/keyring"
	"github.com/diagagent/diagagent/mib"
)

// The operators' test with a nemesis (Jepsen's set and register workloads):
// operators change the node list at random while agents are killed and
// cut off, and at the end every agent runs one list, which holds every
// change acknowledged unless a later one undid it or its loss was told.

// nemesisSeed and nemesisFor are the run's seed and how long operators
// change the list: LAN_NEMESIS_SEED and LAN_NEMESIS_DURATION, for make
// nemesis (several seeds, three minutes each); make test runs seed 1 for
// two minutes, about 170 changes.
func nemesisRun(t *testing.T) (uint64, time.Duration) {
	seed, dur := uint64(1), 2*time.Minute
	if s := os.Getenv("LAN_NEMESIS_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		must(t, err)
		seed = v
	}
	if s := os.Getenv("LAN_NEMESIS_DURATION"); s != "" {
		v, err := time.ParseDuration(s)
		must(t, err)
		dur = v
	}
	return seed, dur
}

// nemesis is the run's shared state: the cluster, which agents are down
// or cut off, and every change asked for.
type nemesis struct {
	*operators
	rng     *rand.Rand    // the nemesis' own draws (operators draw from their own)
	procs   sync.Mutex    // kills, starts and hangups, one at a time
	file    []int         // the devices the configuration file lists now (ports)
	base    string        // the configuration file as the cluster started from it
	fileOps int           // edits of the file
	calm    chan struct{} // closed when the nemesis is done: every agent runs, connected
}

// ports an operator adds and removes: operator k alone owns
// 4001+10k .. 4010+10k, so its device changes are in the order it made
// them; the file lists devices of 4041 .. 4045.
const (
	nemesisPort     = 4001
	nemesisFilePort = 4041
	nemesisFileN    = 5
)

// TestOperatorsNemesisLAN: 16 vCube agents with the cluster key and a
// printer whose snmpd answers on 45 ports. Four operators, at agents 1, 5,
// 9 and 13, add and remove devices with diagagent nodes and set and end
// windows with snmpset, at random (each from its own seed), about one
// change every 2.5 s each; a fifth edits the configuration file (a device
// added or dropped) and sends SIGHUP to agent 3, and sends a plain SIGHUP
// to a random agent; a sixth rotates the cluster key (install, use, then
// remove the old one once every agent holds the new one). Meanwhile the
// nemesis kills an agent with SIGKILL and starts it again, or cuts four
// agents off for 30 s, every 20 s, and once moves one agent's clock 10
// minutes ahead for 30 s (diagFaultClockSkew). At the end every agent runs one list,
// and: every device's state is its last acknowledged add or removal; each
// file device is listed as the file says; every node's window is one set
// by an acknowledged change, and where it is not the last acknowledged,
// the station got a diagNodeListConflict about that node; every change no
// agent may take got its error; the key in use is the last one put in use.
func TestOperatorsNemesisLAN(t *testing.T) {
	t.Parallel()
	seed, dur := nemesisRun(t)
	s := ciSpec(t, "nm", "vcube", 16, true)
	s.Keyring = true
	for p := nemesisPort; p < nemesisFilePort+nemesisFileN; p++ {
		s.PrinterPorts = append(s.PrinterPorts, p)
	}
	c := startCluster(t, s)
	base, err := os.ReadFile(c.conf)
	must(t, err)
	n := &nemesis{operators: &operators{t: t, c: c}, rng: rand.New(rand.NewPCG(seed, 50)), base: string(base), calm: make(chan struct{})}
	mark := c.Station.Mark()
	t.Logf("seed %d, operators change the list for %v", seed, dur)
	began := time.Now()
	end := began.Add(dur)
	at := []int{0, 4, 8, 12}
	var wg sync.WaitGroup
	for k := range 4 {
		wg.Go(func() { n.operator(k, at[k], rand.New(rand.NewPCG(seed, uint64(k))), end) })
	}
	wg.Go(func() { n.fileOperator(rand.New(rand.NewPCG(seed, 10)), end) })
	var next keyring.Key
	wg.Go(func() { next = n.rotate(began.Add(dur/4), end) })
	wg.Go(func() { n.nemesis(began, end) })
	wg.Wait()
	t.Logf("%d changes asked for in %v, %d file edits", len(n.ch), time.Since(began).Round(time.Second), n.fileOps)

	n.oneList(ids(c.Agents), 4*c.Bound())
	n.check(next, mark)
	n.collected(ids(c.Agents))
}

// collected removes one device the operators left, waits until every
// agent serves one list collected since (diagListStable, one
// fingerprint), and checks that the collection changed nothing an
// operator sees (the same members at the same ids, with the same windows)
// and freed the device's id: diagNodeNextID is at most that id.
func (n *nemesis) collected(all []int) {
	t, c := n.t, n.c
	before := n.walk()
	printer := c.Net.Addrs[c.Agents].String()
	var gone string
	var id int
	for p := nemesisPort; p < nemesisPort+40 && gone == ""; p++ {
		if r, ok := before[fmt.Sprintf("%s:%d", printer, p)]; ok {
			gone, id = fmt.Sprintf("%s:%d", printer, p), r.id
			if out, err := n.cli(0, "nodes", "-remove", fmt.Sprintf("dev-%d", p), "-wait", "2m"); err != nil {
				t.Fatalf("nodes -remove dev-%d: %v\n%s", p, err, out)
			}
		}
	}
	if gone == "" {
		t.Fatal("the operators left no device to remove")
	}
	delete(before, gone)
	stable := func(k int) string {
		out, _ := c.snmp("snmpget", "public", c.AgentAddr(k), "-Oqvx", mib.DiagListStable0)
		return strings.TrimSpace(out)
	}
	was := stable(0)
	took, err := c.Poll(8*c.RoundTime()+4*c.Bound(), func() bool {
		first := stable(all[0])
		if first == "" || first == was || first == `""` {
			return false
		}
		for _, k := range all[1:] {
			if stable(k) != first {
				return false
			}
		}
		return true
	})
	if err != nil {
		t.Fatalf("the list was not collected at every agent after device %s was removed (diagListStable at agent 1: %s): %v", gone, stable(0), err)
	}
	n.oneList(all, c.Bound())
	if after := n.walk(); !maps.Equal(before, after) {
		t.Errorf("the collection changed what an operator sees:\nbefore %v\nafter  %v", before, after)
	}
	out, err := c.snmp("snmpget", "public", c.AgentAddr(0), "-Oqv", mib.DiagNodeNextID0)
	next, _ := strconv.Atoi(strings.TrimSpace(out))
	if err != nil || next > id {
		t.Errorf("diagNodeNextID is %s after the collection, want at most %d (the removed device's id, freed): %v", strings.TrimSpace(out), id, err)
	}
	t.Logf("device %s (node %d) removed; every agent runs the list collected at %s, %v later; %d members as before; the next id %d",
		gone, id, stable(0), took.Round(time.Millisecond), len(before), next)
}

// operator makes random changes at agent a until end: adds and removals
// of its own devices, windows set and ended on the agents' nodes (which
// other operators set too), and now and then a change no agent takes.
func (n *nemesis) operator(k, a int, rng *rand.Rand, end time.Time) {
	present := map[int]bool{}
	for time.Now().Before(end) {
		time.Sleep(time.Duration(1500+rng.IntN(2000)) * time.Millisecond)
		switch d := rng.IntN(20); {
		case d < 9:
			port := nemesisPort + 10*k + rng.IntN(10)
			ch := &change{what: fmt.Sprintf("device %d", port), by: k, at: a, port: port}
			remove := present[port]
			if remove {
				ch.what += " removed"
			} else {
				ch.what += " added"
			}
			n.device(ch, remove, "0")
			if ch.acked {
				present[port] = !remove
			}
		case d < 18:
			node := 2 + rng.IntN(15)
			ch := &change{what: fmt.Sprintf("window on node %d", node), by: k, at: a, node: node}
			if rng.IntN(4) > 0 {
				ch.until = time.Now().Add(time.Duration(1+rng.IntN(600)) * time.Minute).Truncate(time.Second)
			}
			n.window(ch)
		case d < 19:
			n.refused(&change{what: "its own agent removed", by: k, at: a, port: -1, refuse: true})
		default:
			n.refused(&change{what: "a window of 400 days", by: k, at: a, node: 2 + rng.IntN(15),
				until: time.Now().Add(400 * 24 * time.Hour), refuse: true})
		}
	}
}

// fileOperator edits the configuration file every 6 s or so, adding or
// dropping a device, and sends SIGHUP to agent 3, as an operator running
// systemctl reload does; between two edits it sends a plain SIGHUP to a
// random agent, which must change nothing.
func (n *nemesis) fileOperator(rng *rand.Rand, end time.Time) {
	for time.Now().Before(end) {
		time.Sleep(time.Duration(4000+rng.IntN(4000)) * time.Millisecond)
		port := nemesisFilePort + rng.IntN(nemesisFileN)
		if i := slices.Index(n.file, port); i >= 0 {
			n.file = slices.Delete(n.file, i, i+1)
		} else {
			n.file = append(n.file, port)
		}
		n.writeFile()
		n.fileOps++
		n.hangup(2)
		time.Sleep(time.Duration(1000+rng.IntN(2000)) * time.Millisecond)
		n.hangup(rng.IntN(n.c.Agents))
	}
}

// writeFile writes the cluster's configuration file with the devices the
// file lists now, whole at once (a rename), as configuration management
// does; agents started later read it too.
func (n *nemesis) writeFile() {
	var lines strings.Builder
	for _, p := range n.file {
		fmt.Fprintf(&lines, "  - {address: \"%s\", port: %d, tested_only: true, community: printers, name: file-%d}\n",
			n.c.Net.Addrs[n.c.Agents], p, p)
	}
	printer := regexp.MustCompile(`(?m)^  - \{address: "[^"]+", port: 161, tested_only: true.*\n`)
	loc := printer.FindStringIndex(n.base)
	if loc == nil {
		n.t.Fatalf("no printer line in the configuration:\n%s", n.base)
	}
	text := n.base[:loc[1]] + lines.String() + n.base[loc[1]:]
	tmp := n.c.conf + ".new"
	must(n.t, os.WriteFile(tmp, []byte(text), 0o600))
	must(n.t, os.Rename(tmp, n.c.conf))
}

// hangup sends SIGHUP to agent k if it runs.
func (n *nemesis) hangup(k int) {
	n.procs.Lock()
	defer n.procs.Unlock()
	if p := n.c.Agent(k); p != nil {
		must(n.t, p.Hangup())
	}
}

// rotate installs a new cluster key at agent 13 at from, puts it in use
// and writes it first in the keyring file; once the nemesis is done (an
// agent cut off while the old key goes would be left with no key the
// others take), it removes the old key there and from the file. It
// returns the new key.
func (n *nemesis) rotate(from, end time.Time) keyring.Key {
	c := n.c
	next, err := keyring.Generate()
	must(n.t, err)
	time.Sleep(time.Until(from))
	ring := c.Dir + "/keyring"
	for _, step := range []struct {
		args []string
		file string
	}{
		{[]string{"keyring", "-install", next.String(), "-wait", "60s"}, c.Key.String() + "\n" + next.String() + "\n"},
		{[]string{"keyring", "-use", next.String(), "-wait", "60s"}, next.String() + "\n" + c.Key.String() + "\n"},
		{[]string{"keyring", "-remove", c.Key.ID(), "-wait", "60s"}, next.String() + "\n"},
	} {
		if step.args[1] == "-remove" {
			<-n.calm
		}
		ch := &change{what: "key: " + step.args[1], by: 5, at: 12}
		for {
			out, err := n.cli(12, step.args...)
			n.record(ch, out, err)
			n.t.Logf("key %s at agent 13: %v", step.args[1], cmpOr(err, "done"))
			if err == nil || time.Now().After(end.Add(time.Minute)) {
				break
			}
			time.Sleep(2 * time.Second) // an agent down or cut off: the command waits for every agent answering
			ch = &change{what: ch.what + " again", by: 5, at: 12}
		}
		tmp := ring + ".new"
		must(n.t, os.WriteFile(tmp, []byte(step.file), 0o600))
		must(n.t, os.Rename(tmp, ring))
	}
	return next
}

// nemesis kills an agent and starts it again, or cuts four agents off for
// 30 s, every 20 s until end, and once moves the clock of an agent that
// operators change the list at 10 minutes ahead for 30 s, then back;
// every agent runs and is connected, its clock back, when it returns.
func (n *nemesis) nemesis(began, end time.Time) {
	c := n.c
	defer close(n.calm)
	for at, event := began.Add(10*time.Second), 0; at.Before(end.Add(-10 * time.Second)); at, event = at.Add(20*time.Second), event+1 {
		time.Sleep(time.Until(at))
		if event == 1 { // once a run: an agent an operator or the file changes the list at
			k := []int{2, 4, 8, 12}[n.rng.IntN(4)]
			n.t.Logf("nemesis %s: agent %d's clock 10 minutes ahead for 30 s", time.Since(began).Round(time.Second), k+1)
			n.skew(k, 600)
			time.Sleep(30 * time.Second)
			n.skew(k, 0)
			continue
		}
		if n.rng.IntN(2) == 0 {
			k := 1 + n.rng.IntN(c.Agents-1)
			n.t.Logf("nemesis %s: agent %d killed", time.Since(began).Round(time.Second), k+1)
			n.procs.Lock()
			must(n.t, c.KillAgent(k))
			n.procs.Unlock()
			time.Sleep(time.Duration(3000+n.rng.IntN(5000)) * time.Millisecond)
			n.procs.Lock()
			must(n.t, c.StartAgent(k))
			n.procs.Unlock()
			continue
		}
		cut := n.rng.Perm(c.Agents - 1)[:4]
		for i := range cut {
			cut[i]++
			must(n.t, c.Net.LinkDown(cut[i]))
		}
		n.t.Logf("nemesis %s: agents %v cut off for 30 s", time.Since(began).Round(time.Second), nodeIDs0(cut))
		time.Sleep(30 * time.Second)
		for _, k := range cut {
			must(n.t, c.Net.LinkUp(k))
		}
	}
}

// skew moves agent k's clock for its node list by secs (diagFaultClockSkew),
// through the write community; an agent down or cut off is tried until it
// takes it.
func (n *nemesis) skew(k, secs int) {
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Second) {
		out, err := n.c.snmp("snmpset", "private", n.c.AgentAddr(k), mib.DiagFaultClockSkew0, "i", strconv.Itoa(secs))
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			n.t.Fatalf("diagFaultClockSkew.0 = %d at agent %d: %v\n%s", secs, k+1, err, out)
		}
	}
}

// cmpOr is err, or what if there is none, for a log line.
func cmpOr(err error, what string) any {
	if err != nil {
		return err
	}
	return what
}

// check compares what agent 1 runs with every change acknowledged.
func (n *nemesis) check(next keyring.Key, mark int) {
	t, c := n.t, n.c
	n.mu.Lock()
	changes := slices.Clone(n.ch)
	n.mu.Unlock()
	slices.SortFunc(changes, func(a, b *change) int { return a.done.Compare(b.done) })
	got := n.walk()
	printer := c.Net.Addrs[c.Agents].String()
	device := map[int]*change{} // port -> its last change: acknowledged, or of an outcome unknown
	windows := map[int][]*change{}
	refused, taken := 0, 0
	for _, ch := range changes {
		switch {
		case ch.refuse && ch.acked:
			t.Errorf("%s at agent %d was taken: %s", ch.what, ch.at+1, ch.out)
		case ch.refuse:
			refused++
		case ch.port > 0:
			device[ch.port] = ch
		case ch.node > 0:
			windows[ch.node] = append(windows[ch.node], ch)
		}
		if ch.acked && !ch.refuse {
			taken++
		}
	}
	for port, ch := range device {
		addr := fmt.Sprintf("%s:%d", printer, port)
		_, listed := got[addr]
		removed := strings.HasSuffix(ch.what, "removed")
		switch {
		case !ch.acked:
			t.Logf("device %d: its last change (%s at agent %d) was not answered (%s); the list holds it: %v", port, ch.what, ch.at+1,
				strings.TrimSpace(ch.out), listed)
		case removed && listed:
			t.Errorf("device %d is listed; its last change, acknowledged, removed it (at agent %d)", port, ch.at+1)
		case !removed && !listed:
			t.Errorf("device %d is not listed; its last change, acknowledged, added it (at agent %d): %s", port, ch.at+1, strings.TrimSpace(ch.out))
		}
	}
	for p := nemesisFilePort; p < nemesisFilePort+nemesisFileN; p++ {
		_, listed := got[fmt.Sprintf("%s:%d", printer, p)]
		if in := slices.Contains(n.file, p); in != listed {
			t.Errorf("file device %d: the file lists it %v, the list %v", p, in, listed)
		}
	}
	// The station's conflicts, by node: a window that lost is told by its
	// agent when it merges the list that won, so once every agent runs one
	// list every loss was found; the last ones may still be on their way.
	node := regexp.MustCompile(`\.1\.3\.6\.1\.4\.1\.200\.1\.19\.1\.0 = INTEGER: (\d+)`)
	told := func() map[int]int {
		out := map[int]int{}
		for _, l := range c.Station.Notifications(mark) {
			if !strings.Contains(l, mib.DiagNodeListConflict) {
				continue
			}
			if m := node.FindStringSubmatch(l); m != nil {
				id, _ := strconv.Atoi(m[1])
				out[id]++
			}
		}
		return out
	}
	var untold []int // nodes whose last window acknowledged does not hold
	for id, chs := range windows {
		row, ok := got[fmt.Sprintf("%s:%d", c.Net.Addrs[id-1], c.port())]
		if !ok {
			t.Errorf("node %d is not in the list", id)
			continue
		}
		now := time.Now()
		holds := func(ch *change) bool {
			if ch.until.IsZero() {
				return !row.until.After(now)
			}
			return row.until.Equal(ch.until)
		}
		if !slices.ContainsFunc(chs, holds) {
			t.Errorf("node %d's window ends at %v, which no change set", id, row.until)
		}
		var last *change
		for _, ch := range chs {
			if ch.acked {
				last = ch
			}
		}
		if last != nil && !holds(last) && !slices.ContainsFunc(chs, func(ch *change) bool { return !ch.acked && holds(ch) }) {
			untold = append(untold, id)
			t.Logf("node %d's window ends at %v, not at the last one acknowledged (%s at agent %d, %v): its loss must be told",
				id, row.until, last.what, last.at+1, last.until)
		}
	}
	if _, err := c.Poll(c.Bound(), func() bool {
		got := told()
		return !slices.ContainsFunc(untold, func(id int) bool { return got[id] == 0 })
	}); err != nil {
		t.Errorf("windows lost untold: the station got no diagNodeListConflict about nodes %v (it got %v)", untold, told())
	}
	out, err := n.cli(0, "keyring", "-list")
	if err != nil || !strings.Contains(out, next.ID()) || strings.Contains(out, c.Key.ID()) {
		t.Errorf("keyring -list at agent 1 after the rotation to %s: %v\n%s", next.ID(), err, out)
	}
	t.Logf("%d changes taken, %d refused as they must be; conflicts told by node %v; the list: %d members", taken, refused, told(), len(got))
}
