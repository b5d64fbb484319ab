package main

import (
	"context"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/mib"
)

// trapsCmd answers diagagent traps: a management station in a terminal, for
// a host without net-snmp's snmptrapd. It listens for the notifications
// agents send (SNMPv1 and SNMPv2c traps, and informs, which it
// acknowledges) and prints each with its objects named by the DIAGNOSIS-MIB,
// until interrupted, or -count notifications, or -for.
func trapsCmd(args, _ []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diagagent traps", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "0.0.0.0:162", "the UDP address to listen at (traps.nms of the agents)")
	community := fs.String("community", "", "take only notifications of this community (default: any)")
	count := fs.Int("count", 0, "exit after this many notifications (0: never)")
	dur := fs.Duration("for", 0, "exit after this long (0: never)")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 || *count < 0 || *dur < 0 {
		fmt.Fprintln(stderr, "usage: diagagent traps [-listen host:port] [-community C] [-count N] [-for D]")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *dur > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *dur)
		defer cancel()
	}
	tl := gosnmp.NewTrapListener()
	tl.Params = &gosnmp.GoSNMP{Version: gosnmp.Version2c, Logger: gosnmp.NewLogger(log.New(io.Discard, "", 0))}
	var mu sync.Mutex
	seen := 0
	tl.OnNewTrap = func(p *gosnmp.SnmpPacket, from *net.UDPAddr) {
		if *community != "" && p.Community != *community {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if *count > 0 && seen >= *count {
			return
		}
		fmt.Fprint(stdout, describe(p, from))
		if seen++; *count > 0 && seen == *count {
			stop()
		}
	}
	errc := make(chan error, 1)
	go func() { errc <- tl.Listen(*listen) }()
	select {
	case <-tl.Listening():
		fmt.Fprintf(stderr, "traps: listening at udp/%s\n", *listen)
	case err := <-errc:
		fmt.Fprintf(stderr, "traps: cannot listen at udp/%s: %v\n", *listen, err)
		return 1
	}
	<-ctx.Done()
	tl.Close()
	return 0
}

// describe prints one notification: who sent it, which, and each object by
// name.
func describe(p *gosnmp.SnmpPacket, from *net.UDPAddr) string {
	var b strings.Builder
	what := "notification"
	if p.PDUType == gosnmp.Trap { // SNMPv1
		what = fmt.Sprintf("%s trap %d/%d", mib.Name(p.Enterprise), p.GenericTrap, p.SpecificTrap)
	}
	for _, v := range p.Variables {
		if strings.TrimPrefix(v.Name, ".") == strings.TrimPrefix(mib.SnmpTrapOID0, ".") {
			if oid, ok := v.Value.(string); ok {
				what = mib.Name(oid)
			}
		}
	}
	fmt.Fprintf(&b, "%s %s from %s (%v, community %q)\n", time.Now().Format("15:04:05"), what, from.IP, p.Version, p.Community)
	for _, v := range p.Variables {
		name := mib.Name("." + strings.TrimPrefix(v.Name, "."))
		if strings.HasPrefix(name, "sysUpTime.") || strings.HasPrefix(name, "snmpTrapOID.") {
			continue
		}
		fmt.Fprintf(&b, "   %s = %s\n", name, value(name, v))
	}
	return b.String()
}

// value prints one object's value: statuses by name, octets as text when
// they are, else in hexadecimal.
func value(name string, v gosnmp.SnmpPDU) string {
	switch x := v.Value.(type) {
	case []byte:
		if t, err := mib.ParseDateAndTime(x, time.UTC); err == nil && (strings.Contains(name, "Time.") || strings.Contains(name, "Until.")) {
			return t.Format(time.RFC3339)
		}
		if printable(x) {
			return fmt.Sprintf("%q", x)
		}
		return hex.EncodeToString(x)
	case string:
		return mib.Name(x)
	case int:
		for _, s := range []string{"nodeStatus.", "diagEventStatus.", "diagEventPrevStatus.", "nodeMaintenanceStatus."} {
			if strings.HasPrefix(name, s) {
				if st, err := mib.StatusOf(x); err == nil {
					return fmt.Sprintf("%s(%d)", mib.DiagStatusLabel(st), x)
				}
			}
		}
	}
	return fmt.Sprint(v.Value)
}

// printable reports whether b is text.
func printable(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return len(b) > 0
}
