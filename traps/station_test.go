package traps

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/hiadsd"
)

// TestStations: nmsID on the configured port first, then the fall-backs; a
// station that is a node the view holds faulty is unusable, a fall-back
// given by name is always tried.
func TestStations(t *testing.T) {
	node := func(a string, st hiadsd.Status) board.Row {
		return board.Row{ID: 1, Member: nodelist.Member{Addr: netip.MustParseAddr(a)}, Status: st}
	}
	snap := &board.Snapshot{Station: hiadsd.Station{Addr: netip.MustParseAddr("127.0.0.4"), Counter: 1},
		Nodes: []board.Row{node("127.0.0.4", hiadsd.FaultFree), node("127.0.0.50", hiadsd.FaultFree)}}
	fallbacks := []string{"127.0.0.50:162", "nms-2.lan:1162"}
	want := []Destination{{"127.0.0.4:1162", true}, {"127.0.0.50:162", true}, {"nms-2.lan:1162", true}}
	if got := Stations(snap, 1162, fallbacks); !slices.Equal(got, want) {
		t.Fatalf("all fault-free: %+v, want %+v", got, want)
	}
	snap.Nodes[0].Status, snap.Nodes[1].Status = hiadsd.Faulty, hiadsd.Faulty
	want[0].Usable, want[1].Usable = false, false
	if got := Stations(snap, 1162, fallbacks); !slices.Equal(got, want) {
		t.Fatalf("station and fall-back faulty: %+v, want %+v", got, want)
	}
	if got := Stations(&board.Snapshot{}, 162, nil); len(got) != 0 {
		t.Fatalf("no station set: %+v", got)
	}
}
