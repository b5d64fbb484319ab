package main

import (
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/agent/client"
	"github.com/diagagent/diagagent/agent/config"
	"github.com/diagagent/diagagent/agent/keyring"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/agent/parts"
	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/mib"
)

// keyringCmd answers diagagent keyring, Consul's verbs against any agent:
// -install, -use and -remove change the cluster keys at that agent, whence
// the change reaches every agent as a node list change does; -list reads
// every agent and says how many hold each key and which lag. -snmp prints
// the options that make net-snmp's tools speak as the agents' user of the
// key in use, for the SETs only agents may make under a keyring (snmpset
// $(diagagent keyring -snmp) host DIAGNOSIS-MIB::nodeRowStatus.9 ...).
func keyringCmd(args, env []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diagagent keyring", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cf := addClusterFlagsAs(fs, "write-community") // the credential flags of nodes and maintenance
	path, agentAddr := cf.path, cf.agent
	install := fs.String("install", "", "install KEY: every agent accepts it")
	use := fs.String("use", "", "use KEY, or its ID, (installed everywhere) to send")
	remove := fs.String("remove", "", "remove KEY, or its ID (no agent sends with it any more)")
	list := fs.Bool("list", false, "list the keys every agent holds, and the agents that lag")
	force := fs.Bool("force", false, "-use or -remove even if some agents answering do not hold the keys it needs")
	wait := fs.Duration("wait", 2*time.Minute, "how long -install, -use and -remove wait for every agent answering to run the change")
	snmpOpts := fs.Bool("snmp", false, "print net-snmp options (-v3 -l authPriv -u ... -a SHA-256 -A ... -x AES -X ...) for the key in use")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	verbs := 0
	for _, on := range []bool{*install != "", *use != "", *remove != "", *list, *snmpOpts} {
		if on {
			verbs++
		}
	}
	if verbs != 1 || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "diagagent keyring: give one of -install KEY, -use KEY, -remove KEY, -list or -snmp (and -config, -agent host:port)")
		return 2
	}
	if *cf.community != "" {
		fmt.Fprintln(stderr, "diagagent keyring: -write-community cannot carry keys: an agent takes a key change, and shows its keys, "+
			"only to the cluster key's user (SNMPv3 authPriv); run keyring where the configuration names the keyring")
		return 2
	}
	cfg, err := config.Load(parts.Defaults(), *path, env, nil)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	ring, err := cliRing(cfg)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	if *snmpOpts {
		u := ring.Primary().User()
		fmt.Fprintf(stdout, "-v3 -l authPriv -u %s -a SHA-256 -A %s -x AES -X %s\n", u.Name, u.AuthPassphrase, u.PrivPassphrase)
		return 0
	}
	k := keyCLI{cfg: cfg, ring: ring, stdout: stdout, stderr: stderr, force: *force, wait: *wait}
	target, err := cliTarget(cfg, *agentAddr)
	if err == nil {
		k.Client, err = client.Open(target, client.Credentials{Users: ring.Users()})
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), client.Timeout)
	defer cancel()
	switch {
	case *list:
		return k.list(ctx)
	case *install != "":
		return k.change(ctx, mib.KeyInstall, *install)
	case *use != "":
		return k.change(ctx, mib.KeyUse, *use)
	default:
		return k.change(ctx, mib.KeyRemove, *remove)
	}
}

// cliRing is what the command speaks with: the keys this host's agent
// runs (kept under its state_dir: they follow rotations), then the
// keyring file's; a peer refusing one is asked with the next.
func cliRing(cfg config.Config) (keyring.Ring, error) {
	file, err := loadKeyring(cfg)
	switch {
	case err != nil:
		return keyring.Ring{}, err
	case file == nil:
		return keyring.Ring{}, errors.New("keyring: not set in the configuration; its agents have no cluster key")
	}
	var r keyring.Ring
	if id, err := resolveID(cfg); err == nil {
		if kept, err := keyring.Load(filepath.Join(cfg.StateDirFor(id), "keyring")); err == nil {
			r = kept
		}
	}
	for _, k := range file.Keys {
		if !slices.Contains(r.Keys, k) {
			r.Keys = append(r.Keys, k)
		}
	}
	return r, nil
}

// cliTarget is the agent to ask: -agent, else this host's own.
func cliTarget(cfg config.Config, addr string) (probe.Target, error) {
	if addr == "" {
		id, err := resolveID(cfg)
		if err != nil {
			return probe.Target{}, fmt.Errorf("-agent: not given, and this host is no node of the configuration: %w", err)
		}
		ap := cfg.SNMPListen(id)
		a := ap.Addr()
		if !a.IsValid() || a.IsUnspecified() {
			a = cfg.Nodes[id].Address
		}
		return probe.Target{Addr: a, Port: ap.Port()}, nil
	}
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		a, err2 := netip.ParseAddr(addr)
		if err2 != nil {
			return probe.Target{}, fmt.Errorf("-agent %q: want an address and port, as 192.0.2.7:161: %v", addr, err)
		}
		ap = netip.AddrPortFrom(a, nodelist.DefaultPort)
	}
	return probe.Target{Addr: ap.Addr().Unmap(), Port: ap.Port()}, nil
}

