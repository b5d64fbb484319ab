//go:build linux

// Command lanrun runs diagagent on a LAN of network namespaces (package
// internal/lan) and prints markdown tables: -mode experiment replays seed
// 002's 37-node schedule for each algorithm, -mode soak counts false
// suspicions under random packet loss, -mode sweep removes what dead runs
// left behind. It needs root; Ctrl-C stops everything it started.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/diagagent/diagagent/internal/lan"
)

// options are the command-line settings.
type options struct {
	mode, bin, algos, dir string
	nodes, retries        int
	interval, timeout     time.Duration
	pingTimeout           time.Duration
	pingCount             int
	losses                string
	soakFor               time.Duration
	startup               time.Duration
	chaosFor              time.Duration
	seed                  uint64
	vs                    versusOptions
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main with its inputs explicit; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch o.mode {
	case "sweep":
		err = lan.SweepStale()
	case "experiment":
		err = experiment(ctx, o, stdout, stderr)
	case "soak":
		err = soak(ctx, o, stdout, stderr)
	case "chaos":
		err = chaos(ctx, o, stdout, stderr)
	case "versus":
		err = versus(ctx, o, stdout, stderr)
	case "versus-doc":
		err = versusDoc(o.vs.out)
	default:
		err = fmt.Errorf("-mode %q: want experiment, soak, chaos, versus, versus-doc or sweep", o.mode)
	}
	if err != nil {
		fmt.Fprintln(stderr, "lanrun:", err)
		return 1
	}
	return 0
}

// parseFlags reads the command line into options.
func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("lanrun", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.mode, "mode", "experiment", "experiment, soak, chaos, versus, versus-doc or sweep")
	fs.StringVar(&o.bin, "bin", "", "the diagagent binary (required)")
	fs.StringVar(&o.dir, "dir", "", "working directory for logs and state (default: a new temporary one)")
	fs.StringVar(&o.algos, "algorithms", "vcube,hiadsd", "comma-separated algorithms, one run each")
	fs.IntVar(&o.nodes, "nodes", 37, "agents, one per namespace")
	fs.DurationVar(&o.interval, "interval", 2*time.Second, "testing interval")
	fs.DurationVar(&o.timeout, "test.timeout", time.Second, "test.timeout of the agents (the daemon's default)")
	fs.IntVar(&o.retries, "test.retries", 3, "test.retries of the agents (the daemon's default)")
	fs.DurationVar(&o.pingTimeout, "test.ping_timeout", 2*time.Second, "test.ping_timeout of the agents (the daemon's default)")
	fs.IntVar(&o.pingCount, "test.ping_count", 2, "test.ping_count of the agents (the daemon's default)")
	fs.StringVar(&o.losses, "loss", "1,5", "soak: comma-separated loss percentages, one run each; versus: on every host (soak), on one member's link each way (lossy)")
	fs.DurationVar(&o.soakFor, "soak", 2*time.Minute, "soak: how long each loss lasts; versus: also how long the reach kind's host stays unreachable from four members")
	fs.DurationVar(&o.chaosFor, "chaos", 10*time.Minute, "chaos: how long random faults go on")
	fs.Uint64Var(&o.seed, "seed", 0, "chaos: seed of the random faults (0: from the clock, printed)")
	fs.DurationVar(&o.startup, "startup", 0, "how long start-up may take until all agree (default: twice the latency bound)")
	fs.StringVar(&o.vs.swim, "swim", "", "versus: the swimmember binary (cmd/swimmember, its own module)")
	fs.StringVar(&o.vs.out, "versus.out", "", "versus: directory to save the run in (data/versus/n<N>.json; docs for docs/versus.md)")
	fs.BoolVar(&o.vs.writeDoc, "versus.doc", false, "versus: also rewrite <versus.out>/versus.md's tables and plots from every saved run")
	fs.StringVar(&o.vs.kinds, "versus.kinds", "", "versus: comma-separated subset of crash,freeze,link,soak,lossy,reach,busy,switch (default all, switch from N = 16; steady: the steady window alone, which always runs)")
	fs.DurationVar(&o.vs.steady, "versus.steady", 2*time.Minute, "versus: window the steady cost is measured over")
	fs.DurationVar(&o.vs.freeze, "versus.freeze", 30*time.Second, "versus: how long the frozen member stays stopped")
	fs.DurationVar(&o.vs.cap, "versus.cap", 90*time.Second, "versus: longest wait for every member to know an event")
	fs.DurationVar(&o.vs.busy, "versus.busy", 2*time.Minute, "versus: how long each busy-member duty cycle lasts")
	fs.StringVar(&o.vs.duties, "versus.duties", "1.9s/2s,2.9s/3s,4.5s/5s", "versus: the busy member's duty cycles, stopped/period, comma-separated")
	fs.DurationVar(&o.vs.fastInterval, "versus.interval", time.Second, "versus: interval of the diagagent setting comparable to memberlist")
	fs.DurationVar(&o.vs.probe, "versus.probe", time.Second, "versus: memberlist's probe interval; its other timers scale with it")
	fs.BoolVar(&o.vs.swimKey, "versus.swimkey", false, "versus: memberlist encrypts every message with a SecretKey (AES-256-GCM), as agents with a keyring do")
	fs.BoolVar(&o.vs.apart, "versus.apart", false, "versus: run each system alone, one after the other on a fresh LAN, and merge the tables")
	fs.IntVar(&o.vs.wave, "versus.wave", 0, "versus: start memberlist's members this many at a time, each wave once the earlier agree (0: all at once)")
	fs.StringVar(&o.vs.systems, "versus.systems", "memberlist,fast,defaults", "versus: comma-separated systems that run: memberlist, fast (diagagent at -versus.interval), defaults (diagagent at its defaults), keyring (the defaults with a cluster key: SNMPv3 authPriv between agents)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.bin == "" && o.mode != "sweep" && o.mode != "versus-doc" {
		fmt.Fprintln(stderr, "lanrun: -bin is required (go build -o /tmp/diagagent ./cmd/diagagent)")
		return o, flag.ErrHelp
	}
	return o, nil
}

