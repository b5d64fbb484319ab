package lan

import (
	"encoding/json"
	"time"
)

// Event is one "node status changed" line of an agent's JSON log, stamped
// with the moment the harness read it (logrus' JSON time has only seconds).
type Event struct {
	At   time.Time
	Self int    // NodeID (1-based) of the agent that logged it
	Node int    // NodeID the line is about
	Old  string // fault-free, faulty, partial or unknown
	New  string
	How  string // direct or learned
	Seq  int    // the event's row in the agent's event table
}

// logLine is the part of a diagagent JSON log line Event needs.
type logLine struct {
	Msg  string `json:"msg"`
	Self int    `json:"self"`
	Node int    `json:"node"`
	Old  string `json:"old"`
	New  string `json:"new"`
	How  string `json:"how"`
	Seq  int    `json:"seq"`
}

// ParseEvent reads a log line; ok is false for anything but a status change.
func ParseEvent(line string, at time.Time) (ev Event, ok bool) {
	var l logLine
	if err := json.Unmarshal([]byte(line), &l); err != nil || l.Msg != "node status changed" || l.Node == 0 {
		return Event{}, false
	}
	return Event{At: at, Self: l.Self, Node: l.Node, Old: l.Old, New: l.New, How: l.How, Seq: l.Seq}, true
}
