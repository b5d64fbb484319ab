// Package flap tells a flapping node from one that changed, as Nagios and
// Naemon have for twenty years: per node, over the last Window statuses
// the agent's view held (one sample a testing interval), the weighted
// percent state change, each change between two samples weighted from 0.8
// (the oldest) to 1.2 (the newest). A node starts flapping when it rises
// above High and stops when it falls below Low.
//
// Nagios samples a host every few minutes; an agent samples its view every
// testing interval (2 s), so 21 samples are under a minute, in which a node
// crashed and restarted twice already passes 20%. A node therefore also
// needs MinChanges changes in the window to start flapping: three times
// down and up.
//
// It is judged on the view, not on one agent's tests: under the rotating
// plan a node's tester changes every interval, so no tester sees enough
// of its history, while every agent's view holds all of it.
//
// A node may change and change back between two samples (a push brings
// a fault, the next its repair): the sample then counts the changes the
// view made since the one before (Moved), two at most, a fall and a
// rise. At N = 256 a member stopped 4.5 s of every 5 s changed 16 times
// in 160 s in the owner's view (partial at 09:29:24.9, fault-free again
// 1.6 s later, within one 2 s sample), and never flapped; at N = 64 one
// stopped 2.9 s of every 3 s was partial for 0.24 s every 12 s, none of
// it seen by a sample, and cost the station 19 notifications. At most
// two changes count per sample, so a start-up's bursts of pushes, which
// change a node many times in one interval, do not make it flap alone.
package flap

import "github.com/diagagent/diagagent/hiadsd"

// Window is how many samples are judged: Nagios's 21 checks, 20 changes.
const Window = 21

// Config holds the thresholds, in percent, and the changes a node must
// make in the window to start flapping.
type Config struct {
	High, Low  float64
	MinChanges int
}

// Default is Nagios's thresholds, high 20% and low 5%
// (high_host_flap_threshold, low_host_flap_threshold), and three times
// down and up.
func Default() Config { return Config{High: 20, Low: 5, MinChanges: 6} }

// Change is a node starting or stopping to flap.
type Change struct {
	ID       int
	Flapping bool
	Percent  float64
}

// history is one node's last samples, oldest first once full; moved[i]
// is how many times the status changed between sample i-1 and sample i
// (maxMoves at most).
type history struct {
	samples  [Window]hiadsd.Status
	moved    [Window]uint8
	n, next  int
	flapping bool
}

// Detector judges every node of a view; it is owned by one goroutine.
type Detector struct {
	cfg   Config
	nodes []history
	moved []uint8 // per node, changes since its last sample (maxMoves at most)
}

// maxMoves is the most changes one sample counts: a fall and a rise.
const maxMoves = 2

// New returns a Detector with the thresholds of cfg; the zero Config is
// Default's.
func New(cfg Config) *Detector {
	if cfg == (Config{}) {
		cfg = Default()
	}
	return &Detector{cfg: cfg}
}

// Observe takes one sample of every node's status (index = node id) and
// returns the nodes that started or stopped flapping. Unknown samples are
// kept: a node the agent knows nothing of changes nothing.
func (d *Detector) Observe(statuses []hiadsd.Status) []Change {
	for len(d.nodes) < len(statuses) {
		d.nodes = append(d.nodes, history{})
	}
	var out []Change
	for id, s := range statuses {
		h := &d.nodes[id]
		h.samples[h.next] = s
		h.moved[h.next] = 0
		if id < len(d.moved) {
			h.moved[h.next], d.moved[id] = d.moved[id], 0
		}
		h.next = (h.next + 1) % Window
		h.n = min(h.n+1, Window)
		p, changes := h.percent()
		switch {
		case !h.flapping && p > d.cfg.High && changes >= d.cfg.MinChanges:
			h.flapping = true
			out = append(out, Change{ID: id, Flapping: true, Percent: p})
		case h.flapping && p < d.cfg.Low:
			h.flapping = false
			out = append(out, Change{ID: id, Flapping: false, Percent: p})
		}
	}
	return out
}

// Moved records that node id's status changed since its last sample: the
// next sample counts the changes so recorded, up to two, even if it shows
// the status of the one before.
func (d *Detector) Moved(id int) {
	if id < 0 {
		return
	}
	for len(d.moved) <= id {
		d.moved = append(d.moved, 0)
	}
	d.moved[id] = min(d.moved[id]+1, maxMoves)
}

// Forget drops what was sampled of node id: it names another node now.
func (d *Detector) Forget(id int) {
	if id >= 0 && id < len(d.nodes) {
		d.nodes[id] = history{}
	}
	if id >= 0 && id < len(d.moved) {
		d.moved[id] = 0
	}
}

// Flapping reports whether node id flaps now.
func (d *Detector) Flapping(id int) bool { return id < len(d.nodes) && d.nodes[id].flapping }

// Percent returns node id's weighted percent state change now.
func (d *Detector) Percent(id int) float64 {
	if id >= len(d.nodes) {
		return 0
	}
	p, _ := d.nodes[id].percent()
	return p
}

// percent is Nagios's weighted percent state change over the samples held,
// and how many changes they hold: change i of the Window-1 possible (oldest
// first) weighs 0.8 + 0.4·i/(Window-2), and the sum is taken over Window-1
// changes, so a short history reads low. A sample that hid a fall and a
// rise counts both at its weight, and the sum is capped at 100%.
func (h *history) percent() (float64, int) {
	if h.n < 2 {
		return 0, 0
	}
	changes := 0
	first := (h.next - h.n + Window) % Window
	sum := 0.0
	offset := Window - h.n // a short history's changes are the newest, heaviest ones
	for i := 1; i < h.n; i++ {
		a, b := h.samples[(first+i-1)%Window], h.samples[(first+i)%Window]
		if a == hiadsd.Unknown || b == hiadsd.Unknown {
			continue
		}
		c := int(h.moved[(first+i)%Window])
		if a != b {
			c = max(c, 1)
		}
		sum += float64(c) * (0.8 + 0.4*float64(offset+i-1)/float64(Window-2))
		changes += c
	}
	return min(100*sum/float64(Window-1), 100), changes
}
