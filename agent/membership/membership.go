package membership

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/agent/keyring"
	"github.com/diagagent/diagagent/agent/metrics"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/agent/state"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/traps"
)

// Prober reads a peer's node list (probe.Prober). One that can also read
// what a list holds beyond a summary and a peer's keys alone (deltaReader)
// reads changes as changes; one that reads what list a peer runs (stater)
// lets this agent collect.
type Prober interface {
	FetchList(ctx context.Context, t probe.Target) (probe.List, error)
}

// Notifier is what the room needs from traps.Notifier.
type Notifier interface {
	NodeListConflict(traps.ListConflict) error
}

// Host is what the room asks of the agent. None of its calls is made with
// the room's lock held: the agent may take its own lock, and ask the room
// under it.
type Host interface {
	// Now is the agent's clock.
	Now() time.Time
	// Save saves the agent's state, the room's part of it included
	// (Saved): a change is on disk before it is acknowledged.
	Save() error
	// PublishNext serves at once the diagNodeNextID of the latest list.
	PublishNext()
	// Apply runs the queued list from now on, between two intervals
	// (Pending, Applied).
	Apply()
	// Conflict records whether peer id runs a list that does not merge
	// with this agent's, and why ("" when it merges).
	Conflict(id int, why string)
}

// Options are what a Membership is built from.
type Options struct {
	// Nodes is the node list the file gives, each member with its name,
	// community and OID; Self is this node's index in it.
	Nodes []nodelist.Member
	Self  int
	// Keys are the keyring file's cluster keys, none without a keyring;
	// Kept are those state_dir kept (state.LoadKeys).
	Keys, Kept []keyring.Key
	// StateDir keeps the keys the agent runs (state.SaveKeys).
	StateDir string
	// Interval paces the surveys for a collection.
	Interval time.Duration
	Prober   Prober
	Notifier Notifier // nil notifies nothing
	Host     Host
	// Lookup resolves the host name of a node a manager adds by name; nil
	// refuses such a node.
	Lookup nodelist.Lookup
	// OnKeys, if set, is called on the loop with the cluster keys the
	// agent runs each time they change.
	OnKeys func(keyring.Ring)
	// Refused counts the lists refused as no correct agent could have made
	// them, beside the daemon's other refusals.
	Refused metrics.Counter
	Log     *logrus.Entry
}

// Membership is the node list an agent runs and how it agrees with its
// peers' (package doc). Its state is under mu, but read and retry, which
// the loop alone uses; changing makes the changes of the list one at a
// time, each with its save.
type Membership struct {
	prober   Prober
	notifier Notifier
	host     Host
	log      *logrus.Entry
	met      listMetrics
	onKeys   func(keyring.Ring)
	lookup   nodelist.Lookup
	stateDir string
	interval time.Duration
	self     nodelist.Member // this agent's own node, as the file gives it: its id in any list (IndexOf)
	origin   uint32          // this agent in the stamps of its changes (nodelist.OriginOf)

	mu        sync.Mutex
	changing  sync.Mutex
	clock     nodelist.Clock         // stamps this agent's changes
	pending   *nodelist.List         // the list with changes made here or merged, for the next interval
	running   nodelist.List          // the list the loop runs, as Applied last told
	keys      map[uint32]keyring.Key // the cluster keys held, by index: the list's, and one installed for the next
	file      []nodelist.Member      // the file's nodes
	saved     savedFiles             // what the state remembers of the files read
	toldMoved map[nodelist.Stamp]int // nodes added here whose move was told: the id (1-based) told last
	table     table                  // diagListTable and diagListDeltaTable of the list run, encoded once
	skew      atomic.Int64           // nanoseconds the list's clock runs off the wall clock (diagFaultClockSkew)

	read    map[int]hiadsd.ListVersion // per peer, the list last read from it: not read again (the loop's)
	retry   map[int]time.Time          // per peer, a list refused for a stamp ahead: read again from then on (the loop's)
	poll    int                        // the agents whose list a removed agent read (Poll)
	collect collection                 // surveys for a collection of the list
	surveys sync.WaitGroup             // the surveys' goroutines
}

// savedFiles is what the state remembers of the files last read: the
// file's nodes (state.State.File) and fingerprint, and the keyring file's
// keys.
type savedFiles struct {
	file               []nodelist.Member
	fileHash, keysHash string
}

