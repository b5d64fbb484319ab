package probe

import (
	"context"
	"fmt"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/mib"
)

// maxFetchedEvents bounds one FetchEvents call; the caller continues from the last Seq.
const maxFetchedEvents = 4096

// eventColumns lists the readable diagEventEntry columns, in the order decodeEvent reads them.
func eventColumns() []string {
	return []string{
		mib.DiagEventNodeID, mib.DiagEventStatus, mib.DiagEventPrevStatus, mib.DiagEventCounter,
		mib.DiagEventTime, mib.DiagEventHowLearned, mib.DiagEventDetector,
	}
}

// FetchEvents reads the peer's diagEventTable rows with a sequence number
// above afterSeq, oldest first, at most 4096 per call (continue from the last
// Seq). A row of the wrong shape is an error and nothing is returned.
func (p *Prober) FetchEvents(ctx context.Context, t Target, afterSeq uint32) ([]mib.Event, error) {
	var events []mib.Event
	cols := eventColumns()
	per := func(limit int) int { return max(1, limit/len(cols)) }
	err := p.walk(ctx, t, cols, afterSeq, per,
		func(seq uint32, vbs []gosnmp.SnmpPDU) (bool, error) {
			ev, err := decodeEvent(seq, vbs)
			if err != nil {
				return true, err
			}
			events = append(events, ev)
			return len(events) >= maxFetchedEvents, nil
		})
	if err != nil {
		return nil, fmt.Errorf("fetch events after %d from %s: %w", afterSeq, t.Addr, err)
	}
	return events, nil
}

// decodeEvent reads the seven columns of one event row.
func decodeEvent(seq uint32, vbs []gosnmp.SnmpPDU) (mib.Event, error) {
	ev := mib.Event{Seq: seq}
	node, err := rangedValue(vbs[0], 1, mib.MaxNodeID)
	if err != nil {
		return ev, err
	}
	ev.NodeID = uint32(node)
	if ev.Status, err = statusValue(vbs[1]); err != nil {
		return ev, err
	}
	if ev.Prev, err = statusValue(vbs[2]); err != nil {
		return ev, err
	}
	if ev.Counter, err = unsignedValue(vbs[3]); err != nil {
		return ev, err
	}
	if ev.Time, err = dateAndTimeValue(vbs[4]); err != nil {
		return ev, err
	}
	how, err := rangedValue(vbs[5], int(mib.SourceDirect), int(mib.SourceLearned))
	if err != nil {
		return ev, err
	}
	ev.How = mib.Source(how)
	det, err := rangedValue(vbs[6], 0, mib.MaxNodeID)
	ev.Detector = uint32(det)
	return ev, err
}
