package daemon

import (
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

func TestStateRoundTrip(t *testing.T) {
	dir := t.TempDir()
	st, err := LoadState(dir, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Counters) != 4 || len(st.Events) != 0 {
		t.Fatalf("empty state = %+v", st)
	}
	st.Counters[2] = 7
	st.Events = append(st.Events, board.Event{Seq: 1, NodeID: 3, Status: hiadsd.Partial, Prev: hiadsd.FaultFree, Counter: 7,
		Time: time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC), How: mib.SourceDirect, Detector: 2})
	st.LastSeq, st.Station, st.EngineBoots, st.EngineID = 1, hiadsd.Station{Addr: netip.MustParseAddr("127.0.0.9"), Counter: 3}, 5, []byte{0x80, 0, 0, 0xc8, 5, 1}
	if err := SaveState(dir, st); err != nil {
		t.Fatal(err)
	}
	got, err := LoadState(dir, 4)
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
	st, _ := LoadState(dir, 3)
	st.Counters[1] = 9
	st.Events = []board.Event{{Seq: 1, NodeID: 2}}
	if err := SaveState(dir, st); err != nil {
		t.Fatal(err)
	}
	got, err := LoadState(dir, 5)
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
	if _, err := LoadState(dir, 2); err == nil || !strings.Contains(err.Error(), "not a valid state file") {
		t.Fatalf("corrupt file: err = %v", err)
	}
	if err := os.WriteFile(path, []byte(`{"version":99}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadState(dir, 2); !errors.Is(err, ErrStateVersion) {
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
	if err := CheckStateDir(dir); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
		t.Fatalf("left in state_dir: %v", left)
	}
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	err := CheckStateDir(filepath.Join(file, "state")) // a directory under a file can never be made
	if err == nil || !strings.HasPrefix(err.Error(), "state_dir: ") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("unwritable state_dir: %v, want one line starting with state_dir", err)
	}
}
