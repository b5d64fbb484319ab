package traps

import (
	"errors"
	"fmt"
	"net/netip"
)

// ErrInvalidEvent is wrapped by the errors for notifications that cannot be
// encoded; an event's own errors wrap board.ErrInvalidEvent too.
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
