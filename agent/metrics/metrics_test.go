package metrics

import (
	"math"
	"net/http/httptest"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// parse reads text with Prometheus's own parser.
func parse(t *testing.T, text string) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatalf("Prometheus's parser refuses the text: %v\n%s", err, text)
	}
	return fams
}

type pairs map[string]string

func labelsOf(m *dto.Metric) pairs {
	p := pairs{}
	for _, l := range m.GetLabel() {
		p[l.GetName()] = l.GetValue()
	}
	return p
}

// TestTextReadsBackInPrometheus: every kind of series, with label values
// and help that need escaping, reads back in Prometheus's parser as it
// was set, and the registry serves it with the text format's content type.
func TestTextReadsBackInPrometheus(t *testing.T) {
	r := NewRegistry()
	c := NewCounterVec(CounterOpts{Name: "t_events_total", Help: `Events, by "kind" \ path` + "\nsecond line"}, []string{"kind", "path"})
	c.WithLabelValues(`a"b`, `c:\d`).Add(3)
	c.WithLabelValues("new\nline", "").Inc()
	g := NewGauge(GaugeOpts{Name: "t_level", Help: "A level.", ConstLabels: Labels{"site": "x"}})
	g.Set(-2.5)
	h := NewHistogram(HistogramOpts{Name: "t_seconds", Help: "Durations.", Buckets: ExponentialBuckets(0.25, 2, 3)})
	for _, v := range []float64{0.1, 0.25, 0.3, 1, 7} {
		h.Observe(v)
	}
	d := NewDesc("t_const", "A constant.", []string{"node"}, nil)
	r.MustRegister(c, g, h, constCollector{d})

	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if ct := rec.Header().Get("Content-Type"); ct != ContentType {
		t.Errorf("Content-Type %q", ct)
	}
	fams := parse(t, rec.Body.String())

	ev := fams["t_events_total"]
	if ev.GetType() != dto.MetricType_COUNTER || ev.GetHelp() != `Events, by "kind" \ path`+"\nsecond line" || len(ev.GetMetric()) != 2 {
		t.Fatalf("t_events_total read back as %v", ev)
	}
	for _, m := range ev.GetMetric() {
		l := labelsOf(m)
		switch {
		case l["kind"] == `a"b` && l["path"] == `c:\d`:
			if m.GetCounter().GetValue() != 3 {
				t.Errorf("%v = %v, want 3", l, m.GetCounter().GetValue())
			}
		case l["kind"] == "new\nline" && l["path"] == "":
			if m.GetCounter().GetValue() != 1 {
				t.Errorf("%v = %v, want 1", l, m.GetCounter().GetValue())
			}
		default:
			t.Errorf("unexpected series %v", l)
		}
	}
	lv := fams["t_level"].GetMetric()[0]
	if lv.GetGauge().GetValue() != -2.5 || labelsOf(lv)["site"] != "x" {
		t.Errorf("t_level read back as %v", lv)
	}
	hist := fams["t_seconds"].GetMetric()[0].GetHistogram()
	want := map[float64]uint64{0.25: 2, 0.5: 3, 1: 4, math.Inf(1): 5}
	for _, b := range hist.GetBucket() {
		if want[b.GetUpperBound()] != b.GetCumulativeCount() {
			t.Errorf("bucket le=%v holds %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), want[b.GetUpperBound()])
		}
	}
	if hist.GetSampleCount() != 5 || hist.GetSampleSum() != 8.65 || len(hist.GetBucket()) != 4 {
		t.Errorf("histogram read back as count %d sum %v, %d buckets", hist.GetSampleCount(), hist.GetSampleSum(), len(hist.GetBucket()))
	}
	if m := fams["t_const"].GetMetric(); len(m) != 2 || labelsOf(m[0])["node"] != "1" || labelsOf(m[1])["node"] != "2" {
		t.Errorf("t_const read back as %v", m)
	}
}

// constCollector sends two series of d at every scrape, the second first.
type constCollector struct{ d *Desc }

func (c constCollector) Describe(ch chan<- *Desc) { ch <- c.d }
func (c constCollector) Collect(ch chan<- Metric) {
	ch <- MustNewConstMetric(c.d, GaugeValue, 2, "2")
	ch <- MustNewConstMetric(c.d, GaugeValue, math.Inf(1), "1")
}

// TestTextOrder: families by name, series by label values, label pairs by
// name, le last; special values as Prometheus writes them.
func TestTextOrder(t *testing.T) {
	d := NewDesc("b_two", "Two.", []string{"z", "a"}, Labels{"m": "k"})
	h := NewHistogram(HistogramOpts{Name: "a_one", Help: "One.", Buckets: []float64{1}})
	h.Observe(math.NaN())
	var b strings.Builder
	if err := WriteText(&b, Gather(constSeries{d}, h)); err != nil {
		t.Fatal(err)
	}
	want := `# HELP a_one One.
# TYPE a_one histogram
a_one_bucket{le="1"} 0
a_one_bucket{le="+Inf"} 1
a_one_sum NaN
a_one_count 1
# HELP b_two Two.
# TYPE b_two gauge
b_two{a="1",m="k",z="x"} -Inf
b_two{a="2",m="k",z="a"} 1e+06
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

type constSeries struct{ d *Desc }

func (c constSeries) Describe(ch chan<- *Desc) { ch <- c.d }
func (c constSeries) Collect(ch chan<- Metric) {
	ch <- MustNewConstMetric(c.d, GaugeValue, 1e6, "a", "2")
	ch <- MustNewConstMetric(c.d, GaugeValue, math.Inf(-1), "x", "1")
}

// TestRegisterRefuses: a family registered twice, a bad name or label,
// and a const metric with the wrong number of values are refused.
func TestRegisterRefuses(t *testing.T) {
	r := NewRegistry()
	r.MustRegister(NewCounter(CounterOpts{Name: "x_total"}))
	for _, c := range []Collector{
		NewGauge(GaugeOpts{Name: "x_total"}),
		NewGauge(GaugeOpts{Name: "1x"}),
		NewGaugeVec(GaugeOpts{Name: "y"}, []string{"le"}),
		NewGaugeVec(GaugeOpts{Name: "y"}, []string{"a", "a"}),
		NewGaugeVec(GaugeOpts{Name: "y"}, []string{"a-b"}),
	} {
		if err := r.Register(c); err == nil {
			t.Errorf("%v registered", describe(c)[0])
		}
	}
	if _, err := NewConstMetric(NewDesc("z", "", []string{"a"}, nil), GaugeValue, 1); err == nil {
		t.Error("a const metric without its label value was made")
	}
	defer func() {
		if recover() == nil {
			t.Error("a counter went down")
		}
	}()
	NewCounter(CounterOpts{Name: "c"}).Add(-1)
}

// TestRuntimeAndProcess: the Go and process collectors send their
// families, each parsed back, with plausible values.
func TestRuntimeAndProcess(t *testing.T) {
	r := NewRegistry()
	r.MustRegister(NewGoCollector(), NewProcessCollector())
	var b strings.Builder
	if err := WriteText(&b, r.Gather()); err != nil {
		t.Fatal(err)
	}
	fams := parse(t, b.String())
	for _, n := range []string{"go_goroutines", "go_threads", "go_info", "go_memstats_heap_alloc_bytes", "go_memstats_heap_inuse_bytes",
		"go_memstats_sys_bytes", "go_memstats_next_gc_bytes", "go_gc_cycles_total",
		"process_cpu_seconds_total", "process_resident_memory_bytes", "process_virtual_memory_bytes",
		"process_start_time_seconds", "process_open_fds", "process_max_fds"} {
		f := fams[n]
		if f == nil {
			t.Errorf("%s missing", n)
			continue
		}
		m := f.GetMetric()[0]
		if v := m.GetGauge().GetValue() + m.GetCounter().GetValue(); v <= 0 && n != "go_gc_cycles_total" && n != "process_cpu_seconds_total" {
			t.Errorf("%s = %v", n, v)
		}
	}
	if rss, sys := fams["process_resident_memory_bytes"].GetMetric()[0].GetGauge().GetValue(), fams["go_memstats_sys_bytes"].GetMetric()[0].GetGauge().GetValue(); rss < 1<<20 || sys < 1<<20 {
		t.Errorf("resident %v, runtime's %v bytes: not this process", rss, sys)
	}
}
