package mib

import (
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/diagagent/diagagent/hiadsd"
)

// Event is one diagEventTable row: a status change this agent recorded.
type Event struct {
	// Seq is diagEventSeq, strictly increasing, starting at 1.
	Seq uint32
	// NodeID is diagEventNodeID.
	NodeID uint32
	// Addr is nodeAD of that node, which the notification carries beside the row.
	Addr netip.Addr
	// Status is diagEventStatus, the new status.
	Status hiadsd.Status
	// Prev is diagEventPrevStatus, the status before.
	Prev hiadsd.Status
	// Counter is diagEventCounter, the node's event counter after the change.
	Counter uint32
	// Time is diagEventTime, the wall-clock time the agent recorded the change.
	Time time.Time
	// How is diagEventHowLearned (direct or learned).
	How Source
	// Detector is diagEventDetector, the NodeID of the direct tester or 0.
	Detector uint32
	// Source is diagEventSource, the NodeID of the agent a learned event
	// was read from, 0 for a tested one.
	Source uint32 `json:",omitempty"`
}

// ErrInvalidEvent is wrapped by Event.Validate's errors.
var ErrInvalidEvent = errors.New("mib: invalid event")

// Validate checks that every field fits its MIB object, as the event table
// serves it and a notification carries it.
func (e Event) Validate() error {
	switch {
	case e.Seq == 0:
		return fmt.Errorf("%w: Seq must be at least 1", ErrInvalidEvent)
	case e.NodeID < 1 || e.NodeID > MaxNodeID:
		return fmt.Errorf("%w: NodeID %d is outside 1..%d", ErrInvalidEvent, e.NodeID, MaxNodeID)
	case !e.Addr.IsValid():
		return fmt.Errorf("%w: Addr is missing", ErrInvalidEvent)
	case !e.Status.Valid() || !e.Prev.Valid():
		return fmt.Errorf("%w: Status %v or Prev %v is not a status", ErrInvalidEvent, e.Status, e.Prev)
	case e.How != SourceDirect && e.How != SourceLearned:
		return fmt.Errorf("%w: How must be direct or learned, got %v", ErrInvalidEvent, e.How)
	case e.Detector > MaxNodeID:
		return fmt.Errorf("%w: Detector %d is outside 0..%d", ErrInvalidEvent, e.Detector, MaxNodeID)
	case e.Source > MaxNodeID:
		return fmt.Errorf("%w: Source %d is outside 0..%d", ErrInvalidEvent, e.Source, MaxNodeID)
	}
	return nil
}
