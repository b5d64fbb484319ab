// Command swimmember runs one hashicorp/memberlist member (SWIM with the
// Lifeguard extensions, DefaultLANConfig) for diagagent's side-by-side
// measurement (make versus, docs/versus.md). It lives in a Go module of its
// own so that diagagent's go.mod never gains memberlist.
//
// Every change of its view of another member is one JSON line on stdout, in
// the shape of diagagent's "node status changed" log line, so one parser
// reads both systems:
//
//	{"msg":"node status changed","self":3,"node":5,"old":"alive","new":"suspect","changed":"2026-11-26T18:00:00.123456789Z"}
//
// with old and new among alive, suspect, dead and left, and changed the
// moment this member's view took it. Members are named by
// their NodeID. Joins and deaths come from memberlist's event delegate.
// Suspicions memberlist reports to no delegate, and Members() leaves its
// Node.State unset, so every -poll the member reads memberlist's own node
// table (the unexported nodes, under its nodeLock) at offsets found by
// reflection once: a suspicion shorter than the poll can be missed. Two lines come from memberlist's own log: "suspicion raised" when
// this member's probe of a node failed and it starts a suspicion, and
// "suspicion refuted" when it hears that it is itself suspected or dead.
package main

import (
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/hashicorp/memberlist"
)

func main() {
	id := flag.Int("id", 0, "this member's NodeID (1-based), also its name")
	bind := flag.String("bind", "", "address to bind and advertise")
	port := flag.Int("port", 7946, "port for UDP and TCP")
	join := flag.String("join", "", "address:port of a member to join through (empty: the first member)")
	poll := flag.Duration("poll", 100*time.Millisecond, "how often Members() is read for suspicions")
	probe := flag.Duration("probe", time.Second, "probe interval; memberlist's other timers scale with it (1s: DefaultLANConfig)")
	key := flag.String("key", "", "the cluster's SecretKey in base64 (16, 24 or 32 bytes): every message AES-GCM encrypted and verified; empty: none")
	flag.Parse()
	if *id < 1 || *bind == "" {
		fmt.Fprintln(os.Stderr, "swimmember: -id (1 or more) and -bind are required")
		os.Exit(2)
	}
	if *probe <= 0 {
		fmt.Fprintln(os.Stderr, "swimmember: -probe must be positive")
		os.Exit(2)
	}
	secret, err := base64.StdEncoding.DecodeString(*key)
	if err != nil || (len(secret) != 0 && len(secret) != 16 && len(secret) != 24 && len(secret) != 32) {
		fmt.Fprintln(os.Stderr, "swimmember: -key must be 16, 24 or 32 bytes in base64")
		os.Exit(2)
	}
	if err := run(*id, *bind, *port, *join, *poll, *probe, secret); err != nil {
		fmt.Fprintln(os.Stderr, "swimmember:", err)
		os.Exit(1)
	}
}