// retryAhead is how long after refusing a peer's list for a stamp ahead
// the agent reads it again.
const retryAhead = 30 * time.Second

// errListAhead refuses a peer's list whose version leads this agent's by
// more than a correct peer's can (hiadsd.MaxLead).
var errListAhead = errors.New("a node list too far ahead")

// ErrRemoveSelf refuses a change that removes this agent's own node: it is
// removed through another agent, which it then learns from.
var ErrRemoveSelf = errors.New("an agent does not remove its own node; remove it through another agent")

// ErrUnsaved is wrapped by the error of a change that was made but could
// not be saved under state_dir: it holds until a restart, not after.
var ErrUnsaved = errors.New("the change holds, but state_dir could not keep it")

// Start is where an agent begins: the list it runs and its own id there.
type Start struct {
	List nodelist.List // the list it runs, its members named as the file names them
	ID   int           // this agent's id in List
}

// New chooses the list the agent starts with (start.go) and builds its
// Membership: st is what state_dir held, now the wall clock.
func New(o Options, st state.State, now time.Time) (*Membership, Start, error) {
	if o.Log == nil {
		l := logrus.New()
		l.SetLevel(logrus.PanicLevel)
		o.Log = logrus.NewEntry(l)
	}
	s, err := startList(o, st, now)
	if err != nil {
		return nil, Start{}, err
	}
	m := &Membership{prober: o.Prober, notifier: o.Notifier, host: o.Host, log: o.Log, met: newListMetrics(o.Refused),
		onKeys: o.OnKeys, lookup: o.Lookup, stateDir: o.StateDir, interval: o.Interval,
		self: o.Nodes[o.Self], origin: nodelist.OriginOf(o.Nodes[o.Self]), clock: s.clock, pending: s.next, running: s.list,
		keys: map[uint32]keyring.Key{}, file: o.Nodes, toldMoved: map[nodelist.Stamp]int{},
		saved: savedFiles{file: fileNodes(o.Nodes), fileHash: s.fileHash, keysHash: s.keysHash},
		read:  map[int]hiadsd.ListVersion{}, retry: map[int]time.Time{}}
	for _, k := range append(o.Kept, o.Keys...) {
		m.keys[k.Index()] = k
	}
	if r := m.ringOf(s.list.Keys); len(r.Keys) != len(s.list.Keys) {
		return nil, Start{}, fmt.Errorf("state_dir: the node list this agent runs (version %d) names cluster keys %v, and %s holds only %d of them: copy the cluster's current keyring file to the configured keyring, or start afresh (empty state_dir)",
			s.list.Version, KeyIDs(s.list.Keys), filepath.Join(o.StateDir, state.KeysFileName), len(r.Keys))
	}
	return m, Start{List: s.list, ID: s.id}, nil
}

// Latest is the list the next change applies to: the one queued, or the
// running one.
func (m *Membership) Latest() nodelist.List {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.latest()
}

// latest is Latest with mu held.
func (m *Membership) latest() nodelist.List {
	if m.pending != nil {
		return *m.pending
	}
	return m.running
}

// Pending is the list queued for the next interval, nil if none.
func (m *Membership) Pending() *nodelist.List {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.pending
}

// Applied tells the room the loop switched to next (Pending): it is no
// longer queued unless a change came since.
func (m *Membership) Applied(next *nodelist.List) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pending == next {
		m.pending = nil
	}
}

// NextID is diagNodeNextID: the NodeID the next add takes, on the latest list.
func (m *Membership) NextID() uint32 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return uint32(m.latest().NextID() + 1)
}

// File is the file's nodes, as the last start or reload read them.
func (m *Membership) File() []nodelist.Member {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.file
}

// Saved is the room's part of the state: the list queued, and what the
// state remembers of the files read.
func (m *Membership) Saved(st *state.State) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st.Pending, st.File, st.FileHash, st.KeysHash = m.pending, m.saved.file, m.saved.fileHash, m.saved.keysHash
}

// Wait waits for the surveys under way.
func (m *Membership) Wait() { m.surveys.Wait() }

// Forget drops what the room knew of peer id, whose id names another node
// now. It runs on the loop.
func (m *Membership) Forget(id int) {
	delete(m.read, id)
	delete(m.retry, id)
}

