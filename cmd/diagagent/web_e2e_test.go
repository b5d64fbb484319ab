//go:build integration && linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/keyring"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/agent/web"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/internal/netsnmptest"
	"github.com/diagagent/diagagent/mib"
)

// updateScreenshot rewrites docs/dashboard.png from TestDashboardInChromium.
var updateScreenshot = flag.Bool("update-screenshot", false, "rewrite docs/dashboard.png from the browser test")

// TestDashboardInChromium opens agent 1's page in headless Chromium over a
// cluster of 8 real agents and a printer: the page shows every node
// fault-free, and after agent 4 is silenced through diagFaultInject it shows
// node 4 partial, in the table, the graph and the events, without a reload.
// Agent 1's /metrics says the same and agent 4's counts the requests it dropped.
// A maintenance window set on agent 3 then shows as a pill on agent 1's page
// and in its metrics.
func TestDashboardInChromium(t *testing.T) {
	slot(t, false)
	chrome := chromiumPath(t)
	station := fmt.Sprintf("127.0.0.100:%d", netsnmptest.FreeUDPPort(t, "127.0.0.100"))
	netsnmptest.StartTrapd(t, station, nil, "-On")
	printerAddr := fmt.Sprintf("127.0.0.9:%d", netsnmptest.FreeUDPPort(t, "127.0.0.9"))
	netsnmptest.StartSNMPD(t, printerAddr, "printers", []string{"rocommunity printers 127.0.0.0/8"})
	c := newCluster(t, clusterSpec{algo: "vcube", agents: 8, station: station, printer: printerAddr, web: true})
	c.startAll()
	nodes, bound := 9, latencyBound("vcube", 9)
	page := c.webURL(0)
	c.waitFor("agent 1 serves its page", 10*time.Second, func() bool { return httpOK(page + "api/v1/status") })

	ctx := browser(t, chrome, 60*time.Second+3*bound)
	if err := chromedp.Do(ctx, chromedp.Navigate(page)); err != nil {
		t.Fatalf("open %s: %v", page, err)
	}
	mustEval[bool](t, ctx, `window.noReload = true`)
	everyone := fmt.Sprintf(`document.body.dataset.mode === "live" &&
		document.querySelectorAll('#nodes tbody tr[data-status="fault-free"]').length === %d &&
		document.querySelectorAll('#gnodes .n[data-status="fault-free"]').length === %d`, nodes, nodes)
	waitPage(t, ctx, "every node fault-free on the page", everyone, 2*bound)

	if out, err := c.snmp("snmpset", 3, mib.DiagFaultInject0, "i", "120"); err != nil {
		t.Fatalf("inject a fault into agent 4: %v: %s", err, out)
	}
	start := time.Now()
	waitPage(t, ctx, "node 4 partial on the page", `document.getElementById("node-4").dataset.status === "partial" &&
		document.getElementById("g-node-4").dataset.status === "partial" &&
		document.querySelector('#events li[data-node="4"]').dataset.status === "partial"`, bound)
	t.Logf("node 4 partial on agent 1's page %v after the fault (bound %v)", time.Since(start).Round(time.Millisecond), bound)
	if !mustEval[bool](t, ctx, `window.noReload === true && document.body.dataset.mode === "live"`) {
		t.Error("the page was reloaded or fell back to polling")
	}
	// Times carry the date and a zone; the event names the node it came
	// from; the page says what partial means.
	ev := mustEval[string](t, ctx, `(() => { const li = document.querySelector('#events li[data-node="4"]');
		return li.querySelector("time").textContent + " | " + li.querySelector(".why").textContent; })()`)
	if !regexp.MustCompile(`^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \S+ \| .*(seen directly by node [1-8]|learned from node [1-8]) `).MatchString(ev) {
		t.Errorf("node 4's event reads %q: want a dated, zoned time and the node it came from", ev)
	}
	if help := mustEval[string](t, ctx, `document.getElementById("status-help").textContent`); !strings.Contains(help, "answers ping but its agent does not") {
		t.Errorf("the page does not explain partial: %q", help)
	}
	if e := mustEval[string](t, ctx, `document.body.dataset.error || ""`); e != "" {
		t.Errorf("page error: %s", e)
	}
	checkScreenshot(t, ctx)
	for _, size := range [][2]int64{{1280, 900}, {390, 844}} { // a laptop, a phone
		checkNoTextOverlaps(t, ctx, size[0], size[1])
	}
	checkMetrics(t, c)

	// A maintenance window set on agent 3 reaches agent 1's page and metrics.
	if out, err := c.snmp("snmpset", 2, mib.TreeCell(mib.ColNodeMaintFor, 6), "u", "600"); err != nil {
		t.Fatalf("snmpset nodeMaintenanceFor.6 on agent 3: %v: %s", err, out)
	}
	waitPage(t, ctx, "node 6 in maintenance on agent 1's page", `document.getElementById("node-6").dataset.maintenance === "yes" &&
		document.querySelector("#node-6 .pill.maintenance") !== null && document.getElementById("node-5").dataset.maintenance === "no"`, 2*bound)
	if v := sample(scrapeAgent(t, c.webURL(0)), "diagagent_node_maintenance", "node", "6"); v != 1 {
		t.Errorf("agent 1: diagagent_node_maintenance{node=6} = %v, want 1", v)
	}
}

