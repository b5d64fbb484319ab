package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"

	"github.com/diagagent/diagagent/agent/keyring"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// FileVersion is the layout version of the state file. A file of an
// older layout is migrated (its node list to the merging one, Migrate); a
// file of a newer one is refused and left as it is.
const FileVersion = 2

// stateFileName is the file under state_dir that holds what survives a restart.
const stateFileName = "state.json"

// ErrVersion says the state file was written by an incompatible version of the agent.
var ErrVersion = errors.New("state file has an unsupported version")

// State is what the agent keeps across restarts: the highest event counter it knows per node (so a
// change it observes after a restart is numbered above anything it said before), its event table,
// the management station with its counter, and the SNMP engine boots.
type State struct {
	Version  int         `json:"version"`
	Nodes    int         `json:"nodes"`
	Counters []uint32    `json:"counters"`
	Events   []mib.Event `json:"-"`
	LastSeq  uint32      `json:"last_seq"`
	// Station is the management station and its counter (nmsID, nmsIDCounter).
	Station     hiadsd.Station `json:"-"`
	EngineBoots uint32         `json:"engine_boots"`
	// Statuses are the statuses the view held beside Counters, so a restart
	// can tell a first verdict that only restores what it held from news.
	Statuses []hiadsd.Status `json:"-"`
	EngineID []byte          `json:"engine_id,omitempty"`
	// List is the node list the agent runs (its version, fingerprint and
	// members, removed ones included), and FileHash the fingerprint of the
	// file's list when it was last read: a restart keeps a list learned or
	// changed since, and applies a file edited meanwhile as a change.
	List     *nodelist.List `json:"list,omitempty"`
	FileHash string         `json:"file_hash,omitempty"`
	// File is the configuration file's nodes when it was last read (their
	// host names or addresses, ports and tested-only flags): a reload, or a
	// start with an edited file, applies the difference from it alone
	// (nodelist.List.Edit). A state of 1.0 or older has none.
	File []nodelist.Member `json:"file,omitempty"`
	// Pending is the list with the changes made here (or merged) that the
	// agent has taken but not yet run: a change is saved before the SET that
	// asked for it is answered, so a restart applies it at its first interval.
	Pending *nodelist.List `json:"pending,omitempty"`
	// KeysHash names the keys of the keyring file when it was last read,
	// so that a restart keeps keys rotated since and applies a file edited
	// meanwhile as a change.
	KeysHash string `json:"keys_hash,omitempty"`
}

// The state file numbers statuses as the MIB does (nodeStatus: 0
// fault-free, 1 faulty, 2 partial, 3 unknown), as it always has; in memory
// they are the core's.

// diskState is State as the file holds it.
type diskState struct {
	stateFields
	Events     []diskEvent `json:"events"`
	Statuses   []int       `json:"statuses,omitempty"`
	NMS        string      `json:"nms,omitempty"`
	NMSCounter uint32      `json:"nms_counter"`
}

// stateFields are the fields of State the file holds as they are.
type stateFields State

// diskEvent is mib.Event as the file holds it.
type diskEvent struct {
	mib.Event
	Status int `json:"Status"`
	Prev   int `json:"Prev"`
}

// MarshalJSON writes st as the state file holds it.
func (st State) MarshalJSON() ([]byte, error) {
	d := diskState{stateFields: stateFields(st), Events: make([]diskEvent, len(st.Events)), NMSCounter: st.Station.Counter}
	if st.Station.Addr.IsValid() {
		d.NMS = st.Station.Addr.String()
	}
	for k, e := range st.Events {
		d.Events[k] = diskEvent{Event: e, Status: mib.DiagStatus(e.Status), Prev: mib.DiagStatus(e.Prev)}
	}
	for _, s := range st.Statuses {
		d.Statuses = append(d.Statuses, mib.DiagStatus(s))
	}
	return json.Marshal(d)
}

// UnmarshalJSON reads st from the state file; a status the MIB does not
// number is an error.
func (st *State) UnmarshalJSON(b []byte) error {
	var d diskState
	if err := json.Unmarshal(b, &d); err != nil {
		return err
	}
	*st = State(d.stateFields)
	st.Station.Counter = d.NMSCounter
	var err error
	if d.NMS != "" {
		st.Station.Addr, err = netip.ParseAddr(d.NMS)
	}
	for _, e := range d.Events {
		ev := e.Event
		var err1, err2 error
		ev.Status, err1 = mib.StatusOf(e.Status)
		ev.Prev, err2 = mib.StatusOf(e.Prev)
		st.Events = append(st.Events, ev)
		err = errors.Join(err, err1, err2)
	}
	for _, v := range d.Statuses {
		s, err1 := mib.StatusOf(v)
		st.Statuses = append(st.Statuses, s)
		err = errors.Join(err, err1)
	}
	return err
}

// CheckDir makes sure state can be saved under dir, for -config.check:
// PrepareDir, then a probe file written, synced and removed. The error
// names state_dir and says what to fix.
func CheckDir(dir string) error {
	if err := PrepareDir(dir); err != nil {
		return err
	}
	probe, err := os.CreateTemp(dir, stateFileName+".tmp-*")
	if err != nil {
		return fmt.Errorf("state_dir: %s is not writable: %w; give a directory the agent may write", dir, err)
	}
	defer os.Remove(probe.Name())
	if err := probe.Sync(); err != nil {
		probe.Close()
		return fmt.Errorf("state_dir: %s: cannot sync a file: %w", dir, err)
	}
	if err := probe.Close(); err != nil {
		return fmt.Errorf("state_dir: %s: %w", dir, err)
	}
	return nil
}