// Reset forgets every peer: the agent runs a list of another base. It
// runs on the loop.
func (m *Membership) Reset() {
	clear(m.read)
	clear(m.retry)
}

// Collectors are the room's counters.
func (m *Membership) Collectors() []metrics.Collector {
	return []metrics.Collector{m.met.merges, m.met.listBytes, m.met.collected, m.met.lost}
}

// listNow is the list's clock at wall-clock time now: now, unless fault
// injection moved it (SetClockSkew).
func (m *Membership) listNow(now time.Time) time.Time { return now.Add(time.Duration(m.skew.Load())) }

// SetClockSkew moves this agent's clock for its node list by skew from
// the wall clock, as diagFaultClockSkew asks (fault injection): changes
// made here are stamped, and peers' lists checked, on that clock, as on
// an agent whose wall clock jumped.
func (m *Membership) SetClockSkew(skew time.Duration) error {
	m.skew.Store(int64(skew))
	m.log.WithField("skew", skew.String()).Warn("fault injection: the node list's clock runs off the wall clock")
	return nil
}

// stamp stamps a change made here now (under mu).
func (m *Membership) stamp(now time.Time) nodelist.Stamp {
	return nodelist.Stamp{Time: m.clock.Next(m.listNow(now)), Origin: m.origin}
}

// fileHash names a file's list (nodelist.New) as the state remembers it
// (state.State.FileHash).
func fileHash(l nodelist.List) string { return hex.EncodeToString(l.Hash[:]) }

// fileNodes is what the state keeps of the file's nodes (state.State.File).
func fileNodes(file []nodelist.Member) []nodelist.Member {
	out := make([]nodelist.Member, len(file))
	for k, m := range file {
		out[k] = nodelist.Member{Host: m.Host, Addr: m.Addr, Port: m.Port, TestedOnly: m.TestedOnly, Want: k}
	}
	return out
}

// listMetrics count the lists read and what came of them.
type listMetrics struct {
	merges    *metrics.CounterVec
	listBytes *metrics.CounterVec // octets of peers' lists read, by form
	collected metrics.Counter     // facts collected here
	lost      *metrics.CounterVec
	refused   metrics.Counter // shared with the daemon's other refusals
}

// newListMetrics makes the room's counters, every label value at 0.
func newListMetrics(refused metrics.Counter) listMetrics {
	m := listMetrics{
		merges: metrics.NewCounterVec(metrics.CounterOpts{Name: "diagagent_node_list_reads_total",
			Help: "Peers' node lists read, by what came of them: merged (it brought changes), held (nothing new), refused (no correct agent could have made it), other_base (another file's), older_format (an agent not upgraded)."}, []string{"result"}),
		listBytes: metrics.NewCounterVec(metrics.CounterOpts{Name: "diagagent_node_list_read_octets_total",
			Help: "Octets of peers' node lists this agent read, by form: delta (only the changes it lacked, diagListDeltaTable), whole (diagListTable: it held no change yet, the peer collected past it, or runs a release before 1.1)."}, []string{"form"}),
		collected: metrics.NewCounter(metrics.CounterOpts{Name: "diagagent_node_list_collected_total",
			Help: "Facts of the node list this agent collected once every agent ran one list (diagListStable): removed nodes' entries, and key installations removed or made again."}),
		lost: metrics.NewCounterVec(metrics.CounterOpts{Name: "diagagent_node_list_changes_lost_total",
			Help: "Changes of the node list made here that lost to one made at once at another agent (diagNodeListConflict), by kind: window, key in use, key removal, id."}, []string{"kind"}),
		refused: refused,
	}
	if m.refused == nil {
		m.refused = metrics.NewCounter(metrics.CounterOpts{Name: "diagagent_counters_refused_total",
			Help: "Node lists refused as no correct agent could have made them (a room built without the daemon's counter)."})
	}
	for _, r := range []string{"merged", "held", "refused", "other_base", "older_format"} {
		m.merges.WithLabelValues(r)
	}
	for _, f := range []string{"delta", "whole"} {
		m.listBytes.WithLabelValues(f)
	}
	for _, k := range []string{"window", "key in use", "key removal", "id"} {
		m.lost.WithLabelValues(k)
	}
	return m
}

// SetRunning tells the room the loop runs l now: a list switched to, or the
// same list with nodes given by host name at their new addresses.
func (m *Membership) SetRunning(l nodelist.List) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.running = l
}
