package metrics

import (
	"fmt"
	"slices"
	"strings"
)

// ValueType is the kind of a family: what its TYPE line says.
type ValueType int

// The kinds of family this package writes.
const (
	CounterValue ValueType = iota + 1
	GaugeValue
	HistogramValue
)

func (t ValueType) String() string {
	switch t {
	case CounterValue:
		return "counter"
	case GaugeValue:
		return "gauge"
	case HistogramValue:
		return "histogram"
	}
	return "untyped"
}

// Labels are constant label pairs of a Desc.
type Labels map[string]string

// Desc describes a family: its name, help and the names of its variable
// labels, and its constant label pairs.
type Desc struct {
	name, help string
	labels     []string // variable label names, in the order values are given
	constant   []pair   // sorted by name
	err        error    // why the Desc is unusable (Register refuses it)
}

type pair struct{ name, value string }

// NewDesc returns the description of a family. A name or label name that
// Prometheus would refuse makes a Desc that Register refuses, as
// client_golang does.
func NewDesc(name, help string, variableLabels []string, constLabels Labels) *Desc {
	d := &Desc{name: name, help: help, labels: slices.Clone(variableLabels)}
	if !validName(name, true) {
		d.err = fmt.Errorf("metric name %q is not valid", name)
	}
	seen := map[string]bool{}
	for _, l := range variableLabels {
		if !validName(l, false) || l == "le" || seen[l] {
			d.err = fmt.Errorf("metric %s: label name %q is not valid or given twice", name, l)
		}
		seen[l] = true
	}
	for n, v := range constLabels {
		if !validName(n, false) || n == "le" || seen[n] {
			d.err = fmt.Errorf("metric %s: label name %q is not valid or given twice", name, n)
		}
		seen[n] = true
		d.constant = append(d.constant, pair{n, v})
	}
	slices.SortFunc(d.constant, func(a, b pair) int { return strings.Compare(a.name, b.name) })
	return d
}

// Name is the family's name.
func (d *Desc) Name() string { return d.name }

// Help is the family's help text.
func (d *Desc) Help() string { return d.help }

func (d *Desc) String() string {
	return fmt.Sprintf("Desc{name: %q, help: %q, labels: %q}", d.name, d.help, d.labels)
}

// validName: [a-zA-Z_:][a-zA-Z0-9_:]* for a metric, without the colons for
// a label.
func validName(s string, colon bool) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		ok := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (colon && c == ':') || (i > 0 && c >= '0' && c <= '9')
		if !ok {
			return false
		}
	}
	return !strings.HasPrefix(s, "__") || colon
}

// Metric is one series at scrape time: a Desc, its label values and its
// value (or a histogram's buckets).
type Metric struct {
	desc   *Desc
	kind   ValueType
	values []string
	value  float64
	hist   *histogramValue
}

// histogramValue is a histogram's state when it was collected: the upper
// bounds and the cumulative count at each, then the sum and the count.
type histogramValue struct {
	bounds []float64
	counts []uint64
	sum    float64
	count  uint64
}

// NewConstMetric returns a series of desc whose value is fixed.
func NewConstMetric(desc *Desc, kind ValueType, value float64, labelValues ...string) (Metric, error) {
	if desc.err != nil {
		return Metric{}, desc.err
	}
	if len(labelValues) != len(desc.labels) {
		return Metric{}, fmt.Errorf("metric %s: %d label values for %d labels", desc.name, len(labelValues), len(desc.labels))
	}
	if kind != CounterValue && kind != GaugeValue {
		return Metric{}, fmt.Errorf("metric %s: a constant metric is a counter or a gauge", desc.name)
	}
	return Metric{desc: desc, kind: kind, values: slices.Clone(labelValues), value: value}, nil
}

// MustNewConstMetric is NewConstMetric that panics on an error, which only
// a programming mistake makes.
func MustNewConstMetric(desc *Desc, kind ValueType, value float64, labelValues ...string) Metric {
	m, err := NewConstMetric(desc, kind, value, labelValues...)
	if err != nil {
		panic(err)
	}
	return m
}

// Desc is the series' description.
func (m Metric) Desc() *Desc { return m.desc }

// Value is a counter's or gauge's value, or a histogram's count.
func (m Metric) Value() float64 {
	if m.hist != nil {
		return float64(m.hist.count)
	}
	return m.value
}

// Label is the value of the series' label name ("" without it).
func (m Metric) Label(name string) string {
	for i, l := range m.desc.labels {
		if l == name {
			return m.values[i]
		}
	}
	for _, p := range m.desc.constant {
		if p.name == name {
			return p.value
		}
	}
	return ""
}

// pairs are the series' label pairs sorted by name, as the text format
// writes them.
func (m Metric) pairs() []pair {
	ps := slices.Clone(m.desc.constant)
	for i, l := range m.desc.labels {
		ps = append(ps, pair{l, m.values[i]})
	}
	slices.SortFunc(ps, func(a, b pair) int { return strings.Compare(a.name, b.name) })
	return ps
}

// Collector is what a Registry gathers: it sends the Descs of its families
// once, at registration, and its series at every scrape.
type Collector interface {
	Describe(chan<- *Desc)
	Collect(chan<- Metric)
}

// ExponentialBuckets returns count upper bounds, the first start and each
// next one factor times the one before.
func ExponentialBuckets(start, factor float64, count int) []float64 {
	if count < 1 || start <= 0 || factor <= 1 {
		panic("metrics: ExponentialBuckets needs count ≥ 1, start > 0 and factor > 1")
	}
	b := make([]float64, count)
	for i := range b {
		b[i] = start
		start *= factor
	}
	return b
}
