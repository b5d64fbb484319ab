//go:build linux

package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/diagagent/diagagent/agent/config"
	"github.com/diagagent/diagagent/agent/parts"
	"github.com/diagagent/diagagent/internal/lan"
)

// versusOptions are the settings of -mode versus.
type versusOptions struct {
	swim, out, kinds, systems  string
	duties                     string
	steady, freeze, cap, probe time.Duration
	busy, fastInterval         time.Duration
	wave                       int
	writeDoc, apart, swimKey   bool
}

// The markers in docs/versus.md between which -mode versus writes its tables.
const (
	tablesBegin = "<!-- versus tables: written by lanrun -mode versus -->"
	tablesEnd   = "<!-- end of versus tables -->"
)

// versus runs memberlist and diagagent side by side on one LAN of -nodes
// hosts, saves the result as JSON beside docs/versus.md and rewrites its
// tables and plots from every saved N.
func versus(ctx context.Context, o options, stdout, stderr io.Writer) error {
	if o.vs.swim == "" {
		return errors.New("-swim is required (go build -C cmd/swimmember -o /tmp/swimmember .)")
	}
	var losses []int
	for _, l := range strings.Split(o.losses, ",") {
		var pct int
		if _, err := fmt.Sscanf(l, "%d", &pct); err != nil {
			return fmt.Errorf("-loss %q: want whole percentages such as 1,5: %w", o.losses, err)
		}
		losses = append(losses, pct)
	}
	dir := o.dir
	if dir == "" {
		d, err := os.MkdirTemp("", "lanrun-versus-")
		if err != nil {
			return err
		}
		dir = d
	}
	var kinds []string
	if o.vs.kinds != "" {
		kinds = strings.Split(o.vs.kinds, ",")
	}
	duties, err := parseDuties(o.vs.duties)
	if err != nil {
		return err
	}
	spec := lan.VersusSpec{N: o.nodes, Dir: filepath.Join(dir, fmt.Sprintf("versus-%d", o.nodes)), DiagBin: o.bin,
		SwimBin: o.vs.swim, Algorithm: strings.Split(o.algos, ",")[0],
		Steady: o.vs.steady, Freeze: o.vs.freeze, Cap: o.vs.cap, Soak: o.soakFor, Losses: losses, Busy: o.vs.busy,
		Duties: duties,
		Kinds:  kinds, Startup: cmp.Or(o.startup, 3*time.Minute), Apart: o.vs.apart,
	}
	for _, sys := range strings.Split(o.vs.systems, ",") {
		switch sys {
		case "memberlist":
			spec.SwimProbe, spec.SwimWave, spec.SwimKey = o.vs.probe, o.vs.wave, o.vs.swimKey
		case "fast":
			label := "diagagent 1 s"
			if o.vs.fastInterval != time.Second {
				label = fmt.Sprintf("diagagent %v", o.vs.fastInterval)
			}
			spec.Settings = append(spec.Settings, lan.Setting{Label: label, Interval: o.vs.fastInterval, Timeout: o.timeout,
				Retries: o.retries, PingTimeout: o.pingTimeout, PingCount: o.pingCount, Plan: config.PlanFull})
		case "defaults", "keyring":
			t := config.Default(parts.Defaults()).Test
			spec.Settings = append(spec.Settings, lan.Setting{Label: "diagagent " + sys, Interval: config.Default(parts.Defaults()).Interval,
				Timeout: t.Timeout, Retries: t.Retries, PingTimeout: t.PingTimeout, PingCount: t.PingCount, Plan: t.Plan,
				Keyring: sys == "keyring"})
		default:
			return fmt.Errorf("-versus.systems %q: want a comma-separated subset of memberlist,fast,defaults,keyring", o.vs.systems)
		}
	}
	if err := os.MkdirAll(spec.Dir, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "lanrun: versus N=%d; logs in %s\n", spec.N, spec.Dir)
	stopWatch := context.AfterFunc(ctx, func() {
		fmt.Fprintln(stderr, "lanrun: interrupted; sweeping the LAN")
		_ = lan.SweepOwn()
		os.Exit(130)
	})
	defer stopWatch()
	r, err := lan.Versus(spec, stderr)
	fmt.Fprint(stdout, lan.VersusTables(r))
	if err != nil {
		return err
	}
	if o.vs.out == "" {
		return nil
	}
	return saveVersus(o.vs.out, r, o.vs.writeDoc)
}

// versusData is where the runs are saved under out: beside the other
// measurements' data, out of the manuals.
func versusData(out string) string { return filepath.Join(out, "data", "versus") }

// saveVersus writes r as <out>/data/versus/n<N>.json and, with doc, rewrites
// the tables of <out>/versus.md and its two plots from every saved run.
func saveVersus(out string, r lan.VersusResult, doc bool) error {
	data := versusData(out)
	if err := os.MkdirAll(data, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(data, fmt.Sprintf("n%d.json", r.N)), append(b, '\n'), 0o644); err != nil {
		return err
	}
	if !doc {
		return nil
	}
	return versusDoc(out)
}

