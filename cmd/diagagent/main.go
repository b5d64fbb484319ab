// Command diagagent is the distributed diagnosis agent: run one on every
// workstation with the same node list, and any of them answers snmpwalk with
// the state of every node.
//
// main.go reads the configuration and the flags; agent.go wires one agent
// process in dependency order (state and engine ID, the board.Board, the
// prober, the notifier, the daemon, the SNMP responder, the page), handing
// each part what it needs in its constructor, so nothing is set afterwards.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"

	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/agent/config"
	"github.com/diagagent/diagagent/agent/daemon"
	"github.com/diagagent/diagagent/agent/keyring"
	"github.com/diagagent/diagagent/agent/parts"
	"github.com/diagagent/diagagent/agent/state"
	"github.com/diagagent/diagagent/internal/version"
)

func main() {
	if code, ok := runService(os.Args[1:], os.Environ()); ok { // started by the Windows service manager
		os.Exit(code)
	}
	os.Exit(run(os.Args[1:], os.Environ(), os.Stdout, os.Stderr))
}

// subcommands are the commands beside the agent itself, by name.
var subcommands = map[string]func(args, env []string, stdout, stderr io.Writer) int{
	"keyring":      keyringCmd,      // Consul's verbs: rotate the cluster key
	"stage":        stage,           // the packaged unit's copy of /etc/diagagent for its user
	"members":      membersCmd,      // one row per node, from any agent
	"reachability": reachabilityCmd, // the nodes some agents cannot reach, with those agents
	"check":        checkCmd,        // a monitoring plugin
	"maintenance":  maintenanceCmd,  // open or end a node's maintenance window
	"nodes":        nodesCmd,        // add or remove a node
	"service":      serviceCmd,      // the Windows service
	"traps":        trapsCmd,        // a station in a terminal
}

// run is main with its inputs explicit; it returns the exit status.
// diagagent alone, help and -h print the commands, then the agent's
// flags; the agent itself runs with flags (at least -config).
func run(args, env []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diagagent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	flags := config.RegisterFlags(fs, parts.Defaults())
	fs.Usage = func() { usage(fs.Output(), fs) }
	if len(args) == 0 {
		usage(stderr, fs)
		return 2
	}
	switch args[0] {
	case "keygen":
		return keygen(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		usage(stdout, fs)
		return 0
	case "version":
		return versionCmd(args[1:], stdout, stderr)
	}
	if cmd, ok := subcommands[args[0]]; ok {
		return cmd(args[1:], env, stdout, stderr)
	}
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if flags.Version {
		fmt.Fprintln(stdout, version.Get())
		return 0
	}
	if flags.Man {
		v := version.Get()
		fmt.Fprint(stdout, config.ManPage(parts.Defaults(), v.Version, v.Date))
		return 0
	}
	cfg, err := config.Load(parts.Defaults(), flags.Path, env, fs)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	rctx, cancel := context.WithTimeout(context.Background(), resolveTimeout)
	cfg, err = cfg.Resolve(rctx, lookupHost)
	cancel()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	id, err := resolveID(cfg)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	if flags.Check {
		if err := state.CheckDir(cfg.StateDirFor(id)); err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
		what, err := state.Describe(cfg.StateDirFor(id))
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
		fmt.Fprintln(stderr, what)
		if _, err := loadKeyring(cfg); err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
		for _, w := range cfg.Warnings() {
			fmt.Fprintln(stderr, "warning:", w)
		}
		fmt.Fprintf(stderr, "%s: configuration is valid (this host is node %d of %d)\n", flags.Path, id+1, len(cfg.Nodes))
		return 0
	}
	leanHeap(env)
	log := newLogger(cfg, stderr).WithField("self", id+1)
	a, err := open(cfg, id, log)
	if err != nil {
		fmt.Fprintln(stderr, "diagagent:", err)
		return 1
	}
	ctx, reload, stop := lifecycle()
	defer stop()
	reread := func(ctx context.Context) (config.Config, error) {
		c, err := config.Load(parts.Defaults(), flags.Path, env, fs)
		if err != nil {
			return c, err
		}
		return c.Resolve(ctx, lookupHost)
	}
	go reloadOn(ctx, reload, reread, a.daemon, log)
	go nodelistConfig(cfg).Follow(ctx, members(cfg), lookupIP, a.daemon.SetAddress, log)
	f := logrus.Fields{"version": version.Get().Version, "snmp": a.Serving(cfg), "algorithm": cfg.Algorithm,
		"nodes": len(cfg.Nodes), "interval": cfg.Interval.String()}
	if w := a.WebAddr(); w != nil {
		f["web"] = "http://" + w.String() + "/"
	}
	log.WithFields(f).Info("diagagent started")
	for _, w := range cfg.Warnings() {
		log.Warn(w)
	}
	if err := a.run(ctx); err != nil {
		log.WithError(err).Error("diagagent stopped with an error")
		return 1
	}
	log.Info("diagagent stopped")
	return 0
}

// usage prints the commands, one line each, then the agent's flags.
func usage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintln(w, "Usage: diagagent COMMAND [flags], or diagagent -config FILE [flags] to run the agent.")
	fmt.Fprintln(w, "\nCommands (each answers -h):")
	for _, c := range config.Commands {
		fmt.Fprintf(w, "  %-12s %s\n", c.Name, c.Doc)
	}
	fmt.Fprintln(w, "\nThe agent's flags (every configuration key is one too, as -snmp.listen; diagagent -man lists them):")
	fs.VisitAll(func(f *flag.Flag) {
		if strings.Contains(f.Name, ".") && f.Name != "config.check" {
			return
		}
		kind, doc := flag.UnquoteUsage(f)
		fmt.Fprintf(w, "  -%s %s\n    \t%s\n", f.Name, kind, doc)
	})
}

