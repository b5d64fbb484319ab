// Package web serves an agent's status page, its JSON API and its Prometheus
// metrics over HTTP, read-only.
//
// The daemon hands the Server a Source (its view, testing graph and station
// list) and calls Changed whenever it publishes a new snapshot; open pages
// hear of it through server-sent events and fetch nothing else. Metrics
// counts what Observe reports after each testing interval and reads the
// responder's and notifier's own counters when it is scraped.
//
//	daemon ──Changed──► Server ──/api/v1/stream (SSE)──► page (assets/)
//	  │                   ├── /api/v1/{status,nodes,graph,events,state}
//	  └──Observe──► Metrics ◄── /metrics ◄── Prometheus
//	         agent.Stats, traps.Stats ──► (read at scrape time)
package web