// checkScreenshot captures the page during the fault; -update-screenshot
// writes it to docs/dashboard.png.
func checkScreenshot(t *testing.T, ctx context.Context) {
	t.Helper()
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil || img.Bounds().Dx() < 1000 {
		t.Fatalf("screenshot is not a page-sized PNG: %v %v", err, img)
	}
	if *updateScreenshot {
		if err := os.WriteFile(filepath.Join("..", "..", "docs", "dashboard.png"), shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// overlapsJS lists the pairs of text boxes on the page that overlap: every
// run of text of every visible element (its own text nodes, laid out, cut
// to what the boxes that scroll or clip it show), each pair of two elements
// compared; a pair must share more than one pixel each way to count.
const overlapsJS = `(() => {
	const clip = (el, b) => {
		let r = {left: b.left, right: b.right, top: b.top, bottom: b.bottom};
		for (let p = el; p && p !== document.body; p = p.parentElement) {
			const s = getComputedStyle(p);
			if (s.visibility === "hidden" || s.display === "none") return null;
			if (s.overflowX !== "visible" || s.overflowY !== "visible") {
				const c = p.getBoundingClientRect();
				r = {left: Math.max(r.left, c.left), right: Math.min(r.right, c.right), top: Math.max(r.top, c.top), bottom: Math.min(r.bottom, c.bottom)};
			}
		}
		return r.right - r.left > 0 && r.bottom - r.top > 0 ? r : null;
	};
	const boxes = [];
	const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
	for (let n = walk.nextNode(); n; n = walk.nextNode()) {
		if (!n.textContent.trim()) continue;
		const r = document.createRange();
		r.selectNodeContents(n);
		for (const raw of r.getClientRects()) {
			const b = clip(n.parentElement, raw);
			if (b) boxes.push({el: n.parentElement, b, text: n.textContent.trim().slice(0, 30)});
		}
	}
	const out = [];
	for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
		const a = boxes[i], c = boxes[j];
		if (a.el === c.el) continue;
		const w = Math.min(a.b.right, c.b.right) - Math.max(a.b.left, c.b.left);
		const h = Math.min(a.b.bottom, c.b.bottom) - Math.max(a.b.top, c.b.top);
		if (w > 1 && h > 1) out.push(JSON.stringify(a.text) + " over " + JSON.stringify(c.text));
	}
	return out;
})()`

// checkNoTextOverlaps lays the page out at width x height and fails for
// any two runs of text drawn over each other.
func checkNoTextOverlaps(t *testing.T, ctx context.Context, width, height int64) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, height)); err != nil { // the rects read next force the new layout
		t.Fatalf("viewport %dx%d: %v", width, height, err)
	}
	if over := mustEval[[]string](t, ctx, overlapsJS); len(over) > 0 {
		t.Errorf("at %dx%d, text drawn over text: %s", width, height, strings.Join(over, "; "))
	}
}

