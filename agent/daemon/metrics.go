package daemon

import (
	"github.com/diagagent/diagagent/agent/metrics"
)

// Describe sends the descriptions of the daemon's metrics, the view's
// included (metrics.Collector).
func (d *Daemon) Describe(ch chan<- *metrics.Desc) {
	d.viewMet.Describe(ch)
	for _, c := range d.collectors() {
		c.Describe(ch)
	}
}

// Collect sends the view's metrics (viewmetrics) and the interval metrics
// (metrics.Collector).
func (d *Daemon) Collect(ch chan<- metrics.Metric) {
	for _, c := range d.collectors() {
		c.Collect(ch)
	}
	d.viewMet.Collect(ch)
}

// collectors are the daemon's counters, its rooms' included.
func (d *Daemon) collectors() []metrics.Collector {
	return append(append(d.met.Collectors(), d.pol.Collectors()...), append(d.members.Collectors(), d.lag.Collector())...)
}
