package sim

import (
	"errors"
	"fmt"
	"math"
	"net/netip"
	"strconv"
	"strings"

	"github.com/diagagent/diagagent/hiadsd"
)

// ErrBadEvent means an event string or schedule is malformed.
var ErrBadEvent = errors.New("invalid event")

// Kind is what happens to a node at an event.
type Kind int

// The event kinds.
const (
	Fault        Kind = iota // the node stops answering anything
	Repair                   // the node comes back and restarts with an empty view
	PartialFault             // the node answers ping but not the diagnosis test
	StationSet               // the node's management station is set (an SNMP SET of nmsID there)
	Join                     // a new node, with the next id, is added to the list through the node (a SET there)
	Leave                    // the node is removed from the list through the lowest other testing node (a reload there)
)

// String returns the word used in -event and JSON.
func (k Kind) String() string {
	switch k {
	case Fault:
		return "fault"
	case Repair:
		return "repair"
	case StationSet:
		return "station"
	case Join:
		return "join"
	case Leave:
		return "leave"
	default:
		return "partial"
	}
}

// Status is the true status of a node after an event of kind k; a station
// change leaves it fault-free.
func (k Kind) Status() hiadsd.Status {
	switch k {
	case Fault:
		return hiadsd.Faulty
	case Repair, StationSet, Join, Leave:
		return hiadsd.FaultFree
	default:
		return hiadsd.Partial
	}
}

// Event changes the true status of one node at one time.
type Event struct {
	Kind Kind
	Node int     // 0-based id, as in the papers
	Time float64 // simulated time units
}

// Station is the station a station event sets: 192.0.2.(index+1) for the
// index-th event of the schedule, so every change names a new address.
func (e Event) Station(index int) netip.Addr {
	return netip.AddrFrom4([4]byte{192, 0, 2, byte(index + 1)})
}

// ParseEvent reads "fault 5@100", "repair 5@1100", "partial 7@300",
// "station 3@500" (the station set at node 3), "join 3@600" (a new node
// added through node 3) or "leave 9@700" (node 9 removed).
func ParseEvent(s string) (Event, error) {
	word, rest, ok := strings.Cut(strings.TrimSpace(s), " ")
	node, at, ok2 := strings.Cut(strings.TrimSpace(rest), "@")
	if !ok || !ok2 {
		return Event{}, fmt.Errorf("%q: want \"fault|repair|partial|station|join|leave NODE@TIME\": %w", s, ErrBadEvent)
	}
	var e Event
	switch word {
	case "fault":
		e.Kind = Fault
	case "repair":
		e.Kind = Repair
	case "partial":
		e.Kind = PartialFault
	case "station":
		e.Kind = StationSet
	case "join":
		e.Kind = Join
	case "leave":
		e.Kind = Leave
	default:
		return Event{}, fmt.Errorf("%q: kind %q is not fault, repair, partial, station, join or leave: %w", s, word, ErrBadEvent)
	}
	id, err := strconv.Atoi(strings.TrimSpace(node))
	if err != nil || id < 0 {
		return Event{}, fmt.Errorf("%q: node %q is not a non-negative integer: %w", s, node, ErrBadEvent)
	}
	t, err := strconv.ParseFloat(strings.TrimSpace(at), 64)
	if err != nil || t < 0 || math.IsNaN(t) || math.IsInf(t, 0) {
		return Event{}, fmt.Errorf("%q: time %q is not a finite non-negative number: %w", s, at, ErrBadEvent)
	}
	e.Node, e.Time = id, t
	return e, nil
}

// String formats e the way ParseEvent reads it.
func (e Event) String() string {
	return fmt.Sprintf("%v %d@%s", e.Kind, e.Node, strconv.FormatFloat(e.Time, 'g', -1, 64))
}