// keyCLI is one run of diagagent keyring against an agent.
type keyCLI struct {
	cfg            config.Config
	ring           keyring.Ring
	*client.Client // speaking as the cluster key's users alone
	stdout, stderr io.Writer
	force          bool
	wait           time.Duration // how long a change may take to reach every agent
}

// agentKeys is what one agent told of its keys.
type agentKeys struct {
	id      uint32 // NodeID
	addr    netip.AddrPort
	version uint32
	keys    []probe.Key
	err     error
}

// primary returns the index of the key the agent sends with, 0 for none.
func (a agentKeys) primary() uint32 {
	for _, k := range a.keys {
		if k.Primary {
			return k.Index
		}
	}
	return 0
}

// holds reports whether the agent holds key i.
func (a agentKeys) holds(i uint32) bool {
	return slices.ContainsFunc(a.keys, func(k probe.Key) bool { return k.Index == i })
}

// survey reads the node list of the target agent, then the list version
// and keys of every agent in it (tested-only devices hold none), all at once.
func (k keyCLI) survey(ctx context.Context) (probe.List, []agentKeys, error) {
	l, err := k.Prober.FetchList(ctx, k.Agent)
	if err != nil {
		return probe.List{}, nil, err
	}
	out := make([]agentKeys, 0, len(l.Members))
	for id, m := range l.Members {
		if !m.TestedOnly && !m.Removed {
			out = append(out, agentKeys{id: uint32(id + 1), addr: netip.AddrPortFrom(m.Addr, m.Port)})
		}
	}
	var wg sync.WaitGroup
	for i := range out {
		wg.Go(func() {
			a := &out[i]
			got, err := k.Prober.FetchList(ctx, probe.Target{Addr: a.addr.Addr(), Port: a.addr.Port()})
			a.version, a.keys, a.err = got.Version, got.KeyRows, err
		})
	}
	wg.Wait()
	return l, out, nil
}

