package traps

import (
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/diagagent/diagagent/mib"
)

// ErrInvalidEvent is wrapped by the errors for events that cannot be encoded.
var ErrInvalidEvent = errors.New("invalid notification")

// Event is one status change, as the agent records it in diagEventTable.
type Event struct {
	// Seq is the event's diagEventSeq (1 or more), the instance of its varbinds.
	Seq uint32
	// NodeID is the MIB NodeID of the node that changed: its id in the algorithms plus one.
	NodeID int
	// Addr is the node's IPv4 address (nodeAD).
	Addr netip.Addr
	// Status is the node's new status.
	Status mib.Status
	// PrevStatus is the status the agent held before.
	PrevStatus mib.Status
	// Counter is the node's event counter after the change.
	Counter uint32
	// How is mib.SourceDirect when this agent tested the change, mib.SourceLearned otherwise.
	How mib.Source
	// DetectorID is the MIB NodeID of the node's direct tester, 0 if unknown.
	DetectorID int
	// Time is when the agent recorded the change.
	Time time.Time
}

// Validate checks that every field fits its MIB object.
func (e Event) Validate() error {
	switch {
	case e.Seq == 0:
		return fmt.Errorf("%w: Seq must be at least 1", ErrInvalidEvent)
	case e.NodeID < 1 || e.NodeID > mib.MaxNodeID:
		return fmt.Errorf("%w: NodeID %d is outside 1..%d", ErrInvalidEvent, e.NodeID, mib.MaxNodeID)
	case !e.Addr.Is4():
		return fmt.Errorf("%w: Addr %v is not an IPv4 address", ErrInvalidEvent, e.Addr)
	case !e.Status.Valid() || !e.PrevStatus.Valid():
		return fmt.Errorf("%w: Status %v or PrevStatus %v is not a DiagStatus", ErrInvalidEvent, e.Status, e.PrevStatus)
	case e.How != mib.SourceDirect && e.How != mib.SourceLearned:
		return fmt.Errorf("%w: How must be direct or learned, got %v", ErrInvalidEvent, e.How)
	case e.DetectorID < 0 || e.DetectorID > mib.MaxNodeID:
		return fmt.Errorf("%w: DetectorID %d is outside 0..%d", ErrInvalidEvent, e.DetectorID, mib.MaxNodeID)
	}
	return nil
}

// NMSChange reports that the agent adopted a new management station.
type NMSChange struct {
	// Station is the new value of nmsID (IPv4).
	Station netip.Addr
	// Counter is the new value of nmsIDCounter.
	Counter uint32
}

// Validate checks that the station is an IPv4 address.
func (c NMSChange) Validate() error {
	if !c.Station.Is4() {
		return fmt.Errorf("%w: Station %v is not an IPv4 address", ErrInvalidEvent, c.Station)
	}
	return nil
}
