package lan

import (
	"fmt"
	"strings"
	"time"
)

// VersusTables formats one run as markdown: the settings, the steady cost,
// every event's knowledge and every stretch's false alarms.
func VersusTables(r VersusResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#### N = %d (%s)\n\n", r.N, r.Date)
	if r.Apart {
		b.WriteString("Each system ran alone, one after the other, each on a fresh LAN; the load is the highest of the phases.\n\n")
	}
	for _, f := range r.Failed {
		fmt.Fprintf(&b, "- **did not finish**, so absent from the tables: %s\n", f)
	}
	for i, s := range r.Systems {
		fmt.Fprintf(&b, "- **%s**: %s\n", s, r.Settings[i])
	}
	fmt.Fprintf(&b, "\nSteady state (mean per member; one-minute load average %.1f at its end; ICMP %.2f packets/s per host):\n\n", r.Load, r.ICMP)
	b.WriteString("| system | packets/s sent | bytes/s sent | CPU s per min | RSS MB (mean / max) |\n| --- | --- | --- | --- | --- |\n")
	for i, c := range r.Steady {
		fmt.Fprintf(&b, "| %s | %.1f | %.0f | %.2f | %.1f / %.1f |\n", r.Systems[i], c.PacketsPerSec, c.BytesPerSec, c.CPUPerMin, c.RSSMB, c.MaxRSSMB)
	}
	b.WriteString("\nEvents: time from the fault (or repair) until the first, the median and the last fault-free member knew:\n\n")
	b.WriteString("| event | system | first | median | last (everywhere) | knew |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, e := range r.Events {
		for i, k := range e.Per {
			fmt.Fprintf(&b, "| %s at %d | %s | %s | %s | %s | %d of %d |\n", e.Event, e.Host, r.Systems[i],
				secs(k.First, k.Knew > 0), secs(k.Median, k.Knew > 0), secs(k.Last, k.Knew == k.Of && k.Of > 0), k.Knew, k.Of)
		}
	}
	b.WriteString("\nFalse alarms (every member is alive throughout): episodes of a member holding a live one suspect, dead, faulty or partial:\n\n")
	b.WriteString("| stretch | system | episodes | about the busy member | nodes | reached a verdict | median length | longest | still open | raised / refuted | settled after |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, n := range r.Noise {
		for i, z := range n.Per {
			rr := "—"
			if strings.HasPrefix(r.Systems[i], "memberlist") {
				rr = fmt.Sprintf("%d / %d", z.Raised, z.Refuted)
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %s | %s | %d | %s | %s |\n", n.What, r.Systems[i], z.Episodes,
				z.AboutBusy, z.Nodes, z.Verdicts, secs(z.Median, z.Episodes > 0), secs(z.Max, z.Episodes > 0), z.Open, rr,
				z.Settled.Round(100*time.Millisecond))
		}
	}
	return b.String()
}

// secs is d in seconds with one decimal, or a dash when there is no figure.
func secs(d time.Duration, ok bool) string {
	if !ok {
		return "—"
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}

// column is one system of one run in BeforeAfter.
type column struct {
	label string
	r     *VersusResult
	i     int
}

// BeforeAfter formats, for one N, memberlist and each diagagent setting of
// the after run beside each diagagent setting of the before run: the steady
// cost, the last member's knowledge of each fault, and the false alarms of
// each stretch both runs played. A figure a run lacks is a dash.
func BeforeAfter(before, after VersusResult) string {
	var cols []column
	for i, s := range after.Systems {
		if strings.HasPrefix(s, "memberlist") {
			cols = append(cols, column{s, &after, i})
		}
	}
	for _, run := range []struct {
		r   *VersusResult
		tag string
	}{{&before, "before"}, {&after, "after"}} {
		for i, s := range run.r.Systems {
			if !strings.HasPrefix(s, "memberlist") {
				cols = append(cols, column{s + ", " + run.tag, run.r, i})
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "#### N = %d, before (%s) and after (%s)\n\n", after.N, before.Date, after.Date)
	for _, c := range cols {
		fmt.Fprintf(&b, "- **%s**: %s\n", c.label, c.r.Settings[c.i])
	}
	b.WriteString("\n| per member |")
	for _, c := range cols {
		fmt.Fprintf(&b, " %s |", c.label)
	}
	b.WriteString("\n| --- |" + strings.Repeat(" --- |", len(cols)) + "\n")
	row := func(what string, f func(c column) string) {
		fmt.Fprintf(&b, "| %s |", what)
		for _, c := range cols {
			fmt.Fprintf(&b, " %s |", f(c))
		}
		b.WriteString("\n")
	}
	steady := func(f func(Cost) string) func(c column) string {
		return func(c column) string {
			if c.i >= len(c.r.Steady) {
				return "—"
			}
			return f(c.r.Steady[c.i])
		}
	}
	row("bytes/s sent", steady(func(s Cost) string { return fmt.Sprintf("%.0f", s.BytesPerSec) }))
	row("packets/s sent", steady(func(s Cost) string { return fmt.Sprintf("%.1f", s.PacketsPerSec) }))
	row("CPU s per min", steady(func(s Cost) string { return fmt.Sprintf("%.2f", s.CPUPerMin) }))
	for _, kind := range []string{"crash", "freeze", "link"} {
		row(kind+": last member knew", func(c column) string { return lastKnew(c, kind) })
	}
	for _, what := range sharedStretches(before, after) {
		row(what+": false alarms", func(c column) string { return alarmsIn(c, what) })
	}
	return b.String()
}

// lastKnew is when the last fault-free member of column c knew the event
// kind, or how many knew when some never did.
func lastKnew(c column, kind string) string {
	for _, e := range c.r.Events {
		if e.Event != kind || c.i >= len(e.Per) {
			continue
		}
		k := e.Per[c.i]
		if k.Knew == k.Of && k.Of > 0 {
			return secs(k.Last, true)
		}
		return fmt.Sprintf("%d of %d knew", k.Knew, k.Of)
	}
	return "—"
}

// alarmsIn is column c's false-alarm episodes in the stretch what, with
// memberlist's raised suspicions.
func alarmsIn(c column, what string) string {
	for _, n := range c.r.Noise {
		if n.What != what || c.i >= len(n.Per) {
			continue
		}
		z := n.Per[c.i]
		if strings.HasPrefix(c.r.Systems[c.i], "memberlist") {
			return fmt.Sprintf("%d (%d raised)", z.Episodes, z.Raised)
		}
		return fmt.Sprint(z.Episodes)
	}
	return "—"
}

// sharedStretches are the fault-free stretches both runs played, in the
// after run's order.
func sharedStretches(before, after VersusResult) []string {
	var out []string
	for _, n := range after.Noise {
		for _, m := range before.Noise {
			if m.What == n.What {
				out = append(out, n.What)
				break
			}
		}
	}
	return out
}
