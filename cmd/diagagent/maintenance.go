package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/mib"
)

// maintenanceCmd answers diagagent maintenance: it opens, moves or ends a
// node's maintenance window through any agent (a SET of
// nodeMaintenanceFor or nodeMaintenanceUntil, with the keyring's user,
// else the write community), which every agent then learns.
func maintenanceCmd(args, env []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diagagent maintenance", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cf := addClusterFlags(fs)
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
	if fs.NArg() > 0 || *node < 1 || *node > mib.MaxNodeID || chosen != 1 {
		fmt.Fprintln(stderr, "usage: diagagent maintenance -node ID (-for DURATION | -until TIME | -end) [-config F] [-agent host:port] [-community C]")
		return 2
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
	if !v.prober.CanPush() {
		fmt.Fprintln(stderr, "diagagent maintenance: no credentials to set with: the configuration has neither a keyring nor snmp.communities.write; give -community")
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), keyringTimeout)
	defer cancel()
	if err := v.prober.Set(ctx, v.target, vb); err != nil {
		fmt.Fprintf(stderr, "maintenance: node %d: %s\n", *node, say(err))
		return 1
	}
	if *end {
		fmt.Fprintf(stdout, "node %d: maintenance window ended; its status is notified if it changed since the window began\n", *node)
		return 0
	}
	fmt.Fprintf(stdout, "node %d: in maintenance until %s; every agent learns it at its next interval or two\n", *node, at.Local().Format("2006-01-02 15:04:05 MST"))
	return 0
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