// parse parses a command's flags: -h prints its usage and exits 0, a bad
// flag exits 2 (the flag package says why).
func parse(fs *flag.FlagSet, args []string) (int, bool) {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0, false
	case err != nil:
		return 2, false
	}
	return 0, true
}

// versionCmd answers diagagent version: it needs no configuration.
func versionCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diagagent version", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if code, ok := parse(fs, args); !ok || fs.NArg() > 0 {
		return max(code, 2*min(fs.NArg(), 1))
	}
	fmt.Fprintln(stdout, version.Get())
	return 0
}

// keygen prints a new cluster key: the line a keyring file holds.
func keygen(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diagagent keygen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: diagagent keygen: print a new cluster key, the line a keyring file holds")
	}
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(stderr, "diagagent keygen takes no arguments; it prints a new cluster key for the keyring file")
		return 2
	}
	k, err := keyring.Generate()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	fmt.Fprintln(stdout, k)
	return 0
}

// resolveID returns the configured id or finds it among the host's addresses.
func resolveID(cfg config.Config) (int, error) {
	if cfg.ID != config.AutoID {
		return cfg.ID, nil
	}
	local, err := config.LocalAddrs()
	if err != nil {
		return 0, err
	}
	return config.ResolveID(cfg, local)
}

// newLogger builds the logger the log section asks for.
func newLogger(cfg config.Config, w io.Writer) *logrus.Entry {
	l := logrus.New()
	l.SetOutput(w)
	// Milliseconds: on a LAN an event reaches every agent within seconds,
	// and the order of what agents logged is only seen at this resolution.
	const stamp = "2006-01-02T15:04:05.000Z07:00"
	if cfg.Log.Format == "json" {
		l.SetFormatter(&logrus.JSONFormatter{TimestampFormat: stamp})
	} else {
		l.SetFormatter(&logrus.TextFormatter{FullTimestamp: true, DisableColors: true, TimestampFormat: stamp})
	}
	if lvl, err := logrus.ParseLevel(cfg.Log.Level); err == nil {
		l.SetLevel(lvl)
	}
	return logrus.NewEntry(l)
}

