// The dashboard: renders /api/v1/state and keeps it current from the
// server-sent events of /api/v1/stream, polling when streaming fails.
"use strict";
(function () {
  const SVGNS = "http://www.w3.org/2000/svg";
  const CIRCLE_MAX = 128; // above this many nodes: a grid, edges of one node only
  const POLL_MS = 2000;
  const W = 640, H = 400;
  const STATUSES = ["fault-free", "degraded", "partial", "faulty", "unknown"];
  const $ = (id) => document.getElementById(id);
  const ui = { n: -1, mode: "", rows: [], keys: [], gnodes: [], pos: [], radius: 0, selected: 0, state: null };

  function html(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function svg(tag, attrs) {
    const e = document.createElementNS(SVGNS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }

  // stamp shows a time as the date, the time of day and the browser's
  // time zone, so a time read off the page is never ambiguous.
  const ZONE = new Intl.DateTimeFormat([], { timeZoneName: "short" });
  function stamp(iso) {
    if (!iso) return "never";
    const d = new Date(iso), p = (n) => String(n).padStart(2, "0");
    const zone = ZONE.formatToParts(d).find((x) => x.type === "timeZoneName");
    return d.getFullYear() + "-" + p(d.getMonth() + 1) + "-" + p(d.getDate()) + " " +
      p(d.getHours()) + ":" + p(d.getMinutes()) + ":" + p(d.getSeconds()) + (zone ? " " + zone.value : "");
  }

  function label(n) {
    return n.name ? "node " + n.id + " (" + n.name + ")" : "node " + n.id;
  }

  // Header, counts and station.
  function renderStatus(st) {
    const self = st.self;
    $("self-name").textContent = "· " + label(self) + " · " + self.address;
    $("meta").textContent = st.algorithm + " · interval " + st.interval + " · " + st.nodes +
      " nodes · started " + stamp(st.started) + " · last event #" + st.lastEventSeq +
      (st.listMismatch && st.listMismatch.length ? " · another node list at node " + st.listMismatch.join(", ") +
        " (not used as a source)" : "") +
      (st.keys && st.keys.length ? " · cluster key " + st.keys[0] +
        (st.keys.length > 1 ? " (+" + (st.keys.length - 1) + " accepted)" : "") : "") +
      (st.keyRefused && st.keyRefused.length ? " · node " + st.keyRefused.join(", ") +
        " refuses every cluster key held here (a rotation was missed)" : "");
    const up = $("up");
    up.dataset.up = st.up ? "yes" : "no";
    up.textContent = st.up ? "diagnosis loop up" : "diagnosis loop stalled";
    for (const s of STATUSES) $("count-" + s).textContent = st.counts[s] || 0;
    const inUse = st.stations.find((s) => s.inUse);
    const station = $("station");
    station.textContent = inUse ? inUse.address : st.stations.length ? "none usable" : "none set";
    station.title = st.stations.map((s) => s.address + (s.usable ? "" : " (faulty)")).join(", ") +
      " · nmsID counter " + st.nmsCounter;
  }

  // One banner per group of nodes down together (a switch, an uplink, a
  // circuit): the table still lists each node.
  function renderCauses(causes) {
    const box = $("causes");
    const key = JSON.stringify(causes || []);
    if (box.dataset.key === key) return;
    box.dataset.key = key;
    box.textContent = "";
    for (const c of causes || []) {
      const div = html("div", "cause", "nodes " + c.nodes + " " + c.status + " together (" + c.count + ")" +
        (c.since ? " since " + stamp(c.since) : ""));
      div.dataset.status = c.status;
      div.setAttribute("role", "alert");
      box.appendChild(div);
    }
  }

  // Node table: rows are built once per node count, then only changed cells are written.
  function renderNodes(nodes, selfID) {
    const body = document.querySelector("#nodes tbody");
    if (ui.rows.length !== nodes.length) {
      body.textContent = "";
      ui.rows = nodes.map((n) => {
        const tr = html("tr");
        tr.id = "node-" + n.id;
        for (let k = 0; k < 8; k++) tr.appendChild(html("td"));
        body.appendChild(tr);
        return tr;
      });
      ui.keys = [];
    }
    nodes.forEach((n, k) => {
      const key = [n.status, n.role, n.lastChange, n.how, n.counter, n.name, n.address, n.flapping, n.maintenanceUntil].join("|");
      if (ui.keys[k] === key) return;
      ui.keys[k] = key;
      const tr = ui.rows[k], c = tr.children;
      tr.dataset.status = n.status;
      tr.classList.toggle("self", n.id === selfID);
      c[0].textContent = n.id;
      c[1].textContent = n.name || "";
      c[2].textContent = n.address;
      c[3].textContent = "";
      c[3].appendChild(html("span", "pill " + n.status, n.status));
      tr.dataset.flapping = n.flapping ? "yes" : "no";
      if (n.flapping) c[3].appendChild(html("span", "pill flapping", "flapping"));
      tr.dataset.maintenance = n.maintenanceUntil ? "yes" : "no";
      if (n.maintenanceUntil) {
        const pill = html("span", "pill maintenance", "maintenance");
        pill.title = "until " + n.maintenanceUntil + ": tested, not notified";
        c[3].appendChild(pill);
      }
      c[4].textContent = n.role;
      c[5].textContent = stamp(n.lastChange);
      c[5].title = n.lastChange || "";
      c[6].textContent = n.how;
      c[7].textContent = n.counter;
    });
    applyFilter();
  }

  function applyFilter() {
    const q = $("filter").value.trim().toLowerCase();
    for (const tr of ui.rows) tr.classList.toggle("hidden", q !== "" && !tr.textContent.toLowerCase().includes(q));
  }

  // Graph layout: nodes on a circle up to CIRCLE_MAX, else a compact grid.
  function layout(n) {
    ui.mode = n <= CIRCLE_MAX ? "circle" : "grid";
    ui.pos = [];
    if (ui.mode === "circle") {
      const R = Math.min(W, H) / 2 - 26;
      ui.radius = Math.max(5, Math.min(15, (Math.PI * R) / n / 1.3));
      for (let k = 0; k < n; k++) {
        const a = -Math.PI / 2 + (2 * Math.PI * k) / n;
        ui.pos.push([W / 2 + R * Math.cos(a), H / 2 + R * Math.sin(a)]);
      }
      return;
    }
    const cols = Math.ceil(Math.sqrt((n * W) / H)), rows = Math.ceil(n / cols);
    const cell = Math.min(W / cols, H / rows);
    ui.radius = cell * 0.4;
    for (let k = 0; k < n; k++) {
      ui.pos.push([(k % cols) * cell + cell / 2, Math.floor(k / cols) * cell + cell / 2]);
    }
  }

  function buildGraph(nodes, selfID) {
    const g = $("graph");
    g.textContent = "";
    g.setAttribute("viewBox", "0 0 " + W + " " + H);
    layout(nodes.length);
    const defs = svg("defs", {});
    for (const id of ["arrow", "arrow-hot"]) {
      const m = svg("marker", { id: id, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" });
      m.appendChild(svg("path", { d: "M0,0 L10,5 L0,10 z" }));
      defs.appendChild(m);
    }
    g.appendChild(defs);
    g.appendChild(svg("g", { id: "edges" }));
    const layer = svg("g", { id: "gnodes" });
    const r = ui.radius;
    ui.gnodes = nodes.map((n, k) => {
      const [x, y] = ui.pos[k];
      const grp = svg("g", { class: "n", id: "g-node-" + n.id });
      grp.appendChild(n.role === "tested-only"
        ? svg("rect", { x: x - r, y: y - r, width: 2 * r, height: 2 * r, rx: 2 })
        : svg("circle", { cx: x, cy: y, r: r }));
      if (r >= 8) grp.appendChild(svg("text", { x: x, y: y })).textContent = n.id;
      const t = svg("title", {});
      grp.appendChild(t);
      grp.classList.toggle("self", n.id === selfID);
      grp.addEventListener("click", () => select(n.id));
      layer.appendChild(grp);
      return grp;
    });
    g.appendChild(layer);
    ui.n = nodes.length;
    g.dataset.layout = ui.mode;
  }

  function select(id) {
    ui.selected = ui.selected === id ? 0 : id;
    if (ui.state) renderGraph(ui.state);
  }

  function renderGraph(st) {
    const nodes = st.nodes, selfID = st.status.self.id;
    if (ui.n !== nodes.length) buildGraph(nodes, selfID);
    nodes.forEach((n, k) => {
      const grp = ui.gnodes[k];
      grp.dataset.status = n.status;
      grp.classList.toggle("selected", n.id === ui.selected);
      grp.lastChild.textContent = label(n) + " · " + n.address + " · " + n.status + " · " + n.role;
    });
    const focus = ui.selected || (ui.mode === "grid" ? selfID : 0);
    const layer = $("edges");
    layer.textContent = "";
    let count = 0;
    for (const t of st.graph.tests) {
      for (const j of t.tested) {
        count++;
        const hot = focus !== 0 && (t.id === focus || j === focus);
        if (ui.mode === "grid" && !hot) continue;
        layer.appendChild(edge(t.id - 1, j - 1, hot));
      }
    }
    let note = st.status.algorithm + (st.status.algorithm === "vcube" ? " hypercube, dimension " + st.graph.dimensions : "") +
      " · " + count + " tests this interval";
    if (ui.mode === "grid") note += " · edges of node " + focus + " (click a node)";
    $("graph-note").textContent = note;
  }

  // edge draws an arrow from tester a to tested b, bent a little to its right
  // so that a pair of nodes testing each other shows two arrows.
  function edge(a, b, hot) {
    const [x1, y1] = ui.pos[a], [x2, y2] = ui.pos[b];
    const dx = x2 - x1, dy = y2 - y1, r = ui.radius + 2;
    const bend = ui.mode === "circle" ? 0.12 : 0.04;
    const cx = (x1 + x2) / 2 - dy * bend, cy = (y1 + y2) / 2 + dx * bend;
    const s = unit(cx - x1, cy - y1), e = unit(x2 - cx, y2 - cy);
    const p = svg("path", { d: "M" + (x1 + s[0] * r) + "," + (y1 + s[1] * r) + " Q" + cx + "," + cy + " " +
      (x2 - e[0] * r) + "," + (y2 - e[1] * r), "marker-end": hot ? "url(#arrow-hot)" : "url(#arrow)" });
    if (hot) p.classList.add("hot");
    return p;
  }

  function unit(x, y) {
    const l = Math.hypot(x, y) || 1;
    return [x / l, y / l];
  }

  function renderEvents(events, nodes) {
    const list = $("events");
    list.textContent = "";
    for (let k = events.length - 1; k >= 0 && k >= events.length - 60; k--) {
      const e = events[k], n = nodes[e.node - 1] || { id: e.node };
      const li = html("li");
      li.dataset.seq = e.seq;
      li.dataset.node = e.node;
      li.dataset.status = e.status;
      li.appendChild(html("time", "", stamp(e.time))).title = e.time;
      const what = html("span", "what", label(n) + " ");
      what.appendChild(html("span", "pill " + e.status, e.status));
      li.appendChild(what);
      const why = e.detector ? "seen directly by node " + e.detector :
        e.source ? "learned from node " + e.source : "learned from another node";
      li.appendChild(html("span", "why", "#" + e.seq + " · was " + e.prev + " · " + why + " · counter " + e.counter));
      list.appendChild(li);
    }
  }

  function render(st) {
    const began = performance.now();
    ui.state = st;
    renderStatus(st.status);
    renderCauses(st.status.causes);
    renderNodes(st.nodes, st.status.self.id);
    renderGraph(st);
    renderEvents(st.events, st.nodes);
    document.body.dataset.state = "ready";
    document.body.dataset.renderMs = (performance.now() - began).toFixed(1);
  }

  // Live updates: server-sent events, polling while the stream is down.
  let poller = null, failures = 0;

  function setMode(m) {
    $("conn").dataset.mode = m;
    $("conn").textContent = m === "live" ? "live" : m;
    document.body.dataset.mode = m;
  }

  function poll() {
    fetch("/api/v1/state", { cache: "no-store" })
      .then((r) => (r.ok ? r.json() : Promise.reject(new Error("HTTP " + r.status))))
      .then((st) => { render(st); setMode("polling"); })
      .catch(() => setMode("offline"));
  }

  function startPolling() {
    if (poller !== null) return;
    poll();
    poller = setInterval(poll, POLL_MS);
  }

  function stopPolling() {
    if (poller === null) return;
    clearInterval(poller);
    poller = null;
  }

  function connect() {
    if (!window.EventSource) {
      startPolling();
      return;
    }
    const es = new EventSource("/api/v1/stream");
    es.addEventListener("state", (e) => {
      failures = 0;
      stopPolling();
      setMode("live");
      render(JSON.parse(e.data));
    });
    es.onerror = () => {
      failures++;
      if (failures >= 2 || es.readyState === EventSource.CLOSED) startPolling();
    };
  }

  // Script errors and refused loads are kept on the body, where tests look.
  window.addEventListener("error", (e) => { document.body.dataset.error = e.message; });
  document.addEventListener("securitypolicyviolation", (e) => { document.body.dataset.error = "blocked " + e.blockedURI; });
  $("filter").addEventListener("input", applyFilter);
  connect();
})();
