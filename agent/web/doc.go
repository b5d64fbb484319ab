// Package web serves an agent's status page, its JSON API and its Prometheus
// metrics over HTTP, read-only.
//
// cmd/diagagent hands the Server a Source, the daemon: its view as last
// published on the board.Board, the testing graph (the first batch of each
// node's interval machine), the station list, and Changed, a channel closed
// at the next publication; open pages hear of it through server-sent events
// and fetch nothing else. Metrics counts what Observe reports after each
// testing interval and reads the responder's and notifier's own counters
// when it is scraped.
//
//	daemon ──Changed──► Server ──/api/v1/stream (SSE)──► page (assets/)
//	  │                   ├── /api/v1/{status,nodes,graph,events,state}
//	  └──Observe──► Metrics ◄── /metrics ◄── Prometheus
//	         snmp.Stats, traps.Stats ──► (read at scrape time)
package web
