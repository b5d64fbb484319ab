package web

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/mib"
)

// Node is one row of /api/v1/nodes: what this agent believes about one node.
type Node struct {
	// ID is the MIB's NodeID, the core id plus one.
	ID      uint32 `json:"id"`
	Name    string `json:"name,omitempty"`
	Address string `json:"address"`
	// Status is "fault-free", "faulty", "partial", "degraded" or "unknown"; Code is its MIB value.
	Status string `json:"status"`
	Code   int    `json:"code"`
	// Role is "testing" or "tested-only".
	Role    string `json:"role"`
	Counter uint32 `json:"counter"`
	// LastChange is when this agent last saw the status change; nil if never.
	LastChange *time.Time `json:"lastChange"`
	// How is "direct", "learned" or "none".
	How string `json:"how"`
	// Flapping is nodeFlapping: its changes are not notified one by one.
	Flapping bool `json:"flapping"`
	// MaintenanceUntil is the end of the node's open maintenance window:
	// it is tested, and not notified until then. Nil when none is open.
	MaintenanceUntil *time.Time `json:"maintenanceUntil,omitempty"`
	// CauseGroup is nodeCauseGroup: the diagCauseGroup of the nodes it was
	// notified lost with; 0 when it is out alone, or not out.
	CauseGroup uint32 `json:"causeGroup,omitempty"`
}

// Edges is /api/v1/graph: who tests whom in this agent's view this interval.
type Edges struct {
	// Nodes is the node count; Dimensions is ceil(log2 Nodes), the hypercube's.
	Nodes      int `json:"nodes"`
	Dimensions int `json:"dimensions"`
	// Tests lists, for every node that tests, the NodeIDs it tests.
	Tests []Tester `json:"tests"`
}

// Tester is one node of the testing graph with its out-edges.
type Tester struct {
	ID     uint32   `json:"id"`
	Tested []uint32 `json:"tested"`
}

// Event is one row of /api/v1/events, a status change this agent recorded.
type Event struct {
	Seq     uint32    `json:"seq"`
	Node    uint32    `json:"node"`
	Status  string    `json:"status"`
	Prev    string    `json:"prev"`
	Counter uint32    `json:"counter"`
	Time    time.Time `json:"time"`
	How     string    `json:"how"`
	// Detector is the NodeID of the direct tester, 0 if it was learned.
	Detector uint32 `json:"detector"`
	// Source is the NodeID of the agent a learned event was read from, 0 if tested.
	Source uint32 `json:"source"`
}

// Station is one notification receiver; InUse marks the one used now.
type Station struct {
	Address string `json:"address"`
	Usable  bool   `json:"usable"`
	InUse   bool   `json:"inUse"`
}

// inUse marks the first usable station as the one in use.
func inUse(in []Station) []Station {
	out := make([]Station, len(in))
	used := false
	for k, st := range in {
		out[k] = Station{Address: st.Address, Usable: st.Usable, InUse: st.Usable && !used}
		used = used || st.Usable
	}
	return out
}

// Status is /api/v1/status: this agent and a summary of its view.
type Status struct {
	Self      Node   `json:"self"`
	Algorithm string `json:"algorithm"`
	// Interval is the testing interval as a Go duration; IntervalSeconds the same in seconds.
	Interval        string    `json:"interval"`
	IntervalSeconds float64   `json:"intervalSeconds"`
	Up              bool      `json:"up"`
	Started         time.Time `json:"started"`
	Nodes           int       `json:"nodes"`
	// Counts is the number of nodes in each status.
	Counts       map[string]int `json:"counts"`
	NMS          string         `json:"nms"`
	NMSCounter   uint32         `json:"nmsCounter"`
	Stations     []Station      `json:"stations"`
	LastEventSeq uint32         `json:"lastEventSeq"`
	// ListMismatch are the NodeIDs of the peers last read with another node list.
	ListMismatch []uint32 `json:"listMismatch"`
	// Keys are the IDs of the cluster keys the agent runs, the one it sends
	// with first; KeyRefused the NodeIDs of the agents that refused every one
	// when last tested (one of the two missed a rotation).
	Keys       []string `json:"keys"`
	KeyRefused []uint32 `json:"keyRefused"`
	// Causes are the groups of two nodes or more down now together (each
	// within the grouping window of the one before), oldest first.
	Causes []Cause `json:"causes"`
}

// Cause is a group of nodes down together.
type Cause struct {
	// Nodes names them as NodeID ranges, "17-24"; Count is how many.
	Nodes string `json:"nodes"`
	Count int    `json:"count"`
	// Status is their status, "faulty/partial" when they differ.
	Status string `json:"status"`
	// Since is when the first of them changed; nil if unknown.
	Since *time.Time `json:"since"`
}

// State is /api/v1/state and each message of /api/v1/stream: all the page shows.
type State struct {
	Status Status  `json:"status"`
	Nodes  []Node  `json:"nodes"`
	Graph  Edges   `json:"graph"`
	Events []Event `json:"events"`
}

