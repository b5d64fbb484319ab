package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/diagagent/diagagent/agent/board"
)

// ErrBadQuery is the error of a request whose query parameters cannot be used.
var ErrBadQuery = errors.New("bad query")

// errNotReady is answered while the daemon has published no snapshot yet.
var errNotReady = errors.New("the diagnosis view is not published yet")

// streamEvents is how many of the newest events /api/v1/state and the stream carry.
const streamEvents = 100

// apiError is the body of every error answer of the API.
type apiError struct {
	Error string `json:"error"`
}

// writeJSON encodes v as the answer with status code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		code, b = http.StatusInternalServerError, []byte(`{"error":"cannot encode the answer"}`)
	}
	writeRaw(w, code, b)
}

// writeRaw sends an already encoded JSON answer.
func writeRaw(w http.ResponseWriter, code int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	w.Write(b)
	w.Write([]byte("\n"))
}

// snapshot returns the current view, or answers 503 and nil.
func (s *Server) snapshot(w http.ResponseWriter) *board.Snapshot {
	snap := s.src.Snapshot()
	if snap == nil {
		writeJSON(w, http.StatusServiceUnavailable, apiError{errNotReady.Error()})
	}
	return snap
}

// apiStatus answers this agent and a summary of its view.
func (s *Server) apiStatus(w http.ResponseWriter, r *http.Request) {
	if snap := s.snapshot(w); snap != nil {
		writeJSON(w, http.StatusOK, s.status(snap, s.nodes(snap)))
	}
}

// apiNodes answers every node's row.
func (s *Server) apiNodes(w http.ResponseWriter, r *http.Request) {
	if snap := s.snapshot(w); snap != nil {
		writeJSON(w, http.StatusOK, s.nodes(snap))
	}
}

// apiGraph answers who tests whom this interval.
func (s *Server) apiGraph(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, edges(s.src.Graph()))
}

// apiEvents answers /api/v1/events?after=SEQ&limit=N: the events newer than
// SEQ (default 0), oldest first, at most the N newest of them.
func (s *Server) apiEvents(w http.ResponseWriter, r *http.Request) {
	after, err := queryUint(r, "after", 0, 1<<32-1)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, apiError{err.Error()})
		return
	}
	limit, err := queryUint(r, "limit", 0, 1<<16)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, apiError{err.Error()})
		return
	}
	if snap := s.snapshot(w); snap != nil {
		writeJSON(w, http.StatusOK, events(snap.Events, uint32(after), int(limit)))
	}
}

// apiState answers everything the page shows in one document.
func (s *Server) apiState(w http.ResponseWriter, r *http.Request) {
	if snap := s.snapshot(w); snap != nil {
		writeRaw(w, http.StatusOK, s.encodedState(snap))
	}
}

// apiNotFound answers a path under /api/ that names no endpoint.
func (s *Server) apiNotFound(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusNotFound, apiError{fmt.Sprintf("no such endpoint %s; see /api/v1/status, nodes, graph, events, state, stream", r.URL.Path)})
}

// queryUint reads an optional unsigned parameter no larger than hi.
func queryUint(r *http.Request, name string, def, hi uint64) (uint64, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil || n > hi {
		return 0, fmt.Errorf("%w: %s=%q must be a whole number from 0 to %d", ErrBadQuery, name, v, hi)
	}
	return n, nil
}

// encodedState returns the JSON of the whole state for snap, encoded once
// per snapshot however many pages are open.
func (s *Server) encodedState(snap *board.Snapshot) []byte {
	s.mu.Lock()
	if s.cachedSnap == snap {
		b := s.cached
		s.mu.Unlock()
		return b
	}
	s.mu.Unlock()
	nodes := s.nodes(snap)
	st := State{Status: s.status(snap, nodes), Nodes: nodes, Graph: edges(s.src.Graph()),
		Events: events(snap.Events, 0, streamEvents)}
	b, err := json.Marshal(st)
	if err != nil {
		return []byte(`{"error":"cannot encode the state"}`)
	}
	s.mu.Lock()
	s.cachedSnap, s.cached = snap, b
	s.mu.Unlock()
	return b
}
