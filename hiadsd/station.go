package hiadsd

import "net/netip"

// Station is the network management station every node sends its
// notifications to (nmsID in the DIAGNOSIS-MIB), with the counter that orders
// changes to it. It travels as the node entries do: a change made at one node
// takes the next counter there, and every fetch carries the source's station.
type Station struct {
	Addr    netip.Addr
	Counter uint32
}

// Newer reports whether s supersedes old: the later counter wins (as
// serial numbers, Entry.Newer), and on equal counters the larger address,
// so two changes made at once at two nodes settle on the same station
// everywhere. A station with no address is never newer.
func (s Station) Newer(old Station) bool {
	if !s.Addr.IsValid() {
		return false
	}
	if s.Counter != old.Counter {
		return serialAfter(s.Counter, old.Counter)
	}
	return s.Addr.Compare(old.Addr) > 0
}

// StationChange is a change of the station a node holds.
type StationChange struct {
	Old, New Station
	From     int // the source it was learned from, or Direct for a station set at this node
}

// learnStation adopts s, heard from source j, if it is newer than the
// station held, and reports the change. A counter more than MaxLead ahead
// is refused (Report.StationRefused): a station changes once per SET of nmsID.
func (iv *interval) learnStation(s Station, j int) {
	if !s.Newer(iv.node.Station) {
		return
	}
	if iv.node.Station.Addr.IsValid() && s.Counter-iv.node.Station.Counter > MaxLead {
		iv.report.StationRefused++
		return
	}
	iv.report.Station = append(iv.report.Station, StationChange{Old: iv.node.Station, New: s, From: j})
	iv.node.Station = s
}