// nodes turns the snapshot's rows into API rows.
func (s *Server) nodes(snap *board.Snapshot) []Node {
	started, now := s.src.Started(), time.Now()
	out := make([]Node, len(snap.Nodes))
	for k, r := range snap.Nodes {
		out[k] = Node{ID: r.ID, Address: r.Addr.String(), Status: r.Status.String(), Code: mib.DiagStatus(r.Status),
			Role: role(r.TestedOnly), Counter: r.Counter, How: r.How.String(), Name: r.Name, Flapping: r.Flapping,
			CauseGroup: snap.Causes[r.ID]}
		if r.Maint.Active(now) {
			until := r.Maint.Until.UTC()
			out[k].MaintenanceUntil = &until
		}
		if r.LastChange != 0 {
			t := started.Add(time.Duration(r.LastChange) * 10 * time.Millisecond).UTC()
			out[k].LastChange = &t
		}
	}
	return out
}

// role names a node's part in the diagnosis.
func role(testedOnly bool) string {
	if testedOnly {
		return "tested-only"
	}
	return "testing"
}

// edges turns the daemon's testing graph (core ids) into NodeIDs.
func edges(g [][]int) Edges {
	e := Edges{Nodes: len(g), Tests: []Tester{}}
	for 1<<e.Dimensions < len(g) {
		e.Dimensions++
	}
	for i, tested := range g {
		if len(tested) == 0 {
			continue
		}
		t := Tester{ID: uint32(i + 1), Tested: make([]uint32, len(tested))}
		for k, j := range tested {
			t.Tested[k] = uint32(j + 1)
		}
		e.Tests = append(e.Tests, t)
	}
	return e
}

// events returns the rows with Seq > after, oldest first, at most limit of
// the newest ones when limit > 0.
func events(rows []mib.Event, after uint32, limit int) []Event {
	out := []Event{}
	for _, r := range rows {
		if r.Seq <= after {
			continue
		}
		out = append(out, Event{Seq: r.Seq, Node: r.NodeID, Status: r.Status.String(), Prev: r.Prev.String(),
			Counter: r.Counter, Time: r.Time, How: r.How.String(), Detector: r.Detector, Source: r.Source})
	}
	if limit > 0 && len(out) > limit {
		out = out[len(out)-limit:]
	}
	return out
}

// status summarises the snapshot and this agent's configuration.
func (s *Server) status(snap *board.Snapshot, nodes []Node) Status {
	st := Status{Algorithm: s.cfg.Algorithm, Interval: s.cfg.Interval.String(),
		IntervalSeconds: s.cfg.Interval.Seconds(), Up: snap.Up, Started: s.src.Started().UTC(),
		Nodes: len(nodes), Counts: map[string]int{}, NMSCounter: snap.Station.Counter, Stations: []Station{}}
	if s.cfg.Stations != nil {
		st.Stations = inUse(s.cfg.Stations())
	}
	for _, c := range mib.DiagStatuses() {
		st.Counts[c.String()] = 0
	}
	for _, n := range nodes {
		st.Counts[n.Status]++
	}
	for _, n := range nodes {
		if n.ID == snap.Self {
			st.Self = n
		}
	}
	if snap.Station.Addr.IsValid() {
		st.NMS = snap.Station.Addr.String()
	}
	if len(snap.Events) > 0 {
		st.LastEventSeq = snap.Events[len(snap.Events)-1].Seq
	}
	st.ListMismatch = append([]uint32{}, snap.ListMismatch...)
	st.KeyRefused = append([]uint32{}, snap.KeyRefused...)
	st.Causes = causes(snap, nodes)
	st.Keys = []string{}
	for _, k := range snap.Keys {
		id := fmt.Sprintf("%08x", k.Index)
		if k.Primary {
			st.Keys = append([]string{id}, st.Keys...)
		} else {
			st.Keys = append(st.Keys, id)
		}
	}
	return st
}

// causes groups the nodes out now as the agent notified them
// (board.Causes), in the order they changed; a node out alone is left
// out, the table shows it.
func causes(snap *board.Snapshot, nodes []Node) []Cause {
	var out []Node
	for k, n := range nodes {
		if board.Out(snap.Nodes[k].Status, n.MaintenanceUntil != nil) {
			out = append(out, n)
		}
	}
	slices.SortStableFunc(out, func(a, b Node) int { return changed(a).Compare(changed(b)) })
	causes := []Cause{}
	for _, g := range board.Causes(out, func(n Node) uint32 { return n.CauseGroup }) {
		if len(g) < 2 {
			continue
		}
		c := Cause{Count: len(g), Since: g[0].LastChange}
		ids := make([]uint32, len(g))
		statuses := []string{}
		for k, n := range g {
			ids[k] = n.ID
			if !slices.Contains(statuses, n.Status) {
				statuses = append(statuses, n.Status)
			}
		}
		slices.Sort(ids)
		slices.Sort(statuses)
		c.Nodes, c.Status = mib.NodeRanges(ids, 255), strings.Join(statuses, "/")
		causes = append(causes, c)
	}
	return causes
}

// changed is when a node last changed, the zero time if never.
func changed(n Node) time.Time {
	if n.LastChange == nil {
		return time.Time{}
	}
	return *n.LastChange
}
