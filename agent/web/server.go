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

	"github.com/diagagent/diagagent/agent/board"
)

// shutdownGrace bounds how long requests in flight may finish when the server stops.
const shutdownGrace = 2 * time.Second

// ErrNoSource is returned by New when Config.Source is nil.
var ErrNoSource = errors.New("web: Config needs a Source")

// Config is what a Server is built from.
type Config struct {
	// Source is the daemon's view; required.
	Source Source
	// Metrics answers /metrics (the registry of every part's
	// collectors); nil serves no /metrics.
	Metrics http.Handler
	// Algorithm and Interval are shown as the agent runs them.
	Algorithm string
	Interval  time.Duration
	// Stations lists the notification receivers in order of preference;
	// nil shows none.
	Stations func() []Station
	// Log receives the HTTP server's complaints (bad requests, broken
	// connections) at warning level; nil discards them.
	Log *logrus.Entry
	// Heartbeat is how often an idle event stream sends a comment to keep
	// proxies from closing it.
	Heartbeat time.Duration
}

// Default returns the page's defaults: an idle event stream sends a
// comment every 15 s.
func Default() Config { return Config{Heartbeat: 15 * time.Second} }

// Server is one agent's read-only HTTP face: page, JSON API and /metrics.
type Server struct {
	cfg     Config
	src     Source
	log     *logrus.Entry
	beat    time.Duration
	handler http.Handler

	mu         sync.Mutex // guards the cached encoding of the last state
	cachedSnap *board.Snapshot
	cached     []byte
}

// New builds a Server.
func New(c Config) (*Server, error) {
	if c.Source == nil {
		return nil, ErrNoSource
	}
	s := &Server{cfg: c, src: c.Source, log: c.Log, beat: c.Heartbeat}
	if s.beat <= 0 {
		s.beat = Default().Heartbeat
	}
	if s.log == nil {
		l := logrus.New()
		l.SetLevel(logrus.PanicLevel)
		s.log = logrus.NewEntry(l)
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
