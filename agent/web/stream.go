package web

import (
	"fmt"
	"net/http"
	"time"

	"github.com/diagagent/diagagent/agent/board"
)

// minGap is the least time between two messages of one stream: a burst of
// snapshots (many events in one interval) reaches the page as one message.
const minGap = 200 * time.Millisecond

// stream answers /api/v1/stream with server-sent events: a "state" message
// (the document of /api/v1/state) at once and after every new snapshot, and
// a comment line every heartbeat so idle connections stay open.
func (s *Server) stream(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		writeJSON(w, http.StatusInternalServerError, apiError{"streaming is not supported here"})
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	fl.Flush()
	beat := time.NewTicker(s.beat)
	defer beat.Stop()
	var sent *board.Snapshot
	for {
		changed := s.src.Changed()
		if snap := s.src.Snapshot(); snap != nil && snap != sent {
			if _, err := fmt.Fprintf(w, "event: state\ndata: %s\n\n", s.encodedState(snap)); err != nil {
				return
			}
			fl.Flush()
			sent = snap
			if !pause(r) {
				return
			}
		}
		select {
		case <-r.Context().Done():
			return
		case <-changed:
		case <-beat.C:
			if _, err := fmt.Fprint(w, ": alive\n\n"); err != nil {
				return
			}
			fl.Flush()
		}
	}
}

// pause waits minGap before the next message; false means the client went away.
func pause(r *http.Request) bool {
	gap := time.NewTimer(minGap)
	defer gap.Stop()
	select {
	case <-r.Context().Done():
		return false
	case <-gap.C:
		return true
	}
}