// run starts the member, joins, watches and leaves nothing behind on SIGTERM.
func run(id int, bind string, port int, join string, poll, probe time.Duration, secret []byte) error {
	out := &printer{self: id, w: os.Stdout}
	v := &view{out: out, states: map[int]string{}, polled: map[string]memberlist.NodeStateType{}}
	cfg := memberlist.DefaultLANConfig()
	scale(cfg, probe)
	cfg.Name = strconv.Itoa(id)
	cfg.BindAddr, cfg.AdvertiseAddr = bind, bind
	cfg.BindPort, cfg.AdvertisePort = port, port
	cfg.Events = v
	cfg.SecretKey = secret // nil: no encryption, DefaultLANConfig's
	cfg.Logger = log.New(&logScanner{out: out}, "", 0)
	t, err := findTable()
	if err != nil {
		return err
	}
	m, err := memberlist.Create(cfg)
	if err != nil {
		return err
	}
	if join != "" {
		// The first member may not listen yet: try until it answers.
		for {
			if _, err := m.Join([]string{join}); err == nil {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	out.print(map[string]any{"msg": "member up", "self": id, "members": m.NumMembers()})
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		select {
		case <-sig:
			return m.Shutdown()
		case <-tick.C:
			v.poll(t, m)
		}
	}
}

// scale stretches every periodic timer of cfg by probe/ProbeInterval, so a
// member probes every probe and gossips, syncs and times out in proportion;
// the suspicion multipliers stay, as they count probe intervals.
func scale(cfg *memberlist.Config, probe time.Duration) {
	f := float64(probe) / float64(cfg.ProbeInterval)
	for _, d := range []*time.Duration{&cfg.ProbeInterval, &cfg.ProbeTimeout, &cfg.GossipInterval,
		&cfg.GossipToTheDeadTime, &cfg.PushPullInterval} {
		*d = time.Duration(float64(*d) * f)
	}
}

// printer writes one JSON object per line; every writer goes through it.
type printer struct {
	mu   sync.Mutex
	self int
	w    io.Writer
}

func (p *printer) print(obj map[string]any) {
	b, _ := json.Marshal(obj)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.w.Write(append(b, '\n'))
}

// view is this member's state of every other member, as it last printed it.
type view struct {
	out    *printer
	mu     sync.Mutex
	states map[int]string
	polled map[string]memberlist.NodeStateType // the table as the last poll read it; the poll's alone
}

// set records node's new state and prints it when it changed, with the
// moment it did (changed), as diagagent's line carries the moment its view
// took a change: the harness reads both systems' lines at that stamp, not
// when the line reached it.
func (v *view) set(node int, state string) {
	now := time.Now()
	if node == v.out.self {
		return
	}
	v.mu.Lock()
	old, seen := v.states[node]
	v.states[node] = state
	v.mu.Unlock()
	if seen && old == state {
		return
	}
	if !seen {
		old = "unknown"
	}
	v.out.print(map[string]any{"msg": "node status changed", "self": v.out.self, "node": node, "old": old, "new": state,
		"changed": now.Format(time.RFC3339Nano)})
}

// NotifyJoin is called when a node joins or comes back from dead.
func (v *view) NotifyJoin(n *memberlist.Node) { v.set(nodeID(n.Name), "alive") }

// NotifyLeave is called when a node is declared dead or has left.
func (v *view) NotifyLeave(n *memberlist.Node) {
	state := "dead"
	if n.State == memberlist.StateLeft {
		state = "left"
	}
	v.set(nodeID(n.Name), state)
}

// NotifyUpdate is called when a node's metadata changes; there is none here.
func (v *view) NotifyUpdate(*memberlist.Node) {}

// poll turns changes in memberlist's node table into suspect and alive
// lines; dead and left come from the delegate, and a node back from them
// from NotifyJoin. Only a state that moved since the last poll costs more
// than a comparison.
func (v *view) poll(t *table, m *memberlist.Memberlist) {
	t.read(m, func(name string, st memberlist.NodeStateType) {
		if last, ok := v.polled[name]; ok && last == st {
			return
		}
		v.polled[name] = st
		id := nodeID(name)
		switch st {
		case memberlist.StateSuspect:
			v.set(id, "suspect")
		case memberlist.StateAlive:
			v.mu.Lock()
			was := v.states[id]
			v.mu.Unlock()
			if was == "suspect" {
				v.set(id, "alive")
			}
		}
	})
}

// read calls f with the name and state of every node memberlist knows,
// from its unexported table, holding its read lock as memberlist's own
// readers do. The fields' offsets are found by name once (findTable), so a
// poll reads memory and allocates nothing: 256 members polling every
// 100 ms must not cost the machine what memberlist itself costs.
func (t *table) read(m *memberlist.Memberlist, f func(name string, st memberlist.NodeStateType)) {
	base := unsafe.Pointer(m)
	lock := (*sync.RWMutex)(unsafe.Add(base, t.lock))
	lock.RLock()
	defer lock.RUnlock()
	for _, n := range *(*[]unsafe.Pointer)(unsafe.Add(base, t.nodes)) {
		f(*(*string)(unsafe.Add(n, t.name)), *(*memberlist.NodeStateType)(unsafe.Add(n, t.state)))
	}
}

// table is where memberlist keeps its node table: the byte offsets of
// Memberlist.nodeLock and .nodes (a []*nodeState), and of nodeState's Name
// and State.
type table struct{ lock, nodes, name, state uintptr }

// findTable looks the fields up by name, once, and checks their types, so
// a memberlist release that moves them fails here, not in a poll.
func findTable() (*table, error) {
	mt := reflect.TypeFor[memberlist.Memberlist]()
	lock, ok1 := mt.FieldByName("nodeLock")
	nodes, ok2 := mt.FieldByName("nodes")
	if !ok1 || !ok2 || lock.Type != reflect.TypeFor[sync.RWMutex]() || nodes.Type.Kind() != reflect.Slice ||
		nodes.Type.Elem().Kind() != reflect.Pointer || len(lock.Index) != 1 || len(nodes.Index) != 1 {
		return nil, fmt.Errorf("memberlist.Memberlist has no nodeLock and nodes slice: the suspicion poll needs updating")
	}
	ns := nodes.Type.Elem().Elem()
	name, ok3 := ns.FieldByName("Name")
	state, ok4 := ns.FieldByName("State")
	nameOff, ok5 := offset(ns, name.Index)
	stateOff, ok6 := offset(ns, state.Index)
	if !ok3 || !ok4 || !ok5 || !ok6 || name.Type.Kind() != reflect.String || state.Type != reflect.TypeFor[memberlist.NodeStateType]() {
		return nil, fmt.Errorf("memberlist's nodeState has no Name and State: the suspicion poll needs updating")
	}
	return &table{lock: lock.Offset, nodes: nodes.Offset, name: nameOff, state: stateOff}, nil
}

// offset is the byte offset of the field at index in t, through embedded
// structs held by value; false if the path goes through anything else.
func offset(t reflect.Type, index []int) (uintptr, bool) {
	var off uintptr
	for _, i := range index {
		if t.Kind() != reflect.Struct {
			return 0, false
		}
		f := t.Field(i)
		off += f.Offset
		t = f.Type
	}
	return off, true
}

// nodeID reads a member's name, which is its NodeID.
func nodeID(name string) int {
	id, _ := strconv.Atoi(name)
	return id
}

// logScanner reads memberlist's log: it prints the two lines the harness
// counts (a probe raising a suspicion, a refutation) as events and passes
// warnings and errors through; debug and info lines are dropped.
type logScanner struct{ out *printer }

func (s *logScanner) Write(b []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		s.line(line)
	}
	return len(b), nil
}

func (s *logScanner) line(l string) {
	self := s.out.self
	switch {
	case strings.Contains(l, "memberlist: Suspect ") && strings.Contains(l, " has failed, no acks received"):
		name := strings.TrimSuffix(strings.SplitN(l, "memberlist: Suspect ", 2)[1], " has failed, no acks received")
		s.out.print(map[string]any{"msg": "suspicion raised", "self": self, "node": nodeID(name)})
	case strings.Contains(l, "memberlist: Refuting a suspect message"), strings.Contains(l, "memberlist: Refuting a dead message"):
		s.out.print(map[string]any{"msg": "suspicion refuted", "self": self, "line": l})
	case strings.HasPrefix(l, "[WARN]"), strings.HasPrefix(l, "[ERR]"):
		s.out.print(map[string]any{"msg": "memberlist", "self": self, "line": l})
	}
}