// checkMetrics parses agent 1's and agent 4's /metrics during the fault.
func checkMetrics(t *testing.T, c *cluster) {
	t.Helper()
	one, four := scrapeAgent(t, c.webURL(0)), scrapeAgent(t, c.webURL(3))
	if v := sample(one, "diagagent_node_status", "node", "4"); v != 2 {
		t.Errorf("agent 1: diagagent_node_status{node=4} = %v, want 2 (partial)", v)
	}
	if v := sample(one, "diagagent_nodes", "status", "fault-free"); v != 8 {
		t.Errorf("agent 1: %v nodes fault-free, want 8", v)
	}
	if v := sample(one, "diagagent_intervals_total"); v < 1 {
		t.Errorf("agent 1: %v intervals", v)
	}
	if v := sample(one, "diagagent_snmp_responses_total"); v < 1 {
		t.Errorf("agent 1: %v SNMP responses", v)
	}
	if v := sample(four, "diagagent_snmp_dropped_total", "reason", "fault_injection"); v < 1 {
		t.Errorf("agent 4: %v requests dropped by the injected fault", v)
	}
}

// webURL is agent k's page.
func (c *cluster) webURL(k int) string { return fmt.Sprintf("http://127.0.0.%d:%d/", k+1, c.webPort) }

// httpOK reports whether a GET of url answers 200.
func httpOK(url string) bool {
	res, err := http.Get(url)
	if err != nil {
		return false
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode == http.StatusOK
}

// chromiumPath finds Debian's chromium, installing it with
// scripts/test-deps.sh when it is missing.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	out, err := exec.Command(filepath.Join("..", "..", "scripts", "test-deps.sh")).CombinedOutput()
	if err != nil {
		t.Fatalf("chromium is missing and scripts/test-deps.sh could not install it: %v\n%s", err, out)
	}
	p, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("scripts/test-deps.sh ran but chromium is still missing: %v", err)
	}
	return p
}

// browser starts headless Chromium with no network of its own and returns a
// tab's context; everything in it ends after budget.
func browser(t *testing.T, path string, budget time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	t.Cleanup(cancel)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 1000),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("hide-scrollbars", true))
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	tab, cancelTab := chromedp.NewContext(alloc)
	t.Cleanup(cancelTab)
	return tab
}

