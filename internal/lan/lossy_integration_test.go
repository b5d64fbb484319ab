//go:build integration && linux

package lan

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// lossyStep is one condition of the lossy member's link: percent of the
// packets it receives and sends that are lost.
type lossyStep struct{ in, out int }

func (s lossyStep) String() string {
	switch {
	case s.out == 0:
		return fmt.Sprintf("%d%% ingress", s.in)
	case s.in == 0:
		return fmt.Sprintf("%d%% egress", s.out)
	}
	return fmt.Sprintf("%d%% both ways", s.in)
}

// lossyFor is how long each step lasts: LAN_LOSSY_STEP, 60 s unless set.
func lossyFor(t *testing.T) time.Duration {
	if s := os.Getenv("LAN_LOSSY_STEP"); s != "" {
		d, err := time.ParseDuration(s)
		must(t, err)
		return d
	}
	return 60 * time.Second
}

// The log lines an agent writes as it starts and stops doubting its own
// tests (agent/daemon/vantage.go).
const (
	doubtLine = "this agent doubts its own tests"
	trustLine = "this agent trusts its own tests again"
)

// TestLossyMemberLAN: 16 vCube agents with the cluster key and the shipped
// test settings. One agent's link loses 10%, 30%, 50% and 80% of its
// packets both ways, 50% of those it sends only, and 50% of those it
// receives only, each for a minute (LAN_LOSSY_STEP). At every step no agent, the
// lossy one included, holds any other node anything but fault-free: a
// failure no second vantage point confirms does not spread. From 30% on the
// lossy agent doubts its own tests (diagSelfDoubt, its log), no other
// agent does, and every other agent holds it degraded within five
// intervals of the first packet its link lost; at 10% nothing changes at
// all. The station is told at most twice about it a step (degraded, then
// fault-free). How soon it is named, and what each step costs in status
// changes and notifications, is logged.
func TestLossyMemberLAN(t *testing.T) {
	t.Parallel()
	// Three LANs of their own, side by side, two steps each: a minute a
	// step, the suite waits about three minutes for the six.
	groups := [][]lossyStep{{{10, 10}, {80, 80}}, {{30, 30}, {0, 50}}, {{50, 50}, {50, 0}}}
	if only := os.Getenv("LAN_LOSSY_ONLY"); only != "" { // LAN_LOSSY_ONLY=50 (both ways), 50in, 50out; a comma list runs one LAN a step, side by side
		groups = nil
		for _, one := range strings.Split(only, ",") {
			num := strings.TrimSuffix(strings.TrimSuffix(one, "in"), "out")
			pct, err := strconv.Atoi(num)
			must(t, err)
			st := lossyStep{pct, pct}
			switch one[len(num):] {
			case "in":
				st.out = 0
			case "out":
				st.in = 0
			}
			groups = append(groups, []lossyStep{st})
		}
	}
	for k, steps := range groups {
		var names []string
		for _, st := range steps {
			names = append(names, st.String())
		}
		t.Run(strings.Join(names, " then "), func(t *testing.T) { // no comma: a temporary directory's name is in snmptrapd's -c, a list
			t.Parallel()
			s := shippedSpec(t, fmt.Sprintf("lm%d", k))
			lossySteps(t, s, startCluster(t, s), steps)
		})
	}
}

