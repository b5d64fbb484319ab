package sim

import (
	"errors"
	"fmt"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// ErrNothingToPlot means no run had an event with a diagnosis curve.
var ErrNothingToPlot = errors.New("no diagnosis curve to plot")

// Plot draws, for every event of every run, the nodes that diagnosed it
// against the tests (intervals) they ran since it, like Figs. 10 and 11 of
// seed 002, and saves the figure to path (the extension picks the format).
func Plot(runs []Result, title, path string) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "testing intervals each node ran since the event, k (Hi-ADSD: tests)"
	p.Y.Label.Text = "fault-free nodes that diagnosed the event"
	p.X.Tick.Marker = plot.TickerFunc(plainTicks)
	p.Y.Tick.Marker = plot.TickerFunc(plainTicks)
	var lines []any
	for _, r := range runs {
		for _, ev := range r.Events {
			if len(ev.DiagnosedAfter) == 0 {
				continue
			}
			pts := make(plotter.XYs, 0, len(ev.DiagnosedAfter)+1)
			pts = append(pts, plotter.XY{X: 0, Y: 0})
			for _, kv := range ev.DiagnosedAfter {
				pts = append(pts, plotter.XY{X: float64(kv[0]), Y: float64(kv[1])})
			}
			lines = append(lines, fmt.Sprintf("%s %s: %s %d@%g", r.Algo, r.Start, ev.Kind, ev.Node, ev.Time), pts)
		}
	}
	if len(lines) == 0 {
		return ErrNothingToPlot
	}
	if err := plotutil.AddLinePoints(p, lines...); err != nil {
		return fmt.Errorf("plot lines: %w", err)
	}
	p.Legend.YOffs = vg.Points(40)
	if err := p.Save(8*vg.Inch, 5*vg.Inch, path); err != nil {
		return fmt.Errorf("save plot %s: %w", path, err)
	}
	return nil
}

// plainTicks labels the default ticks without trailing zeros (500, not 500.00).
func plainTicks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'f', -1, 64)
		}
	}
	return ticks
}
