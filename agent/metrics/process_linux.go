package metrics

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// processCollector sends the process's standard series, read from /proc,
// under the names client_golang gives them.
type processCollector struct{ start float64 }

// NewProcessCollector returns the collector of process_cpu_seconds_total,
// process_resident_memory_bytes, process_virtual_memory_bytes,
// process_start_time_seconds, process_open_fds and process_max_fds.
func NewProcessCollector() Collector {
	c := processCollector{}
	if f, err := procStat(); err == nil && len(f) > 19 {
		ticks, _ := strconv.ParseFloat(f[19], 64)
		c.start = bootTime() + ticks/userHZ
	}
	return c
}

// userHZ is the clock tick of /proc's times (USER_HZ, 100 on every Linux
// port Go builds for).
const userHZ = 100

var (
	descCPU      = NewDesc("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", nil, nil)
	descResident = NewDesc("process_resident_memory_bytes", "Resident memory size in bytes.", nil, nil)
	descVirtual  = NewDesc("process_virtual_memory_bytes", "Virtual memory size in bytes.", nil, nil)
	descStart    = NewDesc("process_start_time_seconds", "Start time of the process since unix epoch in seconds.", nil, nil)
	descOpenFDs  = NewDesc("process_open_fds", "Number of open file descriptors.", nil, nil)
	descMaxFDs   = NewDesc("process_max_fds", "Maximum number of open file descriptors.", nil, nil)
)

func (processCollector) Describe(ch chan<- *Desc) {
	for _, d := range []*Desc{descCPU, descResident, descVirtual, descStart, descOpenFDs, descMaxFDs} {
		ch <- d
	}
}

func (c processCollector) Collect(ch chan<- Metric) {
	if f, err := procStat(); err == nil && len(f) > 21 {
		// fields after the command: 11 utime, 12 stime, 20 vsize, 21 rss (pages)
		ut, _ := strconv.ParseFloat(f[11], 64)
		st, _ := strconv.ParseFloat(f[12], 64)
		vsize, _ := strconv.ParseFloat(f[20], 64)
		rss, _ := strconv.ParseFloat(f[21], 64)
		ch <- MustNewConstMetric(descCPU, CounterValue, (ut+st)/userHZ)
		ch <- MustNewConstMetric(descVirtual, GaugeValue, vsize)
		ch <- MustNewConstMetric(descResident, GaugeValue, rss*float64(os.Getpagesize()))
	}
	if c.start > 0 {
		ch <- MustNewConstMetric(descStart, GaugeValue, c.start)
	}
	if fds, err := os.ReadDir("/proc/self/fd"); err == nil {
		ch <- MustNewConstMetric(descOpenFDs, GaugeValue, float64(len(fds)))
	}
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil {
		ch <- MustNewConstMetric(descMaxFDs, GaugeValue, float64(lim.Cur))
	}
}

// procStat returns the fields of /proc/self/stat after the command (the
// state is field 0), the command being the one field that may hold spaces.
func procStat() ([]string, error) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return nil, err
	}
	if i := bytes.LastIndexByte(b, ')'); i >= 0 {
		b = b[i+1:]
	}
	return strings.Fields(string(b)), nil
}

// bootTime is the btime line of /proc/stat: the boot, in seconds since the epoch.
func bootTime() float64 {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	for l := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "btime "); ok {
			f, _ := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return f
		}
	}
	return 0
}
