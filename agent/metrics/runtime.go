package metrics

import (
	"runtime"
	rtm "runtime/metrics"
)

// goCollector sends the Go runtime's standard series under the names
// client_golang gives them, so dashboards built on those keep working.
type goCollector struct{}

// NewGoCollector returns the collector of go_goroutines, go_threads,
// go_info and the heap's go_memstats_* series.
func NewGoCollector() Collector { return goCollector{} }

var (
	descGoroutines = NewDesc("go_goroutines", "Number of goroutines that currently exist.", nil, nil)
	descThreads    = NewDesc("go_threads", "Number of OS threads created.", nil, nil)
	descGoInfo     = NewDesc("go_info", "Information about the Go environment.", nil, Labels{"version": runtime.Version()})
	descHeapAlloc  = NewDesc("go_memstats_heap_alloc_bytes", "Number of heap bytes allocated and currently in use.", nil, nil)
	descHeapInuse  = NewDesc("go_memstats_heap_inuse_bytes", "Number of heap bytes that are in use.", nil, nil)
	descSys        = NewDesc("go_memstats_sys_bytes", "Number of bytes obtained from system.", nil, nil)
	descNextGC     = NewDesc("go_memstats_next_gc_bytes", "Number of heap bytes when next garbage collection will take place.", nil, nil)
	descGCs        = NewDesc("go_gc_cycles_total", "Garbage collection cycles completed.", nil, nil)
)

// goSamples are what runtime/metrics gives for the gauges above, read
// without stopping the world (runtime.ReadMemStats would).
var goSamples = []struct {
	name string
	desc *Desc
	kind ValueType
}{
	{"/memory/classes/heap/objects:bytes", descHeapAlloc, GaugeValue},
	{"/memory/classes/total:bytes", descSys, GaugeValue},
	{"/gc/heap/goal:bytes", descNextGC, GaugeValue},
	{"/gc/cycles/total:gc-cycles", descGCs, CounterValue},
}

func (goCollector) Describe(ch chan<- *Desc) {
	for _, d := range []*Desc{descGoroutines, descThreads, descGoInfo, descHeapInuse} {
		ch <- d
	}
	for _, s := range goSamples {
		ch <- s.desc
	}
}

func (goCollector) Collect(ch chan<- Metric) {
	ch <- MustNewConstMetric(descGoroutines, GaugeValue, float64(runtime.NumGoroutine()))
	threads, _ := runtime.ThreadCreateProfile(nil)
	ch <- MustNewConstMetric(descThreads, GaugeValue, float64(threads))
	ch <- MustNewConstMetric(descGoInfo, GaugeValue, 1)
	ss := make([]rtm.Sample, len(goSamples)+1)
	for i, s := range goSamples {
		ss[i].Name = s.name
	}
	unused := len(goSamples)
	ss[unused].Name = "/memory/classes/heap/unused:bytes"
	rtm.Read(ss)
	for i, s := range goSamples {
		ch <- MustNewConstMetric(s.desc, s.kind, sampleValue(ss[i]))
	}
	// MemStats.HeapInuse: the objects (goSamples[0]) and the free part of their spans.
	ch <- MustNewConstMetric(descHeapInuse, GaugeValue, sampleValue(ss[0])+sampleValue(ss[unused]))
}

func sampleValue(s rtm.Sample) float64 {
	switch s.Value.Kind() {
	case rtm.KindUint64:
		return float64(s.Value.Uint64())
	case rtm.KindFloat64:
		return s.Value.Float64()
	}
	return 0
}
