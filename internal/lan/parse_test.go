//go:build linux

package lan

import (
	"errors"
	"maps"
	"strings"
	"testing"
	"time"
)

func TestParseEvent(t *testing.T) {
	at := time.Unix(100, 0)
	line := `{"address":"198.18.0.3","counter":1,"how":"direct","level":"info","msg":"node status changed",` +
		`"new":"faulty","node":3,"old":"fault-free","self":1,"seq":4,"time":"2026-11-21T06:00:00Z"}`
	ev, ok := ParseEvent(line, at)
	want := Event{At: at, Read: at, Self: 1, Node: 3, Old: "fault-free", New: "faulty", How: "direct", Seq: 4}
	if !ok || ev != want {
		t.Fatalf("ParseEvent = %+v, %v; want %+v", ev, ok, want)
	}
	// The view's own stamp, when the line carries one and it is no later
	// than the read.
	took := at.Add(-40 * time.Millisecond)
	for changed, want := range map[string]time.Time{took.Format(time.RFC3339Nano): took,
		at.Add(time.Second).Format(time.RFC3339Nano): at, "yesterday": at} {
		stampedLine := line[:len(line)-1] + `,"changed":"` + changed + `"}`
		if ev, ok := ParseEvent(stampedLine, at); !ok || !ev.At.Equal(want) || ev.Read != at {
			t.Errorf("ParseEvent with changed %q: At %v, Read %v, %v; want At %v, Read %v", changed, ev.At, ev.Read, ok, want, at)
		}
	}
	for _, bad := range []string{"", "not json", `{"msg":"diagagent started","self":1}`,
		`{"msg":"node status changed","self":1}`} {
		if _, ok := ParseEvent(bad, at); ok {
			t.Errorf("ParseEvent(%q) accepted a line that is no status change", bad)
		}
	}
	// swimmember's lines: a view change, a suspicion its probe raised and a
	// refutation (about itself).
	swim := map[string]Event{
		`{"msg":"node status changed","new":"suspect","node":3,"old":"alive","self":1}`:                         {At: at, Read: at, Self: 1, Node: 3, Old: "alive", New: "suspect"},
		`{"msg":"suspicion raised","node":3,"self":1}`:                                                          {At: at, Read: at, Self: 1, Node: 3, New: Raised},
		`{"line":"[WARN] memberlist: Refuting a suspect message (from: 1)","msg":"suspicion refuted","self":3}`: {At: at, Read: at, Self: 3, Node: 3, New: Refuted},
	}
	for line, want := range swim {
		if ev, ok := ParseEvent(line, at); !ok || ev != want {
			t.Errorf("ParseEvent(%s) = %+v, %v; want %+v", line, ev, ok, want)
		}
	}
}

func TestParseStatusWalk(t *testing.T) {
	got, err := parseStatusWalk(".1.3.6.1.4.1.200.1.1.1.3.1 0\n.1.3.6.1.4.1.200.1.1.1.3.2 2\n")
	if err != nil || len(got) != 2 || got[1] != 0 || got[2] != 2 {
		t.Fatalf("parseStatusWalk = %v, %v", got, err)
	}
	for _, bad := range []string{".1.3.6.1.4.1.200.1.1.1.4.1 0", ".1.3.6.1.4.1.200.1.1.1.3.x 0", "Timeout: No Response"} {
		if _, err := parseStatusWalk(bad); err == nil {
			t.Errorf("parseStatusWalk(%q) accepted it", bad)
		}
	}
}

func TestParseDropCounter(t *testing.T) {
	out := "table bridge diaglan_loss_3 {\n\tchain forward {\n\t\ttype filter hook forward priority filter; policy accept;\n" +
		"\t\toifname \"p3\" meta protocol { ip, ip6 } numgen random mod 100 < 5 counter packets 17 bytes 1200 drop\n\t}\n}\n"
	if n, err := parseDropCounter(out); err != nil || n != 17 {
		t.Fatalf("parseDropCounter = %d, %v; want 17", n, err)
	}
	both := strings.Replace(out, "\t}\n}", "\t\tiifname \"p3\" meta protocol { ip, ip6 } numgen random mod 100 < 5 counter packets 4 bytes 300 drop\n\t}\n}", 1)
	if n, err := parseDropCounter(both); err != nil || n != 21 {
		t.Fatalf("parseDropCounter over both directions = %d, %v; want 21", n, err)
	}
	if _, err := parseDropCounter("table inet x {}"); err == nil {
		t.Fatal("parseDropCounter found a counter in a table without one")
	}
}

func TestLearned(t *testing.T) {
	t0 := time.Unix(0, 0)
	ev := func(s, self, node int, st string) Event {
		return Event{At: t0.Add(time.Duration(s) * time.Second), Self: self, Node: node, New: st}
	}
	evs := []Event{ev(1, 1, 5, "partial"), ev(2, 2, 5, "partial"), ev(3, 3, 5, "faulty")}
	if _, ok := Learned(evs, []int{0, 1, 2}, []int{5}, "partial"); ok {
		t.Fatal("agent 3 holds node 5 faulty, yet Learned says all hold it partial")
	}
	evs = append(evs, ev(4, 3, 5, "partial"))
	last, ok := Learned(evs, []int{0, 1, 2}, []int{5}, "partial")
	if !ok || !last.Equal(t0.Add(4*time.Second)) {
		t.Fatalf("Learned = %v, %v; want every agent at 4 s", last, ok)
	}
}