// lifecycle gives the agent the context that ends it and the channel
// that asks it to reload: SIGINT and SIGTERM, and SIGHUP, here; a Windows
// service's stop and parameter-change controls there (service_windows.go).
var lifecycle = func() (context.Context, <-chan struct{}, func()) {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	return ctx, hangups(ctx), stop
}

// hangups turns each SIGHUP into a reload until ctx ends.
func hangups(ctx context.Context) <-chan struct{} {
	hup := make(chan os.Signal, 1)
	out := make(chan struct{}, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		defer signal.Stop(hup)
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				select {
				case out <- struct{}{}:
				default: // one reload pending already reads the files as they are now
				}
			}
		}
	}()
	return out
}

// reloadOn reloads the node list and the keyring at each request (SIGHUP,
// what `systemctl reload` sends through the unit's ExecReload, or a
// Windows service's parameter change): the files are
// read and checked again, and their node list, matched by address, and
// keys (when the keyring file was edited) become the next version of the
// list at the next interval, carried to every agent by the diagnosis. A file that does not load is reported and changes nothing; the
// other keys are read at start only, and a change to them is reported.
func reloadOn(ctx context.Context, reload <-chan struct{}, reread func(context.Context) (config.Config, error), d *daemon.Daemon, log *logrus.Entry) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-reload:
		}
		rctx, cancel := context.WithTimeout(ctx, resolveTimeout)
		cfg, err := reread(rctx)
		cancel()
		if err != nil {
			log.WithError(err).Error(reloadLabel + ": the configuration does not load; nothing changed")
			continue
		}
		ring, err := loadKeyring(cfg)
		if err != nil {
			log.WithError(err).Error(reloadLabel + ": the keyring file does not load; nothing changed")
			continue
		}
		var keys []keyring.Key
		if ring != nil {
			keys = ring.Keys
		}
		v, changed, err := d.Members().Reload(members(cfg), keys)
		switch {
		case err != nil:
			log.WithError(err).Error(reloadLabel + ": the node list was not changed")
		case changed:
			log.WithField("version", v).Info(reloadLabel + ": the node list or the keys change at the next interval; other keys of the configuration are read at start only")
		default:
			log.WithField("version", v).Info(reloadLabel + ": the node list and the keys are unchanged; other keys of the configuration are read at start only")
		}
	}
}

// agentGOGC is the agent's garbage-collection target (GOGC): the heap may
// grow this many percent over what is live before the next collection.
// An agent's live heap is small (about 1 MB) and steady, and it runs on
// every workstation; at Go's 100 the spare part of its heap was the
// largest part of its resident memory. At 25 an idle agent of 4 collected
// 13 times a minute against 7 at 50, for 0.01 CPU s per minute more at
// N = 64 (docs/data/versus/memory-2026-11-28.md).
const agentGOGC = 25

// agentProcs is how many processors the agent's Go code runs on (GOMAXPROCS).
// An agent mostly waits; with one processor its runtime stops waking a
// second thread for each datagram and timer: at N = 16 with the cluster
// key a steady agent spent 0.076 CPU s a minute against 0.117 with two
// (docs/data/versus/gomaxprocs-2026-11-29.md).
const agentProcs = 1

// leanHeap sets agentGOGC and agentProcs, each unless env gives its
// variable (GOGC, GOMAXPROCS) a value, which then stands.
func leanHeap(env []string) {
	if !given(env, "GOGC") {
		debug.SetGCPercent(agentGOGC)
	}
	if !given(env, "GOMAXPROCS") {
		runtime.GOMAXPROCS(agentProcs)
	}
}

// given reports whether env gives the variable name a value.
func given(env []string, name string) bool {
	return slices.ContainsFunc(env, func(kv string) bool {
		v, ok := strings.CutPrefix(kv, name+"=")
		return ok && v != ""
	})
}
