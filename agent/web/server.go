package web

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/agent/agentx"
	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/config"
	"github.com/diagagent/diagagent/agent/snmp"
	"github.com/diagagent/diagagent/traps"
)

// shutdownGrace bounds how long requests in flight may finish when the server stops.
const shutdownGrace = 2 * time.Second

// ErrNoSource is returned by New when Options.Source is nil.
var ErrNoSource = errors.New("web: Options need a Source")

// Options are the parts a Server is built from.
type Options struct {
	// Config is the validated configuration and ID this node's id in it.
	Config config.Config
	ID     int
	// Source is the daemon's view; required.
	Source Source
	// Metrics receives the interval observations; nil makes a fresh one.
	Metrics *Metrics
	// SNMPStats and TrapStats read the responder's and the notifier's
	// counters at scrape time; nil leaves those metrics out.
	SNMPStats func() snmp.Stats
	TrapStats func() traps.Stats
	// AgentX reads the AgentX session's state (snmp.mode agentx); nil
	// leaves the diagagent_agentx_* metrics out.
	AgentX func() agentx.State
	// Log receives the HTTP server's complaints (bad requests, broken
	// connections) at warning level; nil discards them.
	Log *logrus.Entry
	// Heartbeat is how often an idle event stream sends a comment to keep
	// proxies from closing it; 0 means 15 s.
	Heartbeat time.Duration
}

// Server is one agent's read-only HTTP face: page, JSON API and /metrics.
type Server struct {
	cfg     config.Config
	id      int
	src     Source
	metrics *Metrics
	log     *logrus.Entry
	beat    time.Duration
	handler http.Handler

	mu         sync.Mutex // guards the cached encoding of the last state
	cachedSnap *board.Snapshot
	cached     []byte
}

// New builds a Server and registers its scrape-time collector on the metrics.
func New(o Options) (*Server, error) {
	if o.Source == nil {
		return nil, ErrNoSource
	}
	s := &Server{cfg: o.Config, id: o.ID, src: o.Source, metrics: o.Metrics, log: o.Log, beat: o.Heartbeat}
	if s.metrics == nil {
		s.metrics = NewMetrics()
	}
	if s.beat <= 0 {
		s.beat = 15 * time.Second
	}
	if s.log == nil {
		l := logrus.New()
		l.SetLevel(logrus.PanicLevel)
		s.log = logrus.NewEntry(l)
	}
	c := &collector{cfg: o.Config, src: o.Source, snmp: o.SNMPStats, traps: o.TrapStats, agentx: o.AgentX, d: newDescs()}
	if err := s.metrics.reg.Register(c); err != nil {
		return nil, fmt.Errorf("web: metrics: %w", err)
	}
	s.handler = s.routes()
	return s, nil
}

// Handler is the server's HTTP handler, for tests and embedding.
func (s *Server) Handler() http.Handler { return s.handler }

// Serve answers HTTP on ln until ctx ends, then lets requests in flight
// finish for a moment; event streams end with ctx.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	errLog := s.log.WriterLevel(logrus.WarnLevel)
	defer errLog.Close()
	hs := &http.Server{Handler: s.handler, ReadHeaderTimeout: 5 * time.Second, IdleTimeout: time.Minute,
		BaseContext: func(net.Listener) context.Context { return ctx }, ErrorLog: log.New(errLog, "web: ", 0)}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("web: %w", err)
	case <-ctx.Done():
	}
	drain, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err := hs.Shutdown(drain)
	<-served
	if err != nil {
		return fmt.Errorf("web: shutdown: %w", err)
	}
	return nil
}