// PrepareDir creates dir if needed and removes the temporary files a
// save cut short (kill -9 mid-save) left behind: no other writer uses dir.
// The agent runs it at start; its first save, of snmpEngineBoots, then proves
// the directory writable.
func PrepareDir(dir string) error {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return fmt.Errorf("state_dir: cannot create %s: %w; give a directory the agent may write", dir, err)
	}
	stale, _ := filepath.Glob(filepath.Join(dir, stateFileName+".tmp-*"))
	keys, _ := filepath.Glob(filepath.Join(dir, KeysFileName+".tmp-*"))
	stale = append(stale, keys...)
	for _, f := range stale {
		if err := os.Remove(f); err != nil {
			return fmt.Errorf("state_dir: cannot remove the stale %s: %w", f, err)
		}
	}
	return nil
}

// Load reads the state file under dir. A missing file gives an empty state for n nodes; a file
// for a different number of nodes keeps its events and NMS but starts its counters over.
func Load(dir string, n int) (State, error) {
	empty := State{Version: FileVersion, Nodes: n, Counters: make([]uint32, n)}
	path := filepath.Join(dir, stateFileName)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return empty, nil
	}
	if err != nil {
		return empty, fmt.Errorf("state_dir: %w", err)
	}
	var st State
	if err := json.Unmarshal(b, &st); err != nil {
		return empty, fmt.Errorf("state_dir: %s is not a valid state file (move it away to start afresh): %w", path, err)
	}
	if st.Version > FileVersion || st.Version < 1 {
		return empty, fmt.Errorf("state_dir: %s: layout %d, this agent reads 1 to %d (a newer agent wrote it: run that one, or move the file away to start afresh): %w",
			path, st.Version, FileVersion, ErrVersion)
	}
	for _, l := range []*nodelist.List{st.List, st.Pending} {
		switch {
		case l == nil:
		case st.Version == 1: // the list that did not merge: its facts become the base of one that does
			*l = nodelist.Migrate(*l)
		default:
			l.Seal()
		}
	}
	if st.List != nil {
		n = len(st.List.Members) // the counters follow the list the agent runs, not the file
	}
	if st.Nodes != n || len(st.Counters) != n {
		st.Nodes, st.Counters, st.Statuses = n, make([]uint32, n), nil
	}
	if len(st.Statuses) != n {
		st.Statuses = nil // a file from before they were kept
	}
	return st, nil
}

// Save writes st under dir atomically: a temporary file in the same directory is written,
// synced and renamed over the old one, so a crash leaves either the old or the new state.
func Save(dir string, st State) error {
	st.Version = FileVersion
	b, err := st.MarshalJSON() // as json.Marshal(st) writes it, without its second pass over every byte to compact it
	if err != nil {
		return fmt.Errorf("state: encode: %w", err)
	}
	return writeAtomic(dir, stateFileName, b)
}

// writeAtomic writes b as the file name under dir, mode 0600: a temporary
// file in dir is written, synced and put in place of the old one
// (replaceFile), the replacement itself made durable.
func writeAtomic(dir, name string, b []byte) error {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return fmt.Errorf("state_dir: %w", err)
	}
	tmp, err := os.CreateTemp(dir, name+".tmp-*")
	if err != nil {
		return fmt.Errorf("state_dir: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("state: write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("state: sync %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("state: close %s: %w", tmp.Name(), err)
	}
	return replaceFile(tmp.Name(), filepath.Join(dir, name))
}

// Describe says, for -config.check, what a start will do with the
// state file under dir: none yet, this layout's, or an older layout's to
// migrate (what it keeps); a file of a newer layout is Load's error.
func Describe(dir string) (string, error) {
	path := filepath.Join(dir, stateFileName)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Sprintf("state: none yet in %s (a first start)", dir), nil
	}
	if err != nil {
		return "", fmt.Errorf("state_dir: %w", err)
	}
	var layout struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(b, &layout); err != nil {
		return "", fmt.Errorf("state_dir: %s is not a valid state file (move it away to start afresh): %w", path, err)
	}
	st, err := Load(dir, 0)
	if err != nil {
		return "", err
	}
	list := "the node list of the configuration file (none kept yet)"
	if st.List != nil {
		list = fmt.Sprintf("node list version %d, fingerprint %x, %d ids, %d keys", st.List.Version, st.List.Hash, len(st.List.Members), len(st.List.Keys))
	}
	if layout.Version < FileVersion {
		return fmt.Sprintf("state: %s is of layout %d, an older build's: it is migrated at start, keeping its engine boots (%d), its event counters and events, and its %s",
			path, layout.Version, st.EngineBoots, list), nil
	}
	return fmt.Sprintf("state: %s (layout %d): engine boots %d, %s", path, layout.Version, st.EngineBoots, list), nil
}

// KeysFileName is the file under state_dir holding the keys the agent runs.
const KeysFileName = "keyring"

// LoadKeys reads the keys kept under dir; none when there is no file.
func LoadKeys(dir string) ([]keyring.Key, error) {
	path := filepath.Join(dir, KeysFileName)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	r, err := keyring.Load(path)
	if err != nil {
		return nil, fmt.Errorf("state_dir: %w", err)
	}
	return r.Keys, nil
}

// SaveKeys keeps r under dir, mode 0600, as Save keeps the state.
func SaveKeys(dir string, r keyring.Ring) error {
	return writeAtomic(dir, KeysFileName, r.Marshal())
}
