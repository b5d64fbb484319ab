// Package metricstest reads collectors in tests: a value, a count of
// series, or the text a scrape would get of some families.
package metricstest

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/diagagent/diagagent/agent/metrics"
)

// ToFloat64 is the value of the one series c collects; it panics when c
// collects none or several.
func ToFloat64(c metrics.Collector) float64 {
	var ms []metrics.Metric
	for _, f := range metrics.Gather(c) {
		ms = append(ms, f.Metrics...)
	}
	if len(ms) != 1 {
		panic(fmt.Sprintf("metricstest: %d series collected, want 1", len(ms)))
	}
	return ms[0].Value()
}

// Families are the families c collects whose names are among names (all of
// them without names).
func Families(c metrics.Collector, names ...string) []metrics.Family {
	var fs []metrics.Family
	for _, f := range metrics.Gather(c) {
		if len(names) == 0 || slices.Contains(names, f.Name) {
			fs = append(fs, f)
		}
	}
	return fs
}

// CollectAndCount is the number of series c collects in the families named.
func CollectAndCount(c metrics.Collector, names ...string) int {
	n := 0
	for _, f := range Families(c, names...) {
		n += len(f.Metrics)
	}
	return n
}

// CollectAndCompare compares the text a scrape of c would get of the
// families named with want, family by family in any order, blank lines and
// each line's leading space ignored.
func CollectAndCompare(c metrics.Collector, want io.Reader, names ...string) error {
	var got strings.Builder
	if err := metrics.WriteText(&got, Families(c, names...)); err != nil {
		return err
	}
	w, err := io.ReadAll(want)
	if err != nil {
		return err
	}
	if g, w := families(got.String()), families(string(w)); !slices.Equal(g, w) {
		return fmt.Errorf("collected:\n%s\nwant:\n%s", strings.Join(g, "\n"), strings.Join(w, "\n"))
	}
	return nil
}

// families splits exposition text into its families (each from its HELP
// line), trimmed, sorted.
func families(s string) []string {
	var fs []string
	for l := range strings.SplitSeq(s, "\n") {
		switch l = strings.TrimSpace(l); {
		case l == "":
		case strings.HasPrefix(l, "# HELP ") || len(fs) == 0:
			fs = append(fs, l)
		default:
			fs[len(fs)-1] += "\n" + l
		}
	}
	slices.Sort(fs)
	return fs
}
