package metrics

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Family is every series of one name at a scrape.
type Family struct {
	Name, Help string
	Type       ValueType
	Metrics    []Metric
}

// Registry holds the collectors a scrape reads.
type Registry struct {
	mu         sync.Mutex
	collectors []Collector
	descs      map[string]*Desc
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{descs: map[string]*Desc{}} }

// Register adds c. It refuses a collector with an unusable Desc or one
// naming a family another collector already sends, and then adds nothing.
func (r *Registry) Register(c Collector) error {
	ds := describe(c)
	r.mu.Lock()
	defer r.mu.Unlock()
	mine := map[string]bool{}
	for _, d := range ds {
		if d.err != nil {
			return d.err
		}
		if _, dup := r.descs[d.name]; dup || mine[d.name] {
			return fmt.Errorf("metric %s is registered twice", d.name)
		}
		mine[d.name] = true
	}
	for _, d := range ds {
		r.descs[d.name] = d
	}
	r.collectors = append(r.collectors, c)
	return nil
}

// MustRegister registers each collector and panics on the first refusal,
// which only a programming mistake makes.
func (r *Registry) MustRegister(cs ...Collector) {
	for _, c := range cs {
		if err := r.Register(c); err != nil {
			panic(err)
		}
	}
}

// describe returns the Descs c sends.
func describe(c Collector) []*Desc {
	ch := make(chan *Desc)
	go func() { c.Describe(ch); close(ch) }()
	var ds []*Desc
	for d := range ch {
		ds = append(ds, d)
	}
	return ds
}

// Gather collects every registered collector and returns the families
// sorted by name, each one's series sorted by their label values.
func (r *Registry) Gather() []Family {
	r.mu.Lock()
	cs := slices.Clone(r.collectors)
	r.mu.Unlock()
	return Gather(cs...)
}

// Gather collects cs into families, as a Registry does.
func Gather(cs ...Collector) []Family {
	byName := map[string]*Family{}
	for _, c := range cs {
		ch := make(chan Metric, 64)
		go func() { c.Collect(ch); close(ch) }()
		for m := range ch {
			f := byName[m.desc.name]
			if f == nil {
				f = &Family{Name: m.desc.name, Help: m.desc.help, Type: m.kind}
				byName[m.desc.name] = f
			}
			f.Metrics = append(f.Metrics, m)
		}
	}
	fams := make([]Family, 0, len(byName))
	for _, f := range byName {
		sortSeries(f.Metrics)
		fams = append(fams, *f)
	}
	slices.SortFunc(fams, func(a, b Family) int { return strings.Compare(a.Name, b.Name) })
	return fams
}

// sortSeries orders a family's series by their label pairs, each series'
// pairs made once.
func sortSeries(ms []Metric) {
	type keyed struct {
		m  Metric
		ps []pair
	}
	ks := make([]keyed, len(ms))
	for i, m := range ms {
		ks[i] = keyed{m, m.pairs()}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		for i := range min(len(a.ps), len(b.ps)) {
			if c := cmp.Or(strings.Compare(a.ps[i].name, b.ps[i].name), strings.Compare(a.ps[i].value, b.ps[i].value)); c != 0 {
				return c
			}
		}
		return cmp.Compare(len(a.ps), len(b.ps))
	})
	for i := range ks {
		ms[i] = ks[i].m
	}
}

// ContentType is what the text format is served as.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// ServeHTTP answers a scrape with every family in the text format.
func (r *Registry) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", ContentType)
	_ = WriteText(w, r.Gather()) // a scraper gone mid-answer is not ours to report
}

// WriteText writes fams in the text exposition format.
func WriteText(w io.Writer, fams []Family) error {
	b := bufio.NewWriter(w)
	for _, f := range fams {
		b.WriteString("# HELP " + f.Name + " ")
		b.WriteString(helpText.Replace(f.Help))
		b.WriteString("\n# TYPE " + f.Name + " " + f.Type.String() + "\n")
		for _, m := range f.Metrics {
			ps := m.pairs()
			if m.hist == nil {
				sample(b, f.Name, ps, "", formatFloat(m.value))
				continue
			}
			for i, c := range m.hist.counts {
				le := math.Inf(1)
				if i < len(m.hist.bounds) {
					le = m.hist.bounds[i]
				}
				sample(b, f.Name+"_bucket", ps, formatFloat(le), strconv.FormatUint(c, 10))
			}
			sample(b, f.Name+"_sum", ps, "", formatFloat(m.hist.sum))
			sample(b, f.Name+"_count", ps, "", strconv.FormatUint(m.hist.count, 10))
		}
	}
	return b.Flush()
}

// helpText escapes a HELP line's text.
var helpText = strings.NewReplacer(`\`, `\\`, "\n", `\n`)

// labelValue escapes a label value for the text format.
var labelValue = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

// sample writes one line: name{pairs,le="le"} value.
func sample(b *bufio.Writer, name string, ps []pair, le, v string) {
	b.WriteString(name)
	if len(ps) > 0 || le != "" {
		b.WriteByte('{')
		for i, p := range ps {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(p.name + `="` + labelValue.Replace(p.value) + `"`)
		}
		if le != "" {
			if len(ps) > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`le="` + le + `"`)
		}
		b.WriteByte('}')
	}
	b.WriteString(" " + v + "\n")
}

// formatFloat writes a value as Prometheus does: +Inf, -Inf, NaN, or the
// shortest decimal that reads back the same.
func formatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	case math.IsNaN(f):
		return "NaN"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