// versusDoc rewrites the tables of <out>/versus.md and its two plots from
// every run saved in <out>/data/versus (-mode versus-doc, or -versus.doc).
func versusDoc(out string) error {
	runs, err := loadVersus(versusData(out))
	if err != nil {
		return err
	}
	if len(runs) == 0 {
		return fmt.Errorf("no saved runs in %s", versusData(out))
	}
	if err := writeTables(filepath.Join(out, "versus.md"), runs); err != nil {
		return err
	}
	return plotVersus(runs, out)
}

// loadVersus reads every saved run, smallest N first.
func loadVersus(dir string) ([]lan.VersusResult, error) {
	files, err := filepath.Glob(filepath.Join(dir, "n*.json"))
	if err != nil {
		return nil, err
	}
	var runs []lan.VersusResult
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var r lan.VersusResult
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		runs = append(runs, r)
	}
	sort.Slice(runs, func(a, b int) bool { return runs[a].N < runs[b].N })
	return runs, nil
}

// writeTables replaces what lies between the markers of doc with each run's
// tables.
func writeTables(doc string, runs []lan.VersusResult) error {
	old, err := os.ReadFile(doc)
	if err != nil {
		return err
	}
	i, j := bytes.Index(old, []byte(tablesBegin)), bytes.Index(old, []byte(tablesEnd))
	if i < 0 || j < i {
		return fmt.Errorf("%s: no %q ... %q markers", doc, tablesBegin, tablesEnd)
	}
	var b bytes.Buffer
	b.Write(old[:i+len(tablesBegin)])
	b.WriteString("\n\n")
	for _, r := range runs {
		b.WriteString(lan.VersusTables(r))
		b.WriteString("\n")
	}
	b.Write(old[j:])
	return os.WriteFile(doc, b.Bytes(), 0o644)
}

// plotVersus draws versus-latency.png (crash until every member knows,
// per system, against N) and versus-bytes.png (bytes a member sends per
// second against N).
func plotVersus(runs []lan.VersusResult, dir string) error {
	latency := func(r lan.VersusResult, sys int) (float64, bool) {
		for _, e := range r.Events {
			if e.Event == "crash" {
				k := e.Per[sys]
				return k.Last.Seconds(), k.Knew == k.Of && k.Of > 0
			}
		}
		return 0, false
	}
	bytesPer := func(r lan.VersusResult, sys int) (float64, bool) {
		return r.Steady[sys].BytesPerSec, r.Steady[sys].BytesPerSec > 0
	}
	if err := plotSystems(runs, "crash: time until every live member knows", "seconds", latency,
		filepath.Join(dir, "versus-latency.png")); err != nil {
		return err
	}
	return plotSystems(runs, "steady state: bytes a member sends per second", "bytes/s", bytesPer,
		filepath.Join(dir, "versus-bytes.png"))
}

// plotSystems draws one line per system over N, on log axes.
func plotSystems(runs []lan.VersusResult, title, ylabel string, value func(lan.VersusResult, int) (float64, bool), path string) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "members, N"
	p.Y.Label.Text = ylabel
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	var systems []string
	for _, r := range runs {
		for _, s := range r.Systems {
			if !slices.Contains(systems, s) {
				systems = append(systems, s)
			}
		}
	}
	var lines []any
	for _, s := range systems {
		var pts plotter.XYs
		for _, r := range runs {
			for i, rs := range r.Systems {
				if y, ok := value(r, i); rs == s && ok && y > 0 {
					pts = append(pts, plotter.XY{X: float64(r.N), Y: y})
				}
			}
		}
		if len(pts) > 0 {
			lines = append(lines, s, pts)
		}
	}
	if len(lines) == 0 {
		return fmt.Errorf("%s: nothing measured", title)
	}
	if err := plotutil.AddLinePoints(p, lines...); err != nil {
		return fmt.Errorf("plot %s: %w", title, err)
	}
	var ticks []plot.Tick
	for _, r := range runs {
		ticks = append(ticks, plot.Tick{Value: float64(r.N), Label: fmt.Sprint(r.N)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = p.X.Min/1.5, p.X.Max*1.5
	p.Y.Max *= 4 // room for the legend above the lines
	p.Legend.Top, p.Legend.Left = true, true
	return p.Save(8*vg.Inch, 5*vg.Inch, path)
}

// parseDuties reads -versus.duties: stop/period pairs such as 1.9s/2s,
// separated by commas, each stop shorter than its period.
func parseDuties(s string) ([]lan.Duty, error) {
	var out []lan.Duty
	for _, pair := range strings.Split(s, ",") {
		stop, period, ok := strings.Cut(pair, "/")
		st, err1 := time.ParseDuration(stop)
		pd, err2 := time.ParseDuration(period)
		if !ok || err1 != nil || err2 != nil || st <= 0 || st >= pd {
			return nil, fmt.Errorf("-versus.duties %q: want stop/period pairs such as 1.9s/2s, each stop shorter than its period", s)
		}
		out = append(out, lan.Duty{Stop: st, Period: pd})
	}
	return out, nil
}
