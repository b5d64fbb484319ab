package main

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/diagagent/diagagent/hiadsd/lab"
)

// plotCompare draws latency, tests and units against N, one line per
// algorithm, on log-log axes.
func plotCompare(rows []row, dir string) error {
	charts := []struct {
		what, title, y string
		value          func(row) float64
	}{
		{"latency", "worst diagnosis latency of one fault", "testing rounds", func(r row) float64 { return float64(r.Worst) }},
		{"tests", "tests per fault-free testing round", "tests", func(r row) float64 { return r.Tests }},
		{"units", "diagnostic units per fault-free testing round", "units (one node's entry)", func(r row) float64 { return r.Units }},
	}
	for _, c := range charts {
		if err := plotOne(rows, c.title, c.y, c.value, plotPath(dir, c.what)); err != nil {
			return err
		}
	}
	return nil
}

// plotOne draws one chart; values that cannot go on a log axis (0) are left out.
func plotOne(rows []row, title, ylabel string, value func(row) float64, path string) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "nodes, N"
	p.Y.Label.Text = ylabel
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	var lines []any
	for _, a := range lab.Algorithms() {
		var pts plotter.XYs
		for _, r := range rows {
			if r.Algo == a && value(r) > 0 {
				pts = append(pts, plotter.XY{X: float64(r.N), Y: value(r)})
			}
		}
		if len(pts) > 0 {
			lines = append(lines, a.String(), pts)
		}
	}
	if len(lines) == 0 {
		return fmt.Errorf("%s: %w", title, errNothingMeasured)
	}
	if err := plotutil.AddLinePoints(p, lines...); err != nil {
		return fmt.Errorf("plot %s: %w", title, err)
	}
	p.Legend.Top, p.Legend.Left = true, true
	if err := p.Save(8*vg.Inch, 5*vg.Inch, path); err != nil {
		return fmt.Errorf("save plot %s: %w", path, err)
	}
	return nil
}
