package metrics

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// Opts name a family a Counter, Gauge or their vectors make.
type Opts struct {
	Name, Help  string
	ConstLabels Labels
}

// CounterOpts and GaugeOpts keep client_golang's names.
type (
	CounterOpts = Opts
	GaugeOpts   = Opts
)

// HistogramOpts name a histogram's family and give its upper bounds.
type HistogramOpts struct {
	Name, Help  string
	ConstLabels Labels
	Buckets     []float64
}

// Counter is a value that only grows.
type Counter interface {
	Collector
	Inc()
	Add(float64) // panics below 0: a counter never decreases
}

// Gauge is a value that moves either way.
type Gauge interface {
	Collector
	Set(float64)
	Inc()
	Dec()
	Add(float64)
	Sub(float64)
}

// Histogram counts observations into buckets.
type Histogram interface {
	Collector
	Observe(float64)
}

// value is a counter's or gauge's float, kept as its bits.
type value struct {
	desc   *Desc
	kind   ValueType
	values []string
	bits   atomic.Uint64
}

func (v *value) add(d float64) {
	for {
		old := v.bits.Load()
		if v.bits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+d)) {
			return
		}
	}
}

func (v *value) Inc()          { v.add(1) }
func (v *value) Dec()          { v.add(-1) }
func (v *value) Sub(d float64) { v.add(-d) }
func (v *value) Set(f float64) { v.bits.Store(math.Float64bits(f)) }

func (v *value) Add(d float64) {
	if v.kind == CounterValue && d < 0 {
		panic("metrics: counter " + v.desc.name + " cannot decrease")
	}
	v.add(d)
}

func (v *value) metric() Metric {
	return Metric{desc: v.desc, kind: v.kind, values: v.values, value: math.Float64frombits(v.bits.Load())}
}

func (v *value) Describe(ch chan<- *Desc) { ch <- v.desc }
func (v *value) Collect(ch chan<- Metric) { ch <- v.metric() }

// NewCounter returns a counter at 0.
func NewCounter(o CounterOpts) Counter {
	return &value{desc: NewDesc(o.Name, o.Help, nil, o.ConstLabels), kind: CounterValue}
}

// NewGauge returns a gauge at 0.
func NewGauge(o GaugeOpts) Gauge {
	return &value{desc: NewDesc(o.Name, o.Help, nil, o.ConstLabels), kind: GaugeValue}
}

// vec is a family of values, one per combination of label values.
type vec struct {
	desc *Desc
	kind ValueType
	mu   sync.Mutex
	kids map[string]*value
}

func (v *vec) with(lvs []string) *value {
	if len(lvs) != len(v.desc.labels) {
		panic(fmt.Sprintf("metrics: %s takes %d label values, not %d", v.desc.name, len(v.desc.labels), len(lvs)))
	}
	key := strings.Join(lvs, "\xff")
	v.mu.Lock()
	defer v.mu.Unlock()
	k, ok := v.kids[key]
	if !ok {
		k = &value{desc: v.desc, kind: v.kind, values: slices.Clone(lvs)}
		v.kids[key] = k
	}
	return k
}

func (v *vec) Describe(ch chan<- *Desc) { ch <- v.desc }

func (v *vec) Collect(ch chan<- Metric) {
	v.mu.Lock()
	ms := make([]Metric, 0, len(v.kids))
	for _, k := range v.kids {
		ms = append(ms, k.metric())
	}
	v.mu.Unlock()
	for _, m := range ms {
		ch <- m
	}
}

// CounterVec is a family of counters by label values.
type CounterVec struct{ vec }

// NewCounterVec returns a family of counters with the given label names.
func NewCounterVec(o CounterOpts, labelNames []string) *CounterVec {
	return &CounterVec{vec{desc: NewDesc(o.Name, o.Help, labelNames, o.ConstLabels), kind: CounterValue, kids: map[string]*value{}}}
}

// WithLabelValues returns the counter of these label values, made at 0 on
// first use (so that a series shows before its first event).
func (v *CounterVec) WithLabelValues(lvs ...string) Counter { return v.with(lvs) }

// GaugeVec is a family of gauges by label values.
type GaugeVec struct{ vec }

// NewGaugeVec returns a family of gauges with the given label names.
func NewGaugeVec(o GaugeOpts, labelNames []string) *GaugeVec {
	return &GaugeVec{vec{desc: NewDesc(o.Name, o.Help, labelNames, o.ConstLabels), kind: GaugeValue, kids: map[string]*value{}}}
}

// WithLabelValues returns the gauge of these label values, made at 0 on
// first use.
func (v *GaugeVec) WithLabelValues(lvs ...string) Gauge { return v.with(lvs) }

// histogram counts observations at or below each upper bound.
type histogram struct {
	desc   *Desc
	bounds []float64
	mu     sync.Mutex
	counts []uint64 // per bucket, not cumulative; the last is +Inf
	sum    float64
	count  uint64
}

// NewHistogram returns a histogram with o's buckets (+Inf added).
func NewHistogram(o HistogramOpts) Histogram {
	b := slices.Clone(o.Buckets)
	slices.Sort(b)
	if n := len(b); n > 0 && math.IsInf(b[n-1], 1) {
		b = b[:n-1]
	}
	return &histogram{desc: NewDesc(o.Name, o.Help, nil, o.ConstLabels), bounds: b, counts: make([]uint64, len(b)+1)}
}

func (h *histogram) Observe(f float64) {
	i := sort.SearchFloat64s(h.bounds, f) // first bound ≥ f (le is inclusive); NaN counts in +Inf only
	h.mu.Lock()
	h.counts[i]++
	h.sum += f
	h.count++
	h.mu.Unlock()
}

func (h *histogram) Describe(ch chan<- *Desc) { ch <- h.desc }

func (h *histogram) Collect(ch chan<- Metric) {
	h.mu.Lock()
	hv := &histogramValue{bounds: h.bounds, counts: make([]uint64, len(h.counts)), sum: h.sum, count: h.count}
	var cum uint64
	for i, c := range h.counts {
		cum += c
		hv.counts[i] = cum
	}
	h.mu.Unlock()
	ch <- Metric{desc: h.desc, kind: HistogramValue, hist: hv}
}
