package state

import (
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

func TestStateRoundTrip(t *testing.T) {
	dir := t.TempDir()
	st, err := Load(dir, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Counters) != 4 || len(st.Events) != 0 {
		t.Fatalf("empty state = %+v", st)
	}
	st.Counters[2] = 7
	st.Events = append(st.Events, mib.Event{Seq: 1, NodeID: 3, Status: hiadsd.Partial, Prev: hiadsd.FaultFree, Counter: 7,
		Time: time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC), How: mib.SourceDirect, Detector: 2})
	st.LastSeq, st.Station, st.EngineBoots, st.EngineID = 1, hiadsd.Station{Addr: netip.MustParseAddr("127.0.0.9"), Counter: 3}, 5, []byte{0x80, 0, 0, 0xc8, 5, 1}
	if err := Save(dir, st); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir, 4)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, st) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, st)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*.tmp-*"))
	if len(left) != 0 {
		t.Fatalf("temporary files left behind: %v", left)
	}
}

func TestStateOtherSizeKeepsEvents(t *testing.T) {
	dir := t.TempDir()
	st, _ := Load(dir, 3)
	st.Counters[1] = 9
	st.Events = []mib.Event{{Seq: 1, NodeID: 2}}
	if err := Save(dir, st); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Counters) != 5 || got.Counters[1] != 0 || len(got.Events) != 1 {
		t.Fatalf("resized state = %+v", got)
	}
}

func TestStateBadFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, stateFileName)
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir, 2); err == nil || !strings.Contains(err.Error(), "not a valid state file") {
		t.Fatalf("corrupt file: err = %v", err)
	}
	if err := os.WriteFile(path, []byte(`{"version":99}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir, 2); !errors.Is(err, ErrVersion) {
		t.Fatalf("future version: err = %v", err)
	}
}

// TestCheckStateDir is issue 13's defects 2 and 11: a kill -9 during a save
// left state.json.tmp-* files that nothing removed, and a state_dir that
// cannot be written passed -config.check and start-up, the agent exiting
// seconds later on its first save. The check removes stale temporary files,
// and refuses a directory it cannot create or write with one line.
func TestCheckStateDir(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, stateFileName+".tmp-123")
	if err := os.WriteFile(stale, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := CheckDir(dir); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
		t.Fatalf("left in state_dir: %v", left)
	}
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	err := CheckDir(filepath.Join(file, "state")) // a directory under a file can never be made
	if err == nil || !strings.HasPrefix(err.Error(), "state_dir: ") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("unwritable state_dir: %v, want one line starting with state_dir", err)
	}
}

// TestStateOlderLayout: a state file of layout 1, as agents of the format
// before merging lists wrote it, is migrated, never refused: the engine
// boots and the node list with its removed ids, windows and keys are kept,
// and the list keeps the fingerprint and version those agents serve;
// -config.check says so beforehand (Describe). A file of a newer
// layout is refused with what to do, and left as it was.
func TestStateOlderLayout(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, stateFileName)
	older := `{"version":1,"nodes":4,"counters":[0,3,0,1],"last_seq":2,"engine_boots":17,"events":[],"nms_counter":0,` +
		`"list":{"version":5,"hash":[1,2,3,4,5,6,7,8],"members":[{"addr":"127.0.0.1","port":161},{"addr":"127.0.0.2","port":161},` +
		`{"addr":"127.0.0.3","port":161,"removed":true},{"addr":"127.0.0.4","port":161,"maint":{"until":"2026-11-27T12:00:00Z","status":1}}],` +
		`"keys":[3000,1000]},"file_hash":"00","keys_hash":"x"}`
	if err := os.WriteFile(path, []byte(older), 0o600); err != nil {
		t.Fatal(err)
	}
	if what, err := Describe(dir); err != nil || !strings.Contains(what, "layout 1, an older build's: it is migrated at start") || !strings.Contains(what, "engine boots (17)") {
		t.Errorf("Describe of layout 1: %q, %v", what, err)
	}
	st, err := Load(dir, 3)
	if err != nil {
		t.Fatal(err)
	}
	l := st.List
	want := nodelist.List{Version: 5, Members: []nodelist.Member{{Addr: netip.MustParseAddr("127.0.0.1"), Port: 161}, {Addr: netip.MustParseAddr("127.0.0.2"), Port: 161},
		{Addr: netip.MustParseAddr("127.0.0.3"), Port: 161, Deleted: true},
		{Addr: netip.MustParseAddr("127.0.0.4"), Port: 161, Window: &nodelist.Window{Until: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC), Status: hiadsd.FaultFree}}},
		Keys: []uint32{3000, 1000}}
	if w := nodelist.Migrate(want); st.EngineBoots != 17 || len(st.Counters) != 4 || st.Counters[1] != 3 || l == nil || l.Hash != w.Hash || l.Version != 5 ||
		!l.Members[2].Removed || !l.Members[3].Maint.Active(time.Date(2026, 11, 27, 11, 0, 0, 0, time.UTC)) || l.Keys[0] != 3000 {
		t.Fatalf("migrated: boots %d, counters %v, list %+v", st.EngineBoots, st.Counters, l)
	}
	if err := Save(dir, st); err != nil {
		t.Fatal(err)
	}
	again, err := Load(dir, 3)
	if err != nil || again.Version != FileVersion || again.List.Hash != l.Hash || again.List.Version != 5 {
		t.Fatalf("saved at layout %d and read again: %v, %+v", again.Version, err, again.List)
	}

	newer := []byte(`{"version":3,"engine_boots":40}`)
	if err := os.WriteFile(path, newer, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir, 3); !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), "a newer agent wrote it") {
		t.Fatalf("a newer layout: %v", err)
	}
	if _, err := Describe(dir); !errors.Is(err, ErrVersion) {
		t.Errorf("Describe of a newer layout: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != string(newer) {
		t.Errorf("a refused file was changed: %s", b)
	}
}
