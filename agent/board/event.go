package board

import (
	"errors"
	"fmt"

	"github.com/diagagent/diagagent/mib"
)

// ErrInvalidEvent is wrapped by Event.Validate's errors.
var ErrInvalidEvent = errors.New("mib: invalid event")

// Validate checks that every field fits its MIB object, as the event table
// serves it and a notification carries it.
func (e Event) Validate() error {
	switch {
	case e.Seq == 0:
		return fmt.Errorf("%w: Seq must be at least 1", ErrInvalidEvent)
	case e.NodeID < 1 || e.NodeID > mib.MaxNodeID:
		return fmt.Errorf("%w: NodeID %d is outside 1..%d", ErrInvalidEvent, e.NodeID, mib.MaxNodeID)
	case !e.Addr.IsValid():
		return fmt.Errorf("%w: Addr is missing", ErrInvalidEvent)
	case !e.Status.Valid() || !e.Prev.Valid():
		return fmt.Errorf("%w: Status %v or Prev %v is not a status", ErrInvalidEvent, e.Status, e.Prev)
	case e.How != mib.SourceDirect && e.How != mib.SourceLearned:
		return fmt.Errorf("%w: How must be direct or learned, got %v", ErrInvalidEvent, e.How)
	case e.Detector > mib.MaxNodeID:
		return fmt.Errorf("%w: Detector %d is outside 0..%d", ErrInvalidEvent, e.Detector, mib.MaxNodeID)
	case e.Source > mib.MaxNodeID:
		return fmt.Errorf("%w: Source %d is outside 0..%d", ErrInvalidEvent, e.Source, mib.MaxNodeID)
	}
	return nil
}
