package board

import (
	"net/netip"
	"testing"

	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// TestFetchDigest: the digest changes with every object a fetch reads (the
// station, its counter, the list's fingerprint and version, each row's
// status and counter, a row more) and with nothing else (how a row was
// learned, when it changed, the events, hiADSDisUP).
func TestFetchDigest(t *testing.T) {
	base := func() *Snapshot {
		s := &Snapshot{Up: true, Station: hiadsd.Station{Addr: netip.MustParseAddr("192.0.2.1"), Counter: 2}, NodeListHash: []byte{1, 2, 3, 4, 5, 6, 7, 8}, ListVersion: 1}
		for id := uint32(1); id <= 4; id++ {
			s.Nodes = append(s.Nodes, Row{ID: id, Status: hiadsd.FaultFree, Counter: id})
		}
		return s
	}
	want := base().FetchDigest()
	if want == 0 {
		t.Fatal("digest 0, which a tester reads as none")
	}
	changes := map[string]func(*Snapshot){
		"station":     func(s *Snapshot) { s.Station.Addr = netip.MustParseAddr("192.0.2.2") },
		"its counter": func(s *Snapshot) { s.Station.Counter++ },
		"list hash":   func(s *Snapshot) { s.NodeListHash = []byte{1, 2, 3, 4, 5, 6, 7, 9} },
		"version":     func(s *Snapshot) { s.ListVersion++ },
		"a status":    func(s *Snapshot) { s.Nodes[2].Status = hiadsd.Partial },
		"a counter":   func(s *Snapshot) { s.Nodes[3].Counter++ },
		"a row more":  func(s *Snapshot) { s.Nodes = append(s.Nodes, Row{ID: 5}) },
	}
	for name, change := range changes {
		s := base()
		change(s)
		if s.FetchDigest() == want {
			t.Errorf("%s changed, the digest did not", name)
		}
	}
	same := map[string]func(*Snapshot){
		"how learned": func(s *Snapshot) { s.Nodes[1].How = mib.SourceDirect },
		"last change": func(s *Snapshot) { s.Nodes[1].LastChange = 99 },
		"an event":    func(s *Snapshot) { s.Events = append(s.Events, mib.Event{Seq: 1}) },
		"up":          func(s *Snapshot) { s.Up = false },
	}
	for name, change := range same {
		s := base()
		change(s)
		if s.FetchDigest() != want {
			t.Errorf("%s changed the digest; a fetch does not read it", name)
		}
	}
}

// TestHoldsFaulty: only a row held faulty at that address makes a station
// there unusable.
func TestHoldsFaulty(t *testing.T) {
	row := func(a string, st hiadsd.Status) Row {
		return Row{ID: 1, Member: nodelist.Member{Addr: netip.MustParseAddr(a)}, Status: st}
	}
	s := &Snapshot{Nodes: []Row{row("127.0.0.4", hiadsd.Faulty), row("127.0.0.5", hiadsd.Partial), row("127.0.0.6", hiadsd.FaultFree)}}
	for a, want := range map[string]bool{"127.0.0.4": true, "127.0.0.5": false, "127.0.0.6": false, "127.0.0.7": false} {
		if got := s.HoldsFaulty(netip.MustParseAddr(a)); got != want {
			t.Errorf("HoldsFaulty(%s) = %v, want %v", a, got, want)
		}
	}
}