// list prints, for every key the agents hold, how many hold it and how
// many send with it, then each agent that lags behind the target's keys
// or does not answer. It exits 0 when every agent answering runs the
// target's keys, 1 when some lag.
func (k keyCLI) list(ctx context.Context) int {
	l, agents, err := k.survey(ctx)
	if err != nil {
		fmt.Fprintln(k.stderr, "keyring:", client.Say(err))
		return 1
	}
	var order []uint32
	for _, kk := range l.KeyRows {
		order = append(order, kk.Index)
	}
	for _, a := range agents {
		for _, kk := range a.keys {
			if !slices.Contains(order, kk.Index) {
				order = append(order, kk.Index)
			}
		}
	}
	fmt.Fprintf(k.stdout, "agent %s runs node list version %d, fingerprint %s\n", netip.AddrPortFrom(k.Agent.Addr, k.Agent.Port), l.Version, hex.EncodeToString(l.Hash[:]))
	tw := tabwriter.NewWriter(k.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tHELD BY\tSENT WITH BY\tAT THIS AGENT")
	for _, i := range order {
		held, sent := 0, 0
		for _, a := range agents {
			if a.holds(i) {
				held++
			}
			if a.primary() == i {
				sent++
			}
		}
		here := "-"
		for _, kk := range l.KeyRows {
			if kk.Index == i {
				here = map[bool]string{true: "in use", false: "accepted"}[kk.Primary]
			}
		}
		fmt.Fprintf(tw, "%08x\t%d/%d\t%d/%d\t%s\n", i, held, len(agents), sent, len(agents), here)
	}
	tw.Flush()
	lagging, silent := 0, 0
	for _, a := range agents {
		switch {
		case a.err != nil && !probe.KeyRefused(a.err):
			silent++
			fmt.Fprintf(k.stdout, "node %d (%s) does not answer: %s\n", a.id, a.addr, client.Say(a.err))
		case a.err != nil:
			lagging++
			fmt.Fprintf(k.stdout, "node %d (%s) refuses every key held here: it missed a rotation (give it the key in use: docs/security.md)\n", a.id, a.addr)
		case !sameKeys(a.keys, l.KeyRows):
			lagging++
			fmt.Fprintf(k.stdout, "node %d (%s) lags: version %d, keys %s\n", a.id, a.addr, a.version, keyNames(a.keys))
		}
	}
	if lagging > 0 {
		fmt.Fprintf(k.stdout, "%d of the %d agents answering do not run this agent's keys yet\n", lagging, len(agents)-silent)
		return 1
	}
	fmt.Fprintf(k.stdout, "all %d agents answering run these keys (%d do not answer)\n", len(agents)-silent, silent)
	return 0
}

// sameKeys reports whether two agents run the same keys, the same in use.
func sameKeys(a, b []probe.Key) bool {
	return slices.EqualFunc(a, b, func(x, y probe.Key) bool { return x.Index == y.Index && x.Primary == y.Primary })
}

// keyNames names keys for a line: their IDs, the one in use starred.
func keyNames(keys []probe.Key) string {
	var s []string
	for _, k := range keys {
		n := fmt.Sprintf("%08x", k.Index)
		if k.Primary {
			n += "*"
		}
		s = append(s, n)
	}
	return strings.Join(s, ",")
}

// change writes a key change to the target agent, then waits until every
// agent answering runs it (k.wait), or names those that lag. -use needs
// every agent answering to hold the key, and -remove none to send with it,
// unless -force: an agent without the key in use cannot be spoken to. -use
// and -remove take a key's ID too (keyring -list shows it), for a key this
// command or the agent holds.
func (k keyCLI) change(ctx context.Context, verb int, arg string) int {
	key, err := k.keyOf(ctx, verb, arg)
	if err != nil {
		fmt.Fprintln(k.stderr, "keyring:", err)
		return 2
	}
	if verb != mib.KeyInstall && !k.force {
		if code := k.ready(ctx, verb, key); code != 0 {
			return code
		}
	}
	value := append([]byte{byte(verb)}, key[:]...)
	if err := k.Prober.Set(ctx, k.Agent, gosnmp.SnmpPDU{Name: mib.DiagKeyChange0, Type: gosnmp.OctetString, Value: value}); err != nil {
		fmt.Fprintf(k.stderr, "keyring: %s of key %s refused by %s: %v\n", verbName(verb), key.ID(), netip.AddrPortFrom(k.Agent.Addr, k.Agent.Port), err)
		return 1
	}
	fmt.Fprintf(k.stdout, "%s of key %s taken at %s\n", verbName(verb), key.ID(), netip.AddrPortFrom(k.Agent.Addr, k.Agent.Port))
	return k.await(verb, key)
}

// keyOf reads the key arg names: the key itself, or, for -use and -remove,
// its ID, among the keys this command holds and those the agent runs.
func (k keyCLI) keyOf(ctx context.Context, verb int, arg string) (keyring.Key, error) {
	key, err := keyring.ParseKey(arg)
	if err == nil || verb == mib.KeyInstall || len(arg) != 8 {
		return key, err
	}
	for _, held := range k.ring.Keys {
		if held.ID() == strings.ToLower(arg) {
			return held, nil
		}
	}
	rows, ferr := k.Prober.FetchKeys(ctx, k.Agent)
	if ferr != nil {
		return key, fmt.Errorf("read the keys of %s to find %s: %s", netip.AddrPortFrom(k.Agent.Addr, k.Agent.Port), arg, client.Say(ferr))
	}
	for _, r := range rows {
		var held keyring.Key
		if copy(held[:], r.Value) == keyring.Size && held.ID() == strings.ToLower(arg) {
			return held, nil
		}
	}
	return key, fmt.Errorf("no key of ID %s here nor at %s: give the key itself", arg, netip.AddrPortFrom(k.Agent.Addr, k.Agent.Port))
}

// await waits until every agent answering runs the change: holds the key
// installed, sends with the key put in use, no longer holds the key
// removed (awaitSpread).
func (k keyCLI) await(verb int, key keyring.Key) int {
	return client.Await("keyring", verbName(verb)+" "+key.ID(), k.wait, k.stdout, k.stderr, func(ctx context.Context) (client.Spread, error) {
		_, agents, err := k.survey(ctx)
		s := client.Spread{Surveyed: len(agents)}
		for _, a := range agents {
			name := fmt.Sprintf("node %d (%s)", a.id, a.addr)
			switch {
			case a.err != nil:
				s.Silent = append(s.Silent, name)
			case (verb == mib.KeyInstall && !a.holds(key.Index())) || (verb == mib.KeyUse && a.primary() != key.Index()) ||
				(verb == mib.KeyRemove && a.holds(key.Index())):
				s.Lag = append(s.Lag, name)
			default:
				s.Held++
			}
		}
		if verb == mib.KeyRemove {
			s.Note = "\nwrite the keys in use to the keyring file of each host where you run diagagent's commands (the agents keep theirs under state_dir)"
		}
		return s, err
	})
}

// ready checks, before -use or -remove, that every agent answering holds
// key (-use) or sends with another (-remove).
func (k keyCLI) ready(ctx context.Context, verb int, key keyring.Key) int {
	_, agents, err := k.survey(ctx)
	if err != nil {
		fmt.Fprintln(k.stderr, "keyring:", client.Say(err))
		return 1
	}
	var short []string
	for _, a := range agents {
		switch {
		case a.err != nil:
		case verb == mib.KeyUse && !a.holds(key.Index()):
			short = append(short, fmt.Sprintf("node %d (%s) does not hold it yet", a.id, a.addr))
		case verb == mib.KeyRemove && a.primary() == key.Index():
			short = append(short, fmt.Sprintf("node %d (%s) still sends with it", a.id, a.addr))
		}
	}
	if len(short) == 0 {
		return 0
	}
	fmt.Fprintf(k.stderr, "keyring: -%s %s refused for now: %s; wait for the last change to spread (-list), or give -force\n", verbName(verb), key.ID(), strings.Join(short, "; "))
	return 1
}

// verbName names a verb as the flags do.
func verbName(verb int) string {
	return map[int]string{mib.KeyInstall: "install", mib.KeyUse: "use", mib.KeyRemove: "remove"}[verb]
}
