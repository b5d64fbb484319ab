//go:build !linux

package metrics

// NewProcessCollector returns a collector of nothing: the process_* series
// are read from Linux's /proc.
func NewProcessCollector() Collector { return noCollector{} }

type noCollector struct{}

func (noCollector) Describe(chan<- *Desc) {}
func (noCollector) Collect(chan<- Metric) {}
