//go:build linux

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
	b.WriteString("\nEvents: time from the fault (or repair) until the first, the median and the last fault-free member knew, " +
		"by the time each member's view took it (the stamp its line carries), and the last by the time the harness read the lines:\n\n")
	b.WriteString("| event | system | first | median | last (everywhere) | last, as read | knew |\n| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, e := range r.Events {
		for i, k := range e.Per {
			all := k.Knew == k.Of && k.Of > 0
			fmt.Fprintf(&b, "| %s at %d | %s | %s | %s | %s | %s | %d of %d |\n", e.Event, e.Host, r.Systems[i],
				secs(k.First, k.Knew > 0), secs(k.Median, k.Knew > 0), secs(k.Last, all), secs(k.LastRead, all), k.Knew, k.Of)
		}
	}
	b.WriteString("\nFalse alarms (every member is alive throughout): episodes of a member holding a live one suspect, dead, faulty or partial:\n\n")
	b.WriteString("| stretch | system | episodes | about the busy member | nodes | reached a verdict (about others) | median length | longest | still open | raised / refuted | station: status / flapping notifications about the busy member | busy member named degraded everywhere after | settled after |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, n := range r.Noise {
		for i, z := range n.Per {
			rr := "—"
			if strings.HasPrefix(r.Systems[i], "memberlist") {
				rr = fmt.Sprintf("%d / %d", z.Raised, z.Refuted)
			}
			notes := "—"
			if z.Station {
				notes = fmt.Sprintf("%d / %d", z.Notified, z.NotifiedOther)
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d (%d) | %s | %s | %d | %s | %s | %s | %s |\n", n.What, r.Systems[i], z.Episodes,
				z.AboutBusy, z.Nodes, z.Verdicts, z.OtherVerdicts, secs(z.Median, z.Episodes > 0), secs(z.Max, z.Episodes > 0), z.Open, rr,
				notes, secs(z.Named, z.Named > 0), z.Settled.Round(100*time.Millisecond))
		}
	}
	if len(r.Causes) > 0 {
		b.WriteString("\nOne cause: the status changes each system's members logged, per member, and the notifications a station got:\n\n")
		b.WriteString("| fault | system | down, per member | up again, per member | station notifications |\n| --- | --- | --- | --- | --- |\n")
		for _, c := range r.Causes {
			for i, t := range c.Per {
				st := "—"
				if t.Station {
					st = fmt.Sprint(t.Notifications)
				}
				fmt.Fprintf(&b, "| %s | %s | %.1f | %.1f | %s |\n", c.What, r.Systems[i], t.Deaths, t.Joins, st)
			}
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