// waitPage polls a JavaScript condition in the page until it holds, at most timeout.
func waitPage(t *testing.T, ctx context.Context, what, cond string, timeout time.Duration) {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](cond, chromedp.WithPollingInterval(100*time.Millisecond),
		chromedp.WithPollingTimeout(timeout)))
	if err != nil {
		state, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.dataset.mode + " " + document.querySelector("#nodes tbody").innerText`))
		t.Fatalf("%s: not within %v: %v\npage: %s", what, timeout, err, state)
	}
}

// mustEval evaluates a JavaScript expression in the page.
func mustEval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// scrapeAgent reads an agent's /metrics with Prometheus' text parser.
func scrapeAgent(t *testing.T, page string) map[string]*dto.MetricFamily {
	t.Helper()
	res, err := http.Get(page + "metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(res.Body)
	if err != nil {
		t.Fatalf("parse %smetrics: %v", page, err)
	}
	return fams
}

// sample returns the value of the first sample of name whose labels include
// the given pairs, or -1 if there is none.
func sample(fams map[string]*dto.MetricFamily, name string, pairs ...string) float64 {
	for _, m := range fams[name].GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		match := true
		for k := 0; k+1 < len(pairs); k += 2 {
			match = match && have[pairs[k]] == pairs[k+1]
		}
		if !match {
			continue
		}
		if g := m.GetGauge(); g != nil {
			return g.GetValue()
		}
		return m.GetCounter().GetValue()
	}
	return -1
}

// bigSource is a web.Source of n nodes, all fault-free, testing as vCube does.
type bigSource struct {
	mu      sync.Mutex
	board   board.Board // wakes the page's streams
	snap    *board.Snapshot
	graph   [][]int
	started time.Time
}

func newBigSource(t *testing.T, n int) *bigSource {
	t.Helper()
	cfg := &hiadsd.Config{N: n, Algorithm: hiadsd.VCube}
	view := hiadsd.NewDense(n)
	rows := make([]board.Row, n)
	for k := range view {
		view[k] = hiadsd.Entry{Status: hiadsd.FaultFree, Counter: 1}
		rows[k] = board.Row{ID: uint32(k + 1), Member: nodelist.Member{Addr: netip.AddrFrom4([4]byte{127, 1, byte(k >> 8), byte(k)})},
			Status: hiadsd.FaultFree, Counter: 1, LastChange: 100, How: mib.SourceLearned}
	}
	b := &bigSource{started: time.Now(), graph: make([][]int, n), snap: &board.Snapshot{Nodes: rows, Up: true}}
	for k := range n {
		b.graph[k] = hiadsd.Expected(cfg, k, view, 1)
	}
	return b
}

func (b *bigSource) Snapshot() *board.Snapshot {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.snap
}

func (b *bigSource) Graph() [][]int           { return b.graph }
func (b *bigSource) Started() time.Time       { return b.started }
func (b *bigSource) Changed() <-chan struct{} { return b.board.Changed() }

// setStatus publishes a snapshot in which NodeID id has status s.
func (b *bigSource) setStatus(id int, s hiadsd.Status) { b.setStatusAt(id, s, 100) }

// setStatusAt is setStatus with the change's time, nodeLastChange.
func (b *bigSource) setStatusAt(id int, s hiadsd.Status, lastChange uint32) {
	b.mu.Lock()
	defer b.mu.Unlock()
	next := *b.snap
	next.Nodes = append([]board.Row(nil), next.Nodes...)
	next.Nodes[id-1].Status, next.Nodes[id-1].Counter = s, next.Nodes[id-1].Counter+1
	next.Nodes[id-1].LastChange = lastChange
	next.Events = append(next.Events[:len(next.Events):len(next.Events)], mib.Event{Seq: uint32(len(next.Events) + 1),
		NodeID: uint32(id), Status: s, Prev: hiadsd.FaultFree, Counter: 2, Time: time.Now(), How: mib.SourceLearned})
	b.snap = &next
	if err := b.board.Publish(&next); err != nil {
		panic(err)
	}
}

// setCauses publishes the snapshot again with the groups out (nodeCauseGroup).
func (b *bigSource) setCauses(groups map[uint32]uint32) {
	b.mu.Lock()
	defer b.mu.Unlock()
	next := *b.snap
	next.Causes = groups
	b.snap = &next
	if err := b.board.Publish(&next); err != nil {
		panic(err)
	}
}

// edgesOf counts the edges of graph g that start or end at node k.
func edgesOf(g [][]int, k int) int {
	n := len(g[k])
	for i, tested := range g {
		for _, j := range tested {
			if j == k && i != k {
				n++
			}
		}
	}
	return n
}

// TestDashboardAt1024Nodes serves the page over a 1,024-node view in
// headless Chromium: every node gets a row and a cell of the compact grid,
// only the edges of one node are drawn, and a change reaches the page live.
func TestDashboardAt1024Nodes(t *testing.T) {
	slot(t, false)
	const n = 1024
	chrome := chromiumPath(t)
	src, _, url := servePage(t, n, nil)
	ctx := browser(t, chrome, 60*time.Second)
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	waitPage(t, ctx, "1024 nodes shown", fmt.Sprintf(`document.body.dataset.mode === "live" &&
		document.querySelectorAll('#nodes tbody tr[data-status="fault-free"]').length === %d &&
		document.querySelectorAll('#gnodes .n').length === %d && document.getElementById("graph").dataset.layout === "grid"`, n, n), 20*time.Second)
	first := mustEval[string](t, ctx, `document.body.dataset.renderMs`)
	if edges, want := mustEval[int](t, ctx, `document.querySelectorAll("#edges path").length`), edgesOf(src.graph, 0); edges != want {
		t.Errorf("%d edges drawn, want only the %d to and from node 1", edges, want)
	}
	mustEval[bool](t, ctx, `window.noReload = true`)
	src.setStatus(700, hiadsd.Partial)
	waitPage(t, ctx, "node 700 partial", `window.noReload === true && document.getElementById("node-700").dataset.status === "partial" &&
		document.getElementById("g-node-700").dataset.status === "partial"`, 10*time.Second)
	t.Logf("page at %d nodes: first render %s ms, update %s ms (headless Chromium)", n, first,
		mustEval[string](t, ctx, `document.body.dataset.renderMs`))
	if e := mustEval[string](t, ctx, `document.body.dataset.error || ""`); e != "" {
		t.Errorf("page error: %s", e)
	}
}

// TestPageShowsCauses: nodes down together get one banner for the group,
// at a laptop's size and a phone's, with no text over text; a node down
// alone gets none.
func TestPageShowsCauses(t *testing.T) {
	slot(t, false)
	chrome := chromiumPath(t)
	src, _, url := servePage(t, 24, nil)
	ctx := browser(t, chrome, 60*time.Second)
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	waitPage(t, ctx, "24 nodes shown", `document.body.dataset.mode === "live" &&
		document.querySelectorAll('#nodes tbody tr[data-status="fault-free"]').length === 24`, 20*time.Second)
	for id := 17; id <= 24; id++ {
		src.setStatusAt(id, hiadsd.Faulty, 200000+uint32(id)*50) // half a second apart
	}
	src.setStatusAt(5, hiadsd.Faulty, 900000) // much later, alone
	// 17-24 as the agent notified them, one group:
	src.setCauses(map[uint32]uint32{17: 1, 18: 1, 19: 1, 20: 1, 21: 1, 22: 1, 23: 1, 24: 1})
	waitPage(t, ctx, "one banner for 17-24", `document.getElementById("node-5").dataset.status === "faulty" &&
		document.querySelectorAll("#causes .cause").length === 1 &&
		document.querySelector("#causes .cause").textContent.startsWith("nodes 17-24 faulty together (8) since ")`, 10*time.Second)
	for _, size := range [][2]int64{{1280, 900}, {390, 844}} {
		checkNoTextOverlaps(t, ctx, size[0], size[1])
	}
	for id := 17; id <= 24; id++ {
		src.setStatusAt(id, hiadsd.FaultFree, 1000000)
	}
	src.setCauses(nil)
	waitPage(t, ctx, "no banner once they are back", `document.getElementById("node-24").dataset.status === "fault-free" &&
		document.querySelectorAll("#causes .cause").length === 0`, 10*time.Second)
	if e := mustEval[string](t, ctx, `document.body.dataset.error || ""`); e != "" {
		t.Errorf("page error: %s", e)
	}
}

// servePage serves the page over a bigSource of n nodes, through wrap if it
// is not nil, and returns the source, the server and the page's URL.
func servePage(t *testing.T, n int, wrap func(http.Handler) http.Handler) (*bigSource, *web.Server, string) {
	t.Helper()
	src := newBigSource(t, n)
	src.snap.Self = 1
	srv, err := web.New(web.Config{Source: src, Algorithm: "vcube", Interval: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	h := srv.Handler()
	if wrap != nil {
		h = wrap(h)
	}
	hs := httptest.NewServer(h)
	t.Cleanup(func() { hs.CloseClientConnections(); hs.Close() }) // after the browser's cleanup
	return src, srv, hs.URL + "/"
}

// TestDashboardFallsBackToPolling breaks the event stream: the page then
// polls /api/v1/state and still follows a change without a reload.
func TestDashboardFallsBackToPolling(t *testing.T) {
	slot(t, false)
	chrome := chromiumPath(t)
	src, _, url := servePage(t, 16, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/api/v1/stream" {
				http.Error(w, "stream switched off by the test", http.StatusServiceUnavailable)
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	ctx := browser(t, chrome, 60*time.Second)
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	waitPage(t, ctx, "16 nodes shown by polling", `document.body.dataset.mode === "polling" &&
		document.querySelectorAll('#nodes tbody tr[data-status="fault-free"]').length === 16`, 10*time.Second)
	mustEval[bool](t, ctx, `window.noReload = true`)
	src.setStatus(5, hiadsd.Faulty)
	waitPage(t, ctx, "node 5 faulty", `window.noReload === true && document.body.dataset.mode === "polling" &&
		document.getElementById("node-5").dataset.status === "faulty"`, 10*time.Second)
}

// TestPageShowsAKeyRefused runs four agents with a cluster key, the second
// with a keyring of another key (as an agent that missed a rotation): it
// sends one diagNodeKeyRefused about itself and none of its verdicts about
// the others, while agent 1, its tester in cluster 1, holds it partial,
// counts it (diagagent_peers_refusing_keys) and its page, in headless
// Chromium, names it beside the key agent 1 runs.
func TestPageShowsAKeyRefused(t *testing.T) {
	slot(t, false)
	chrome := chromiumPath(t)
	station := fmt.Sprintf("127.0.0.100:%d", netsnmptest.FreeUDPPort(t, "127.0.0.100"))
	trapd := netsnmptest.StartTrapd(t, station, nil, "-On")
	c := newCluster(t, clusterSpec{algo: "vcube", agents: 4, station: station, web: true, keyring: true})
	other, err := keyring.Generate()
	if err != nil {
		t.Fatal(err)
	}
	conf, err := os.ReadFile(c.conf)
	if err != nil {
		t.Fatal(err)
	}
	own := filepath.Join(c.dir, "other.yaml")
	if err := os.WriteFile(own, bytes.Replace(conf, []byte("keyring: keyring"), []byte("keyring: other.keyring"), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.dir, "other.keyring"), []byte(other.String()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c.confOf = map[int]string{1: own}
	c.startAll()
	bound := latencyBound("vcube", 4)
	c.waitFor("agents 1, 3 and 4 hold agent 2 partial", 2*bound, func() bool { return c.everyoneSees(2, 2, 1) })
	page := c.webURL(0)
	var st web.Status
	c.waitFor("agent 1's status names agent 2 as refusing its keys", bound, func() bool {
		return getJSON(page+"api/v1/status", &st) == nil && slices.Equal(st.KeyRefused, []uint32{2}) && len(st.Keys) == 1
	})
	if v := sample(scrapeAgent(t, page), "diagagent_peers_refusing_keys"); v != 1 {
		t.Errorf("agent 1: diagagent_peers_refusing_keys = %v, want 1", v)
	}
	refused := func(l string) bool {
		return strings.HasPrefix(l, "NOTIFY ") && strings.Contains(l, mib.DiagNodeKeyRefused)
	}
	if _, err := trapd.Wait(bound, 0, refused); err != nil {
		t.Fatalf("no diagNodeKeyRefused from agent 2: %v", err)
	}
	ctx := browser(t, chrome, 30*time.Second+bound)
	if err := chromedp.Do(ctx, chromedp.Navigate(page)); err != nil {
		t.Fatalf("open %s: %v", page, err)
	}
	waitPage(t, ctx, "the page names agent 2 as refusing the key", fmt.Sprintf(
		`document.getElementById("meta").textContent.includes("cluster key %s") &&
		 document.getElementById("meta").textContent.includes("node 2 refuses every cluster key")`, st.Keys[0]), bound)
	n := 0
	for _, l := range trapd.All() {
		switch {
		case refused(l):
			n++
		case strings.Contains(l, mib.DiagNodeStatusChange) && strings.Contains(l, "[127.0.0.2]:"):
			t.Errorf("agent 2 notified a verdict about a peer that refuses its key: %s", l)
		}
	}
	if n != 1 {
		t.Errorf("%d diagNodeKeyRefused notifications, want 1", n)
	}
}

// getJSON decodes the JSON at url into v.
func getJSON(url string, v any) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}