// spec turns the options into a cluster specification for one algorithm.
func (o options) spec(tag, algo string) (lan.Spec, error) {
	dir := o.dir
	if dir == "" {
		d, err := os.MkdirTemp("", "lanrun-")
		if err != nil {
			return lan.Spec{}, err
		}
		dir = d
	}
	dir = fmt.Sprintf("%s/%s-%s", dir, tag, algo)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return lan.Spec{}, err
	}
	return lan.Spec{Tag: tag, Bin: o.bin, Dir: dir, Algorithm: algo, Agents: o.nodes, Interval: o.interval,
		Timeout: o.timeout, Retries: o.retries, PingTimeout: o.pingTimeout, PingCount: o.pingCount,
		Printer: o.mode == "chaos", Inform: o.mode == "chaos"}, nil
}

// withCluster starts a cluster, waits until it agrees that every node is
// fault-free, runs f and removes the cluster, also when ctx is cancelled.
func withCluster(ctx context.Context, s lan.Spec, startup time.Duration, stderr io.Writer, f func(*lan.Cluster) error) error {
	c, err := lan.NewCluster(s)
	if err != nil {
		return err
	}
	defer c.Close()
	stopWatch := context.AfterFunc(ctx, func() {
		err := c.Close()
		fmt.Fprintf(stderr, "lanrun: interrupted; stopped the agents and removed the namespaces (%v)\n", err)
		os.Exit(130)
	})
	defer stopWatch()
	fmt.Fprintf(stderr, "lanrun: %d agents (%s, interval %v) in %s-*; logs in %s\n",
		s.Agents, s.Algorithm, s.Interval, c.Net.Prefix, s.Dir)
	if err := c.StartAgents(30 * time.Second); err != nil {
		return err
	}
	all := make([]int, s.Agents)
	nodes := make([]int, s.Agents)
	for k := range all {
		all[k], nodes[k] = k, k+1
	}
	if startup == 0 {
		startup = 2 * c.Bound()
	}
	took, err := c.Poll(startup, func() bool { return c.AllSee(all, nodes, 0) })
	if err != nil {
		return fmt.Errorf("start-up: not every agent holds every node fault-free (%s): %w", c.Stale(), err)
	}
	fmt.Fprintf(stderr, "lanrun: all fault-free everywhere %v after start\n", took.Round(time.Millisecond))
	if err := f(c); err != nil {
		return err
	}
	return ctx.Err()
}