// TestEventLogLatest: the status kept as lines arrive is the one found by
// going over every event, suspicion lines are no status, and WaitLatest
// sees a condition come true.
func TestEventLogLatest(t *testing.T) {
	l := newEventLog()
	lines := []string{
		`{"msg":"node status changed","self":1,"node":2,"old":"unknown","new":"alive"}`,
		`{"msg":"node status changed","self":1,"node":3,"old":"unknown","new":"alive"}`,
		`{"msg":"suspicion raised","self":1,"node":2}`,
		`{"msg":"node status changed","self":1,"node":2,"old":"alive","new":"suspect"}`,
		`{"msg":"suspicion refuted","self":2}`,
		`{"msg":"node status changed","self":2,"node":1,"old":"unknown","new":"alive"}`,
		`not json`,
	}
	for _, line := range lines {
		l.record(line)
	}
	got, want := l.Latest(), latest(l.Events(0))
	if !maps.Equal(got, want) || len(got) != 3 || got[[2]int{1, 2}] != "suspect" {
		t.Fatalf("Latest %v, latest(Events) %v", got, want)
	}
	done := make(chan error)
	go func() {
		done <- l.WaitLatest(time.Minute, func(now map[[2]int]string) bool { return allHold(now, 2, "alive") })
	}()
	l.record(`{"msg":"node status changed","self":1,"node":2,"old":"suspect","new":"alive"}`)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := l.WaitLatest(0, func(map[[2]int]string) bool { return false }); !errors.Is(err, ErrTimeout) {
		t.Fatalf("WaitLatest that never holds: %v", err)
	}
}

// TestNotificationsAbout counts snmptrapd's lines (TrapFormat) about one
// node: status changes by diagEventNodeID, flapping and maintenance by the
// node's diagTree instance, and nothing about another node.
func TestNotificationsAbout(t *testing.T) {
	head := "NOTIFY 2026-11-26 03:20:01 10.0.0.1\t.1.3.6.1.2.1.1.3.0 = Timeticks: (1200) 0:00:12.00\t.1.3.6.1.6.3.1.1.4.1.0 = OID: "
	lines := []string{
		head + ".1.3.6.1.4.1.200.2.0.1\t.1.3.6.1.4.1.200.1.8.1.2.17 = INTEGER: 9\t.1.3.6.1.4.1.200.1.8.1.3.17 = INTEGER: 2",
		head + ".1.3.6.1.4.1.200.2.0.1\t.1.3.6.1.4.1.200.1.8.1.2.18 = INTEGER: 3\t.1.3.6.1.4.1.200.1.8.1.3.18 = INTEGER: 2",
		head + ".1.3.6.1.4.1.200.2.0.6\t.1.3.6.1.4.1.200.1.1.1.12.9 = INTEGER: 1\t.1.3.6.1.4.1.200.1.1.1.3.9 = INTEGER: 2",
		head + ".1.3.6.1.4.1.200.2.0.6\t.1.3.6.1.4.1.200.1.1.1.12.19 = INTEGER: 1",
		head + ".1.3.6.1.4.1.200.2.0.7\t.1.3.6.1.4.1.200.1.1.1.3.9 = INTEGER: 0",
		"NET-SNMP version 5.9.3",
	}
	if st, other := NotificationsAbout(lines, 9); st != 1 || other != 2 {
		t.Errorf("about node 9: %d status, %d other; want 1 and 2", st, other)
	}
	if st, other := NotificationsAbout(lines, 3); st != 1 || other != 0 {
		t.Errorf("about node 3: %d status, %d other; want 1 and 0", st, other)
	}
}

func TestParseCause(t *testing.T) {
	line := "NOTIFY UDP: [198.18.0.1]:40000->[198.18.0.25]:162\t.1.3.6.1.2.1.1.3.0 = Timeticks: (1234) 0:00:12.34\t" +
		".1.3.6.1.6.3.1.1.4.1.0 = OID: .1.3.6.1.4.1.200.2.0.9\t.1.3.6.1.4.1.200.1.20.1.0 = INTEGER: 3\t" +
		".1.3.6.1.4.1.200.1.20.2.0 = Gauge32: 4005532972\t.1.3.6.1.4.1.200.1.20.3.0 = Gauge32: 77\t" +
		".1.3.6.1.4.1.200.1.20.4.0 = Gauge32: 8\t.1.3.6.1.4.1.200.1.20.5.0 = STRING: \"17-24\"\t" +
		".1.3.6.1.4.1.200.1.20.6.0 = STRING: \"198.18.0.16/28\"\t.1.3.6.1.4.1.200.1.20.7.0 = Gauge32: 21\t" +
		".1.3.6.1.4.1.200.1.1.1.3.17 = INTEGER: 0"
	c, ok := ParseCause(line)
	if !ok || c != (CauseSeen{Kind: 3, Group: 4005532972, Split: 77, Nodes: "17-24", Lasted: 21}) {
		t.Fatalf("ParseCause = %+v %v", c, ok)
	}
	if kinds := DiagNotifications([]string{line, "NOTIFY x\t.1.3.6.1.6.3.1.1.4.1.0 = OID: .1.3.6.1.4.1.200.2.0.1\t", "NET-SNMP version"}); len(kinds) != 2 || kinds[0] != KindCause || kinds[1] != KindStatus {
		t.Fatalf("DiagNotifications = %v", kinds)
	}
	if _, ok := ParseCause("NOTIFY x\t.1.3.6.1.6.3.1.1.4.1.0 = OID: .1.3.6.1.4.1.200.2.0.1\t"); ok {
		t.Fatal("a status change parsed as a cause")
	}
}