// lossySteps runs TestLossyMemberLAN's steps, one after the other, on c.
func lossySteps(t *testing.T, s Spec, c *Cluster, steps []lossyStep) {
	const lossy = 5 // agent 6
	step := lossyFor(t)
	others := without(ids(16), lossy)
	for _, st := range steps {
		settled(t, c, "before "+st.String())
		if _, err := c.Poll(20*s.Interval, func() bool { return c.LogLines(doubtLine) == c.LogLines(trustLine) }); err != nil {
			t.Fatalf("before %v: an agent still doubts its own tests: %v", st, err)
		}
		doubts := c.LogLines(doubtLine)
		before := map[int]int{lossy: agentLines(t, c, lossy, doubtLine)}
		told := len(c.Notified())
		mark := c.Mark()
		// The loss holds from the moment nft commits its rules, just before
		// it exits: time runs from then, not from its start (on a loaded
		// host starting nft takes a second or more).
		asked := time.Now()
		must(t, c.Net.SetLinkLoss(lossy, st.in, st.out))
		began := time.Now()
		t.Logf("%v: the rules took %v to put in place", st, began.Sub(asked).Round(time.Millisecond))
		var doubting, named time.Duration
		early := -1 // packets the rules dropped in their first 2 s: none says the loss was not in place
		// A link that has lost nothing yet cannot be told from a clean one:
		// the bound on naming runs from its first lost packet. At 50% one
		// way the first test of the member may lose nothing (a CI run of
		// 2026-11-30 dropped none in the first 2 s and was named 10.4 s
		// after the rules, 5.2 intervals).
		firstDrop := make(chan time.Duration, 1)
		stopDrops := make(chan struct{})
		go func() {
			for {
				if n, err := c.Net.LossDrops(lossy); err == nil && n > 0 {
					firstDrop <- time.Since(began)
					return
				}
				select {
				case <-stopDrops:
					return
				case <-time.After(50 * time.Millisecond):
				}
			}
		}()
		for time.Since(began) < step {
			if early < 0 && time.Since(began) >= 2*time.Second {
				n, err := c.Net.LossDrops(lossy)
				must(t, err)
				early = n
			}
			if doubting == 0 && c.LogLines(doubtLine) > doubts {
				doubting = time.Since(began)
			}
			if named == 0 && c.AllSee(others, []int{lossy + 1}, mib.DiagStatus(hiadsd.Degraded)) {
				named = time.Since(began)
			}
			time.Sleep(200 * time.Millisecond)
		}
		close(stopDrops)
		dropped, err := c.Net.LossDrops(lossy)
		must(t, err)
		var lost time.Duration // from the rules to their first dropped packet
		select {
		case lost = <-firstDrop:
		default:
			lost = step // none dropped: nothing to name
		}
		must(t, c.Net.SetLinkLoss(lossy, 0, 0))
		settled(t, c, "after "+st.String())
		false_, about := 0, 0
		// When each agent's view took the lossy agent degraded, by the stamp
		// its line carries (the harness's own polling, every 200 ms through
		// sixteen snmpwalks, only says that it happened).
		took := map[int]time.Time{}
		for _, e := range c.Events(mark) {
			if !e.Change() {
				continue
			}
			if e.Node == lossy+1 {
				about++
				if _, ok := took[e.Self]; !ok && e.New == "degraded" {
					took[e.Self] = e.At
				}
				continue
			}
			if e.New != "fault-free" {
				false_++
				if false_ <= 5 {
					t.Errorf("%v: agent %d holds node %d %s (%s)", st, e.Self, e.Node, e.New, e.How)
				}
			}
		}
		about6 := func() (out []Sent) {
			for _, n := range c.Notified()[told:] {
				if n.Node == lossy+1 {
					out = append(out, n)
				}
			}
			return out
		}
		if n := about6(); len(n) > 0 && n[len(n)-1].Status != "fault-free" { // its repair waits for traps.recovery_hold
			_, _ = c.Poll(c.RepairHeld()+3*s.Interval, func() bool { n := about6(); return n[len(n)-1].Status == "fault-free" })
		}
		var notified []string
		for _, n := range about6() {
			notified = append(notified, fmt.Sprintf("%s by agent %d", n.Status, n.Self))
		}
		if named > 0 {
			last := began
			for _, a := range others {
				if at, ok := took[a+1]; ok && at.After(last) {
					last = at
				}
			}
			named = last.Sub(began)
		}
		fromLoss := named - lost // named, counted from the first packet lost
		doubted := c.LogLines(doubtLine) - doubts
		own := agentLines(t, c, lossy, doubtLine) - before[lossy]
		t.Logf("%v for %v: %d false verdicts about other nodes; the lossy agent %d doubted its own tests after %v (%d times; %d by other agents), "+
			"every other agent held it degraded after %v (%.1f intervals); %d status changes about it at the agents; notified about it, its repair included: %v; "+
			"the rules dropped %d packets in their first 2 s (the first after %v), %d in all",
			st, step, false_, lossy+1, doubting.Round(100*time.Millisecond), own, doubted-own, named.Round(100*time.Millisecond),
			named.Seconds()/s.Interval.Seconds(), about, notified, early, lost.Round(time.Millisecond), dropped)
		clean := st.in == 10 && st.out == 10
		switch {
		case clean && (about > 0 || doubted > 0):
			t.Errorf("%v: %d status changes about the lossy agent, %d doubt lines; want nothing at all", st, about, doubted)
		case !clean && (doubting == 0 || named == 0):
			t.Errorf("%v: the lossy agent doubted its own tests after %v, was held degraded everywhere after %v (0: never)", st, doubting, named)
		case doubted > own:
			t.Errorf("%v: %d other agents' doubt lines; want the lossy agent's alone", st, doubted-own)
		case own > 1:
			t.Errorf("%v: the lossy agent started doubting %d times: its doubt flaps", st, own)
		case !clean && fromLoss > 5*s.Interval:
			t.Errorf("%v: held degraded everywhere %.1f intervals after the first packet lost (%.1f after the rules); want 5 at most",
				st, fromLoss.Seconds()/s.Interval.Seconds(), named.Seconds()/s.Interval.Seconds())
		case len(notified) > 2:
			t.Errorf("%v: notified %v: want at most 2 notifications (degraded, then fault-free)", st, notified)
		}
	}
}