// experiment runs seed 002's schedule once per algorithm and prints the table.
func experiment(ctx context.Context, o options, stdout, stderr io.Writer) error {
	algos := strings.Split(o.algos, ",")
	var results [][]lan.Result
	for _, a := range algos {
		s, err := o.spec("exp", a)
		if err != nil {
			return err
		}
		err = withCluster(ctx, s, o.startup, stderr, func(c *lan.Cluster) error {
			rs, err := c.RunSchedule(lan.PaperSchedule())
			for _, r := range rs {
				fmt.Fprintf(stderr, "lanrun: %s: %s diagnosed by every fault-free agent in %v\n",
					a, r.Event, r.Latency.Round(time.Millisecond))
			}
			if err == nil {
				results = append(results, rs)
			}
			return err
		})
		if err != nil {
			if len(results) > 0 {
				fmt.Fprint(stdout, lan.Table(o.interval, algos[:len(results)], results))
			}
			return fmt.Errorf("%s: %w", a, err)
		}
	}
	fmt.Fprint(stdout, lan.Table(o.interval, algos, results))
	return nil
}

// soak runs each loss level on a fresh cluster and prints the table.
func soak(ctx context.Context, o options, stdout, stderr io.Writer) error {
	var rs []lan.SoakResult
	var settings []string
	for _, l := range strings.Split(o.losses, ",") {
		var pct int
		if _, err := fmt.Sscanf(l, "%d", &pct); err != nil {
			return fmt.Errorf("-loss %q: want whole percentages such as 1,5: %w", o.losses, err)
		}
		s, err := o.spec(fmt.Sprintf("soak%d", pct), strings.Split(o.algos, ",")[0])
		if err != nil {
			return err
		}
		err = withCluster(ctx, s, o.startup, stderr, func(c *lan.Cluster) error {
			r, err := c.Soak(pct, o.soakFor)
			fmt.Fprintf(stderr, "lanrun: %d%% loss: %+v\n", pct, r)
			rs = append(rs, r)
			return err
		})
		if err != nil {
			return err
		}
		settings = append(settings, fmt.Sprintf("%s, %d agents, interval %v, timeout %v, retries %d, ping %v x%d",
			s.Algorithm, s.Agents, s.Interval, s.Timeout, s.Retries, s.PingTimeout, s.PingCount))
	}
	fmt.Fprint(stdout, lan.SoakTable(settings, rs))
	return nil
}

// chaos runs random faults under 1% loss on one cluster (with a printer and
// informs) and prints what it found; invariant violations fail the run.
func chaos(ctx context.Context, o options, stdout, stderr io.Writer) error {
	seed := o.seed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	algo := strings.Split(o.algos, ",")[0]
	s, err := o.spec("chaos", algo)
	if err != nil {
		return err
	}
	var res lan.ChaosResult
	err = withCluster(ctx, s, o.startup, stderr, func(c *lan.Cluster) error {
		fmt.Fprintf(stderr, "lanrun: chaos for %v, seed %d (-seed %d replays it)\n", o.chaosFor, seed, seed)
		res, err = c.Chaos(lan.ChaosSpec{Duration: o.chaosFor, Loss: 1, Seed: seed}, stderr)
		return err
	})
	setting := fmt.Sprintf("%s, %d agents, a printer and a station; interval %v, timeout %v, retries %d, ping %v x%d; informs",
		algo, s.Agents, s.Interval, s.Timeout, s.Retries, s.PingTimeout, s.PingCount)
	fmt.Fprint(stdout, lan.ChaosTable(setting, res))
	if err != nil {
		return err
	}
	if len(res.Violations) > 0 {
		return fmt.Errorf("%d invariant violations:\n%s", len(res.Violations), strings.Join(res.Violations, "\n"))
	}
	return nil
}
