package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/agent/client"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/mib"
)

// maintenanceCmd answers diagagent maintenance: it opens, moves or ends a
// node's maintenance window through any agent (a SET of
// nodeMaintenanceFor or nodeMaintenanceUntil, with the keyring's user,
// else the write community), then waits until every agent that answers
// holds the window, as diagagent nodes and keyring do.
func maintenanceCmd(args, env []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diagagent maintenance", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cf := addClusterFlagsAs(fs, "write-community")
	legacy := fs.String("community", "", "deprecated: -write-community, which nodes takes too")
	wait := fs.Duration("wait", 2*time.Minute, "how long to wait for every answering agent to hold the window (0: do not wait)")
	node := fs.Int("node", 0, "the NodeID whose window this is")
	dur := fs.Duration("for", 0, "open the window for this long from now (say 2h)")
	until := fs.String("until", "", `open the window until this local time: "2006-01-02 15:04", RFC 3339, or "15:04" (the next such time)`)
	end := fs.Bool("end", false, "end the node's window now")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	chosen := 0
	for _, set := range []bool{*dur != 0, *until != "", *end} {
		if set {
			chosen++
		}
	}
	if fs.NArg() > 0 || *node < 1 || *node > mib.MaxNodeID || chosen != 1 || *wait < 0 {
		fmt.Fprintln(stderr, "usage: diagagent maintenance -node ID (-for DURATION | -until TIME | -end) [-wait D] [-config F] [-agent host:port] [-write-community C]")
		return 2
	}
	if *legacy != "" {
		fmt.Fprintln(stderr, "diagagent maintenance: -community is deprecated: say -write-community, as diagagent nodes does")
		if *cf.community == "" {
			*cf.community = *legacy
		}
	}
	now := time.Now()
	vb := gosnmp.SnmpPDU{Name: mib.TreeCell(mib.ColNodeMaintFor, *node), Type: gosnmp.Gauge32, Value: uint(0)}
	var at time.Time
	switch {
	case *dur < 0 || *dur > nodelist.MaxWindow:
		fmt.Fprintf(stderr, "diagagent maintenance: -for must be between 1s and %v\n", nodelist.MaxWindow)
		return 2
	case *dur > 0:
		secs := max(int64((*dur+time.Second-1)/time.Second), 1)
		vb.Value, at = uint(secs), now.Add(time.Duration(secs)*time.Second)
	case *until != "":
		t, err := parseUntil(*until, now)
		if err != nil {
			fmt.Fprintln(stderr, "diagagent maintenance: -until:", err)
			return 2
		}
		vb, at = gosnmp.SnmpPDU{Name: mib.TreeCell(mib.ColNodeMaintUntil, *node), Type: gosnmp.OctetString, Value: mib.DateAndTime(t)}, t
	}
	v, err := cf.open(env)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	if !v.Prober.CanPush() {
		fmt.Fprintln(stderr, "diagagent maintenance: no credentials to set with: the configuration has neither a keyring nor snmp.communities.write; give -write-community")
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), client.Timeout)
	defer cancel()
	before, _ := v.Prober.FetchWindow(ctx, v.Agent, uint32(*node)) // to tell, with -for, the window asked for from the one it replaces
	if err := v.Prober.Set(ctx, v.Agent, vb); err != nil {
		fmt.Fprintf(stderr, "maintenance: node %d: %s\n", *node, client.Say(err))
		return 1
	}
	if *end {
		fmt.Fprintf(stdout, "node %d: maintenance window ended; its status is notified if it changed since the window began\n", *node)
	} else {
		fmt.Fprintf(stdout, "node %d: in maintenance until %s\n", *node, at.Local().Format("2006-01-02 15:04:05 MST"))
	}
	asked := window{ended: *end, until: at.Truncate(time.Second), before: before, exact: *until != ""}
	return client.Await("maintenance", fmt.Sprintf("node %d's window", *node), *wait, stdout, stderr, func(ctx context.Context) (client.Spread, error) {
		return surveyWindow(ctx, v, uint32(*node), asked)
	})
}

// window is the change diagagent maintenance asked for, as its wait
// checks it: ended, or ending at until, exactly (-until) or as the agent
// asked computed it from its own clock (-for), which the window it held
// before (before) tells apart.
type window struct {
	ended, exact  bool
	until, before time.Time
}

// want returns the end an agent holding the change shows, given the one
// the agent asked shows now; false while the agent asked does not hold it
// yet (it runs a change from its next interval on).
func (w window) want(asked time.Time) (time.Time, bool) {
	switch {
	case w.exact:
		return w.until, true
	case asked.Equal(w.before) && (asked.Sub(w.until) > 2*time.Second || w.until.Sub(asked) > 2*time.Second):
		return time.Time{}, false
	}
	return asked, true
}

// surveyWindow asks every agent the agent asked lists for node's window:
// those whose window ends where the change asked (or, for a window ended,
// that hold none open) hold it.
func surveyWindow(ctx context.Context, v clusterView, node uint32, w window) (client.Spread, error) {
	asked, err := v.Prober.FetchWindow(ctx, v.Agent, node)
	if err != nil {
		return client.Spread{}, err
	}
	want, known := w.want(asked)
	now := time.Now()
	return v.Survey(ctx, func(ctx context.Context, t probe.Target) (bool, error) {
		got, err := v.Prober.FetchWindow(ctx, t, node)
		return w.ended && !got.After(now) || !w.ended && known && got.Equal(want), err
	})
}

// parseUntil reads -until: RFC 3339, a local date and time, or a local
// time of day (the next one after now).
func parseUntil(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, checkUntil(t, now)
	}
	for _, layout := range []string{"2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02T15:04"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, checkUntil(t, now)
		}
	}
	for _, layout := range []string{"15:04:05", "15:04"} {
		if c, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			t := time.Date(now.Year(), now.Month(), now.Day(), c.Hour(), c.Minute(), c.Second(), 0, time.Local)
			if !t.After(now) {
				t = t.AddDate(0, 0, 1)
			}
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time (2006-01-02 15:04, RFC 3339, or 15:04)", s)
}

// checkUntil refuses a window that ends in the past or too far ahead.
func checkUntil(t, now time.Time) error {
	switch {
	case !t.After(now):
		return errors.New("that time has passed; use -end to end a window")
	case t.Sub(now) > nodelist.MaxWindow:
		return fmt.Errorf("a window lasts at most %v", nodelist.MaxWindow)
	}
	return nil
}
