package traps

import (
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/diagagent/diagagent/hiadsd"
)

// ErrInvalidEvent is wrapped by the errors for notifications that cannot be
// encoded; an event's own errors wrap mib.ErrInvalidEvent too.
var ErrInvalidEvent = errors.New("invalid notification")

// ListMismatch reports a peer that runs another node list.
type ListMismatch struct {
	Peer     uint32     // the peer's NodeID
	PeerAddr netip.Addr // its address
	Ours     []byte     // this agent's diagNodeListHash
}

// ListChange reports a node added to or removed from the list at this agent.
type ListChange struct {
	Version uint32     // the new diagNodeListVersion
	Hash    []byte     // the new diagNodeListHash
	Node    uint32     // the NodeID added or removed
	Addr    netip.Addr // its address
	Removed bool       // destroy(6); otherwise createAndGo(4)
}

// ListConflict reports a change of the list made at this agent that lost
// to one made at once at another agent (nodelist.Lost).
type ListConflict struct {
	Version uint32 // diagNodeListVersion after the merge
	Hash    []byte // diagNodeListHash after the merge
	Node    uint32 // diagConflictNode: the NodeID the change was about, 0 for the keys
	Winner  uint32 // diagConflictWinner: the NodeID of the agent whose change won, 0 if unknown
	Reason  string // diagConflictReason, at most 255 octets
}

// KeyRefused reports an agent node whose test found it running but
// refusing every cluster key the tester holds.
type KeyRefused struct {
	Node uint32     // its NodeID
	Addr netip.Addr // its address
}

// Flapping reports a node that started (Flapping) or stopped flapping,
// with its status now.
type Flapping struct {
	Node     uint32 // its NodeID
	Addr     netip.Addr
	Flapping bool
	Status   hiadsd.Status
}

// MaintenanceEnded reports a node whose maintenance window ended with
// its status (Status) other than when the window began (Began).
type MaintenanceEnded struct {
	Node          uint32 // its NodeID
	Addr          netip.Addr
	Status, Began hiadsd.Status
}

// validStation checks that a station a notification names is an IPv4
// address, as nmsID carries it.
func validStation(s hiadsd.Station) error {
	if !s.Addr.Is4() {
		return fmt.Errorf("%w: station %v is not an IPv4 address", ErrInvalidEvent, s.Addr)
	}
	return nil
}

// Cause reports nodes lost together or coming back together
// (hiadsd.Cause): one diagCauseChange.
type Cause struct {
	Kind   int    // diagCauseKind: mib.CauseLost, CauseBackDown, CauseBackCut or CauseBackUnknown
	Group  uint32 // diagCauseGroup
	Split  uint32 // diagCauseSplit
	Nodes  []CauseNode
	Subnet string        // diagCauseSubnet, "" if the nodes have no address in common
	Lasted time.Duration // diagCauseLasted: how long a group that came back was out
}

// CauseNode is one node of a cause, with its status.
type CauseNode struct {
	ID     uint32
	Status hiadsd.Status
}
