package web

import (
	"io/fs"
	"net/http"
)

// contentPolicy lets the page load only what this server sends: nothing
// from a CDN, no inline script.
const contentPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// routes builds the mux. Every pattern is GET (which also answers HEAD), so
// the mux itself answers any other method with 405 and an Allow header.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(assets, "assets")
	mux.HandleFunc("GET /{$}", s.page)
	mux.Handle("GET /assets/", http.StripPrefix("/assets/", http.FileServerFS(static)))
	mux.HandleFunc("GET /api/v1/status", s.apiStatus)
	mux.HandleFunc("GET /api/v1/nodes", s.apiNodes)
	mux.HandleFunc("GET /api/v1/graph", s.apiGraph)
	mux.HandleFunc("GET /api/v1/events", s.apiEvents)
	mux.HandleFunc("GET /api/v1/state", s.apiState)
	mux.HandleFunc("GET /api/v1/stream", s.stream)
	mux.HandleFunc("GET /api/", s.apiNotFound)
	if s.cfg.Metrics != nil {
		mux.Handle("GET /metrics", s.cfg.Metrics)
	}
	return headers(mux)
}

// headers adds the security headers every answer carries.
func headers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		next.ServeHTTP(w, r)
	})
}

// page serves the embedded dashboard.
func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-cache")
	http.ServeFileFS(w, r, assets, "assets/index.html")
}