// shippedSpec is 16 vCube agents with the cluster key and the shipped
// test settings (2 s interval, 1 s timeout, 3 retries, two echoes in 2 s).
func shippedSpec(t *testing.T, tag string) Spec {
	s := ciSpec(t, tag, "vcube", 16, false)
	s.Keyring = true
	s.Interval, s.Timeout, s.Retries, s.PingTimeout, s.PingCount, s.RecoveryHold = 2*time.Second, time.Second, 3, 2*time.Second, 2, 0
	return s
}

// agentLines counts the lines holding sub in agent k's log so far.
func agentLines(t *testing.T, c *Cluster, k int, sub string) int {
	return strings.Count(agentLog(t, c, k), sub)
}

// agentLog is agent k's log so far.
func agentLog(t *testing.T, c *Cluster, k int) string {
	b, err := os.ReadFile(filepath.Join(c.Dir, fmt.Sprintf("agent%d.log", k+1)))
	must(t, err)
	return string(b)
}

// TestReachableFromSomeLAN: 16 vCube agents with the cluster key; four of
// them cannot reach agent 9's host (nftables rules in their namespaces),
// the others can, for two minutes. No agent holds agent 9 or any other
// node anything but fault-free meanwhile: the four's failed tests are
// refuted by the agents they ask. diagagent reachability, asked from the
// stations' host, names agent 9 with the four agents and nothing else,
// within five intervals: the first of the four to find it out of reach
// asks the others to test it at once, not in their turns of the plan.
func TestReachableFromSomeLAN(t *testing.T) {
	t.Parallel()
	s := shippedSpec(t, "rs")
	c := startCluster(t, s)
	const host = 8 // agent 9
	blocked := []int{0, 9, 10, 12}
	hold := 2 * time.Minute
	if d := os.Getenv("LAN_REACH_HOLD"); d != "" {
		v, err := time.ParseDuration(d)
		must(t, err)
		hold = v
	}
	mark := c.Mark()
	began := time.Now()
	for _, k := range blocked {
		must(t, c.Net.Unreachable(k, true, c.Net.Addrs[host]))
	}
	// diagagent reachability, from the stations' host, names the node with
	// the four agents (a row "9  -  198.18.0.9:161  1, 10, 11, 13"); the
	// rules cut both ways, so a row may name one of the four as out of
	// agent 9's reach too, and no other row may be there.
	from := func(ks ...int) string {
		return strings.Trim(strings.Join(strings.Fields(fmt.Sprint(nodeIDs0(ks))), ", "), "[]")
	}
	reported := time.Duration(0)
	var last string
	for reported == 0 && time.Since(began) < hold {
		out, err := c.CLI(1, "reachability")
		last = out
		named, other := false, false
		for _, l := range strings.Split(out, "\n") {
			f := strings.Fields(l)
			if len(f) < 4 || !strings.HasSuffix(f[2], fmt.Sprintf(":%d", s.port())) {
				continue
			}
			id, _ := strconv.Atoi(f[0])
			row := strings.Join(f[3:], " ")
			if id != host+1 {
				other = other || !slices.Contains(blocked, id-1) || row != from(host)
				continue
			}
			named = row == from(blocked...)
			for _, a := range strings.Split(row, ", ") { // some of the four, while the others' turns come
				k, _ := strconv.Atoi(a)
				other = other || !slices.Contains(blocked, k-1)
			}
		}
		if err == nil && named && !other {
			reported = time.Since(began)
		}
		if other {
			t.Errorf("diagagent reachability printed a row it should not:\n%s", out)
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	switch {
	case reported == 0:
		t.Errorf("diagagent reachability never named node %d unreachable from %s; last printed:\n%s", host+1, from(blocked...), last)
	case reported > 5*s.Interval:
		t.Errorf("diagagent reachability named node %d unreachable from %s after %.1f intervals; want 5 at most",
			host+1, from(blocked...), reported.Seconds()/s.Interval.Seconds())
	}
	time.Sleep(hold - time.Since(began))
	out, err := c.CLI(1, "reachability")
	t.Logf("diagagent reachability at the end of the hold (%v):\n%s", err, out)
	for _, k := range blocked {
		must(t, c.Net.Unreachable(k, false))
	}
	changes := 0
	for _, e := range c.Events(mark) {
		if e.Change() {
			changes++
			if changes <= 5 {
				t.Errorf("agent %d holds node %d %s (%s)", e.Self, e.Node, e.New, e.How)
			}
		}
	}
	t.Logf("node %d unreachable from agents %v for %v: %d status changes at any agent, about any node; "+
		"diagagent reachability named it with those agents after %v (%.1f intervals)",
		host+1, nodeIDs0(blocked), hold, changes, reported.Round(100*time.Millisecond), reported.Seconds()/s.Interval.Seconds())
	settled(t, c, "after the rules are lifted")
}
